/** Issue 39: the sentinel counts the RAG calls behind each result and shows each probe's pooled statistics. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleProbeResult } from '@rag-immune/contracts';
import { SentinelMetrics } from '../../src/metrics.ts';

test('RAG calls per result: the pooled count when reported, else the calls asked; pooled statistics per probe and signal', async () => {
  const metrics = new SentinelMetrics();
  const plain = exampleProbeResult('p-plain');
  metrics.record(plain); // one call a side
  metrics.record({ ...plain, comparison: { ...plain.comparison, samples: 5 } });
  const pooled_test = {
    level: 0.01,
    threshold: 300,
    fcs_e: 2,
    fcs_statistic: 12,
    ic_e: null,
    ic_statistic: 0,
    facts_p: 0.5,
    facts_e: 0.8,
    facts_statistic: 3.5,
    rag_calls: 7,
    knowledge_pools: [],
  };
  metrics.record({ ...plain, probe_id: 'p-pooled', comparison: { ...plain.comparison, samples: 5, pooled_test } });
  const calls = await metrics.registry.getSingleMetric('rag_immune_sentinel_rag_calls_per_result')!.get();
  const value = (name: string) => calls.values.find((v) => (v as { metricName?: string }).metricName === name)?.value;
  assert.equal(value('rag_immune_sentinel_rag_calls_per_result_count'), 3);
  assert.equal(value('rag_immune_sentinel_rag_calls_per_result_sum'), 2 + 10 + 7);
  const statistic = await metrics.registry.getSingleMetric('rag_immune_sentinel_pooled_statistic')!.get();
  assert.deepEqual(Object.fromEntries(statistic.values.map((v) => [`${v.labels.probe_id}/${v.labels.signal}`, v.value])), {
    'p-pooled/fcs': 12,
    'p-pooled/ic': 0,
    'p-pooled/facts': 3.5,
  });
});
