/** The knowledge-source-failure detector with a RAG's freshness lookup, on a recorded stale run (scripts/record-trace-pairs.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KnowledgeFreshness } from '@rag-immune/rag-contract';
import { diffTraces, DETECTORS } from '../../../src/testing.ts';
import { loadRecordedRuns } from '../../fixtures/recorded-runs.ts';

const runs = loadRecordedRuns();

test('knowledge source failure: the freshness lookup says whether the feed or the index is behind', () => {
  const stale = runs.find((r) => r.kind === 'knowledge-source-failure' && r.result.anomaly && r.online_trace && r.baseline_trace);
  assert.ok(stale);
  const diff = diffTraces(stale.online_trace!, stale.baseline_trace!);
  const change = diff.versions.older_in_online[0];
  assert.ok(change, 'the recorded stale run serves an older version');
  const detector = DETECTORS.find((d) => d.cause === 'knowledge_source_failure')!;
  const at = (ms: number | null) => new Date(ms ?? 0).toISOString();
  const lookup = (feedFrom: number | null, feedVersion: string) =>
    new Map<string, KnowledgeFreshness>([
      [
        change.knowledge_id,
        {
          knowledge_id: change.knowledge_id,
          source: 'debian-changelog',
          feed_provider: 'primary',
          as_of: at(Date.now()),
          feed: { version: feedVersion, valid_from: at(feedFrom) },
          indexed: { version: change.online_version, valid_from: at(change.online_valid_from) },
        },
      ],
    ]);
  const metricsOf = (freshness?: ReturnType<typeof lookup>) =>
    detector
      .detect({ result: stale.result, diff, ...(freshness ? { freshness } : {}) })
      .measurements.filter((m) => m.subject.startsWith(`${change.knowledge_id}@`))
      .map((m) => `${m.metric}=${m.observed.toFixed(1)}`);
  const DAY = 86_400_000;
  const ageVsBaseline = ((change.baseline_valid_from ?? 0) - (change.online_valid_from ?? 0)) / DAY;
  // Without a lookup (a RAG that does not serve it): only the age against the baseline.
  assert.deepEqual(metricsOf(), [`served_version_age_days_vs_baseline=${ageVsBaseline.toFixed(1)}`]);
  // The feed publishes the same old version: the source is behind.
  assert.deepEqual(metricsOf(lookup(change.online_valid_from, change.online_version)), [
    `served_version_age_days_vs_baseline=${ageVsBaseline.toFixed(1)}`,
    `feed_behind_baseline_days=${ageVsBaseline.toFixed(1)}`,
  ]);
  // The feed publishes the baseline's version: the index did not ingest it.
  assert.deepEqual(metricsOf(lookup(change.baseline_valid_from, change.baseline_version)), [
    `served_version_age_days_vs_baseline=${ageVsBaseline.toFixed(1)}`,
    `index_behind_feed_days=${ageVsBaseline.toFixed(1)}`,
  ]);
  // The index holds the baseline's version and retrieval still served the older one: not staleness
  // but a chunk retrieval cannot find, which the vector-index detector may now count as damage.
  const present = lookup(change.baseline_valid_from, change.baseline_version);
  present.get(change.knowledge_id)!.indexed = { version: change.baseline_version, valid_from: at(change.baseline_valid_from) };
  assert.deepEqual(metricsOf(present), []);
  const vector = DETECTORS.find((d) => d.cause === 'vector_index_corruption')!;
  const lostHere = diff.candidates.lost_context_chunks.some((c) => c.knowledge_id === change.knowledge_id);
  const vectorIds = (freshness?: typeof present) =>
    vector.detect({ result: stale.result, diff, ...(freshness ? { freshness } : {}) }).knowledge_ids;
  assert.ok(!vectorIds().includes(change.knowledge_id), 'without the lookup an older version explains the loss');
  assert.ok(lostHere, 'the recorded run lost the baseline chunk of that id');
  assert.equal(vector.detect({ result: stale.result, diff }).score, 0);
  assert.ok(
    vector.detect({ result: stale.result, diff, freshness: present }).score > 0.5,
    'with the newer version indexed, the loss is the vector',
  );
  assert.ok(vectorIds(present).includes(change.knowledge_id));
  // Staleness that the lookup confirms keeps the score (and so the calibrated verdict) unchanged.
  const score = (freshness?: ReturnType<typeof lookup>) =>
    detector.detect({ result: stale.result, diff, ...(freshness ? { freshness } : {}) }).score;
  assert.equal(score(lookup(change.baseline_valid_from, change.baseline_version)), score());

  // The lookup runs after the probe. An index that wrote the newer version only after the trace
  // (an undo or a repair re-synced it meanwhile) says nothing about what that probe could retrieve:
  // the probe saw staleness, not damage, and no "where it lies" claim is made from a later index.
  const writtenAt = (offsetMs: number) => {
    const lookupNow = lookup(change.baseline_valid_from, change.baseline_version);
    lookupNow.get(change.knowledge_id)!.indexed = {
      version: change.baseline_version,
      valid_from: at(change.baseline_valid_from),
      indexed_at: at(diff.online_traced_at + offsetMs),
    };
    return lookupNow;
  };
  assert.ok(Number.isFinite(diff.online_traced_at));
  assert.equal(vector.detect({ result: stale.result, diff, freshness: writtenAt(5_000) }).score, 0, 'written after the trace');
  assert.deepEqual(metricsOf(writtenAt(5_000)), [`served_version_age_days_vs_baseline=${ageVsBaseline.toFixed(1)}`]);
  assert.equal(score(writtenAt(5_000)), score());
  // Written before the trace: the version was there to retrieve, so the loss is the vector's.
  assert.ok(vector.detect({ result: stale.result, diff, freshness: writtenAt(-5_000) }).score > 0.5, 'written before the trace');
  assert.deepEqual(metricsOf(writtenAt(-5_000)), []);
});
