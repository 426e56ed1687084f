/** The vector-index-corruption detector on recorded trace pairs (scripts/record-trace-pairs.ts), cut as the fault would cut them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeResult } from '@rag-immune/contracts';
import { diffTraces, DETECTORS } from '../../../src/testing.ts';
import { loadRecordedRuns } from '../../fixtures/recorded-runs.ts';

const runs = loadRecordedRuns();

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
