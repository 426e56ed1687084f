/** The tokenizer-anomaly detector on recorded trace pairs (scripts/record-trace-pairs.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Trace } from '@rag-immune/rag-contract';
import { diffTraces, DETECTORS } from '../../../src/testing.ts';
import { loadRecordedRuns, type RecordedRun } from '../../fixtures/recorded-runs.ts';

const runs = loadRecordedRuns().filter((r) => r.online_trace && r.baseline_trace);
const detector = DETECTORS.find((d) => d.cause === 'tokenizer_anomaly')!;
const verdict = (run: RecordedRun, online: Partial<Trace> = {}) =>
  detector.detect({ result: run.result, diff: diffTraces({ ...run.online_trace!, ...online }, run.baseline_trace!) });

test('look-alike characters in the online rewritten query only: a tokenizer anomaly, measured by those characters', () => {
  const anomalous = runs.filter((r) => r.kind === 'tokenizer-anomaly' && r.result.anomaly);
  assert.ok(anomalous.length > 0, 'recorded tokenizer-anomaly runs');
  for (const run of anomalous) {
    const v = verdict(run);
    assert.equal(v.score, 0.95, run.probe.query);
    assert.deepEqual(v.knowledge_ids, [], 'a query-rewrite repair is global');
    const chars = v.measurements.find((m) => m.metric === 'suspicious_chars_in_rewritten_query')!;
    assert.equal(chars.claim_kind, 'query_encoding_anomaly');
    assert.ok(chars.observed > chars.baseline!, JSON.stringify(chars));
    assert.deepEqual(
      v.measurements.find((m) => m.metric === 'rewritten_query_equal'),
      { claim_kind: 'query_encoding_anomaly', subject: run.result.probe_id, metric: 'rewritten_query_equal', observed: 0, baseline: 1 },
    );
  }
});

test('another rewritten query without suspicious characters is weaker evidence; the same one is none', () => {
  const run = runs.find((r) => r.kind === 'clean')!;
  assert.equal(verdict(run, { rewritten_query: `${run.online_trace!.rewritten_query} please` }).score, 0.4);
  for (const clean of runs.filter((r) => ['clean', 'reranker-drift', 'parser-bug', 'vector-index-corruption'].includes(r.kind))) {
    const v = verdict(clean);
    assert.equal(v.score, 0, `${clean.kind}: ${clean.probe.query}`);
    assert.deepEqual(v.measurements, []);
  }
});
