/** RAG calls per probe result: the sentinel's own count per run, else the calls a side asked. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeResult } from '@rag-immune/contracts';
import { callsPerResultText, countRagCalls, metricValue, ragCallsOf } from '../../src/loop/rag-calls.ts';

const result = (samples: number | null, pooledCalls?: number) =>
  ({ comparison: { samples, pooled_test: pooledCalls === undefined ? null : { rag_calls: pooledCalls } } }) as unknown as Pick<
    ProbeResult,
    'comparison'
  >;

test('ragCallsOf: the pooled test counts its calls (adaptive k), else k a side, else one a side', () => {
  assert.equal(ragCallsOf(result(3, 14)), 14);
  assert.equal(ragCallsOf(result(5)), 10);
  assert.equal(ragCallsOf(result(null)), 2);
});

test('countRagCalls and callsPerResultText: calls over results', () => {
  const count = countRagCalls([result(3, 6), result(3, 6), result(3, 14), result(5)]);
  assert.deepEqual(count, { results: 4, calls: 36 });
  assert.equal(callsPerResultText(count), '9.0 (36 calls / 4 results)');
  assert.equal(callsPerResultText(countRagCalls([])), '—');
});

test("metricValue: a histogram's _sum and _count lines, absent when the sentinel has no such metric", () => {
  const text = [
    '# HELP rag_immune_sentinel_rag_calls_per_result RAG calls behind one ProbeResult.',
    'rag_immune_sentinel_rag_calls_per_result_bucket{le="10"} 40',
    'rag_immune_sentinel_rag_calls_per_result_sum 412',
    'rag_immune_sentinel_rag_calls_per_result_count 41',
  ].join('\n');
  assert.equal(metricValue(text, 'rag_immune_sentinel_rag_calls_per_result_sum'), 412);
  assert.equal(metricValue(text, 'rag_immune_sentinel_rag_calls_per_result_count'), 41);
  assert.equal(metricValue(text, 'rag_immune_sentinel_rag_calls_per_result'), undefined);
  assert.equal(metricValue(text, 'rag_immune_other_sum'), undefined);
});
