/** The reranker-drift detector on recorded trace pairs (scripts/record-trace-pairs.ts), and those pairs cut to show one layer changed at a time. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Trace } from '@rag-immune/rag-contract';
import { diffTraces, DETECTORS } from '../../../src/testing.ts';
import { loadRecordedRuns, type RecordedRun } from '../../fixtures/recorded-runs.ts';

const runs = loadRecordedRuns().filter((r) => r.online_trace && r.baseline_trace);
const detector = DETECTORS.find((d) => d.cause === 'reranker_drift')!;
const drifted = runs.filter((r) => r.kind === 'reranker-drift' && r.result.anomaly);
const verdict = (run: RecordedRun, online: Partial<Trace> = {}) =>
  detector.detect({ result: run.result, diff: diffTraces({ ...run.online_trace!, ...online }, run.baseline_trace!) });

test('the same candidates reordered by another reranker version: reranker drift, with the version change as a claim', () => {
  assert.ok(drifted.length > 0, 'recorded reranker-drift runs');
  for (const run of drifted) {
    const v = verdict(run);
    assert.ok(v.score > 0.9, `${run.probe.query}: ${v.score}`);
    assert.deepEqual(v.knowledge_ids, [], 'a reranker repair is global');
    const byMetric = new Map(v.measurements.map((m) => [m.metric, m]));
    assert.equal(byMetric.get('rerank_input_identical')?.observed, 1);
    assert.equal(byMetric.get('rerank_order_changed')?.observed, 1);
    const change = byMetric.get('reranker_version_changed');
    assert.equal(change?.claim_kind, 'component_version_change');
    assert.equal(change.subject, `reranker:${run.baseline_trace!.models.reranker}->${run.online_trace!.models.reranker}`);
  }
});

test('the reorder without a reported version change counts less; with another query text it is the query layer’s', () => {
  const run = drifted[0]!;
  const full = verdict(run).score;
  const sameVersion = verdict(run, { models: { ...run.online_trace!.models, reranker: run.baseline_trace!.models.reranker } });
  assert.ok(sameVersion.score > 0 && sameVersion.score < full, `${sameVersion.score} vs ${full}`);
  assert.ok(!sameVersion.measurements.some((m) => m.claim_kind === 'component_version_change'));
  const otherQuery = verdict(run, { rewritten_query: `${run.online_trace!.rewritten_query} again` });
  assert.ok(Math.abs(otherQuery.score - 0.3 * full) < 1e-9, `${otherQuery.score} vs 0.3 × ${full}`);
});

test('clean runs and runs whose retrieval changed under the same reranker version: no reranker drift', () => {
  for (const run of runs.filter((r) => r.kind === 'clean' || r.kind === 'vector-index-corruption' || r.kind === 'parser-bug')) {
    const v = verdict(run);
    assert.equal(v.score, 0, `${run.kind}: ${run.probe.query}`);
    assert.deepEqual(v.measurements, []);
  }
});
