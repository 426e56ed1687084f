/**
 * Detectors on recorded trace pairs (real traces of the reference RAG under each fault, recorded by
 * scripts/record-trace-pairs.ts): the right cause ranks first for every fault, nothing fires on
 * clean runs, and the fault no detector was designed for gets no confident cause.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeResult } from '@rag-immune/contracts';
import type { KnowledgeFreshness } from '@rag-immune/rag-contract';
import { analyseTraces, diffTraces, DETECTORS, rankCauses, toProbeAnalysis, type ProbeAnalysis } from '../../src/testing.ts';
import { FAULT_SCENARIOS } from '../support/scenarios.ts';
import { loadRecordedRuns, type RecordedRun } from '../support/fixtures.ts';

const runs = loadRecordedRuns();

function analysis(run: RecordedRun): ProbeAnalysis {
  return toProbeAnalysis(analyseTraces(run.result, diffTraces(run.online_trace!, run.baseline_trace!)), []);
}

test('the fixture holds anomalous runs of every fault kind and clean runs', () => {
  const kinds = new Set(runs.filter((r) => r.result.anomaly).map((r) => r.kind));
  for (const scenario of FAULT_SCENARIOS) assert.ok(kinds.has(scenario.kind), scenario.kind);
  assert.ok(runs.some((r) => r.kind === 'clean'));
});

test('clean runs: every detector scores 0', () => {
  for (const run of runs.filter((r) => r.kind === 'clean')) {
    const diff = diffTraces(run.online_trace!, run.baseline_trace!);
    for (const detector of DETECTORS)
      assert.equal(detector.detect({ result: run.result, diff }).score, 0, `${detector.cause} on ${run.probe.query}`);
  }
});

for (const scenario of FAULT_SCENARIOS) {
  test(`${scenario.kind}/${scenario.mode}: ${scenario.cause === 'unknown' ? 'no cause scores above 0.5' : `${scenario.cause} ranks first`}`, () => {
    const anomalous = runs.filter((r) => r.kind === scenario.kind && r.mode === scenario.mode && r.result.anomaly);
    assert.ok(anomalous.length > 0);
    const ranked = rankCauses(anomalous.map(analysis));
    if (scenario.cause === 'unknown') assert.ok(ranked[0]!.score < 0.5, `${ranked[0]!.cause} scored ${ranked[0]!.score}`);
    else {
      assert.equal(ranked[0]!.cause, scenario.cause, JSON.stringify(ranked));
      assert.ok(ranked[0]!.score - ranked[1]!.score > 0.3, JSON.stringify(ranked));
    }
  });
}

test('every measurement a detector reports names a claim kind, a subject and a finite figure', () => {
  for (const run of runs.filter((r) => r.result.anomaly)) {
    const diff = diffTraces(run.online_trace!, run.baseline_trace!);
    for (const detector of DETECTORS) {
      const verdict = detector.detect({ result: run.result, diff });
      assert.ok(verdict.score >= 0 && verdict.score <= 1);
      if (verdict.score > 0) assert.ok(verdict.measurements.length > 0, `${detector.cause} scored without measurements`);
      for (const m of verdict.measurements) {
        assert.ok(m.subject.length > 0 && m.metric.length > 0);
        assert.ok(Number.isFinite(m.observed));
      }
    }
  }
});

test('trace diff: a lookalike hyphen in the rewritten query is the query layer; answer facts are checked against the cited chunk', () => {
  const run = runs.find((r) => r.kind === 'tokenizer-anomaly' && r.result.anomaly)!;
  const diff = diffTraces(run.online_trace!, run.baseline_trace!);
  assert.equal(diff.query.rewritten_equal, false);
  assert.ok(diff.query.online_suspicious_chars > 0);
  assert.equal(diff.query.baseline_suspicious_chars, 0);
  const generator = runs.find((r) => r.kind === 'generator-inconsistency' && r.result.anomaly)!;
  const gdiff = diffTraces(generator.online_trace!, generator.baseline_trace!);
  assert.equal(gdiff.context.identical, true);
  assert.ok(gdiff.answer.online_unsupported.length > 0);
  assert.deepEqual(gdiff.answer.baseline_unsupported, []);
});

test('index corruption: losing the chunk the baseline answer cites fits; losing only an uncited one barely does', () => {
  const run = runs.find((r) => r.kind === 'clean' && r.baseline_trace!.citations.length > 0 && r.baseline_trace!.context.length > 2)!;
  const baseline = run.baseline_trace!;
  const cited = baseline.citations[0]!.chunk_id;
  const uncited = baseline.context.find((c) => c.chunk_id !== cited)!.chunk_id;
  const losing = (chunkId: string) => ({
    ...run.online_trace!,
    candidates: run.online_trace!.candidates.filter((c) => c.chunk_id !== chunkId),
  });
  const detector = DETECTORS.find((d) => d.cause === 'vector_index_corruption')!;
  const citedLoss = detector.detect({ result: run.result, diff: diffTraces(losing(cited), baseline) });
  const uncitedLoss = detector.detect({ result: run.result, diff: diffTraces(losing(uncited), baseline) });
  assert.ok(citedLoss.score > 0.8, `cited loss scored ${citedLoss.score}`);
  assert.ok(uncitedLoss.score <= 0.3, `uncited loss scored ${uncitedLoss.score}`);
  assert.deepEqual(citedLoss.knowledge_ids, [baseline.citations[0]!.knowledge_id]);
});

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

test('narrow index corruption seen only as stale knowledge: the damaged chunk’s lost relevance explains the lag, cited or not', () => {
  // The loop-history case (bench/healing/targeted, inc-40ff45): a zeroed vector leaves an uncited chunk
  // in the context at retrieval score 0, the answer is unchanged, and the probe is flagged only because the
  // relevance-weighted freshness lost that chunk's newer update time.
  const DAY = 86_400_000;
  const candidates = runs.flatMap((run) => {
    const cited = new Set(run.baseline_trace!.citations.map((c) => c.chunk_id));
    const docs = run.result.online.retrieved_documents;
    const newest = Math.max(...docs.map((d) => d.updated_at ?? 0));
    const damaged = docs.find((d) => !cited.has(d.chunk_id) && d.updated_at === newest && (d.retrieval_score ?? 0) > 0.3);
    const older = docs.some((d) => (d.updated_at ?? newest) < newest - 90 * DAY);
    return run.kind === 'clean' && damaged && older ? [{ run, damaged }] : [];
  });
  assert.ok(candidates.length > 0, 'a clean run with an uncited newest chunk beside older ones');
  const { run, damaged } = candidates[0]!;
  const zeroed = {
    ...run.online_trace!,
    candidates: run.online_trace!.candidates.map((c) => (c.chunk_id === damaged.chunk_id ? { ...c, retrieval_score: 0 } : c)),
  };
  const probe = (signals: ProbeResult['anomaly_signals'], documents = run.result.online.retrieved_documents): ProbeResult => ({
    ...run.result,
    anomaly: true,
    anomaly_signals: signals,
    online: {
      ...run.result.online,
      retrieved_documents: documents.map((d) => (d.chunk_id === damaged.chunk_id ? { ...d, retrieval_score: 0 } : d)),
    },
  });
  const diff = diffTraces(zeroed, run.baseline_trace!);
  assert.deepEqual(
    diff.candidates.moved_context_chunks.map((c) => [c.chunk_id, c.cited]),
    [[damaged.chunk_id, false]],
  );
  const vector = DETECTORS.find((d) => d.cause === 'vector_index_corruption')!;
  const source = DETECTORS.find((d) => d.cause === 'knowledge_source_failure')!;
  const freshnessOnly = probe(['kf_stale']);
  const verdict = vector.detect({ result: freshnessOnly, diff });
  assert.ok(verdict.score > 0.7, `freshness-only, explained: vector scored ${verdict.score}`);
  assert.ok(
    verdict.score >
      source.detect({ result: { ...freshnessOnly, comparison: { ...freshnessOnly.comparison, kf_lag_days: 60 } }, diff }).score,
  );
  assert.deepEqual(verdict.knowledge_ids, [diff.candidates.moved_context_chunks[0]!.knowledge_id]);
  const restored = verdict.measurements.find((m) => m.metric === 'kf_lag_days_with_damaged_scores_restored');
  assert.ok(restored && restored.baseline! > 0 && restored.observed <= restored.baseline! / 2, JSON.stringify(restored));

  // A worse answer still needs damage to what the answer rested on.
  assert.ok(vector.detect({ result: probe(['fcs_drop', 'kf_stale']), diff }).score <= 0.3);
  // A lag the damage does not account for (the other documents themselves got older) is not its doing.
  const aged = run.result.online.retrieved_documents.map((d) =>
    d.chunk_id === damaged.chunk_id ? d : { ...d, updated_at: (d.updated_at ?? 0) - 2000 * DAY },
  );
  assert.ok(vector.detect({ result: probe(['kf_stale'], aged), diff }).score <= 0.3);
});
