/** The sentinel counts each signal behind an anomalous run, for the healing dashboard's "anomalies by signal". */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleProbeResult } from '@rag-immune/contracts';
import { SentinelMetrics } from '../../src/metrics.ts';

async function signalCounts(metrics: SentinelMetrics): Promise<Record<string, number>> {
  const metric = await metrics.registry.getSingleMetric('rag_immune_sentinel_anomaly_signals_total')?.get();
  return Object.fromEntries((metric?.values ?? []).map((v) => [String(v.labels.signal), v.value]));
}

test('an anomalous run counts once per signal; a healthy run counts nothing', async () => {
  const metrics = new SentinelMetrics();
  const healthy = { ...exampleProbeResult('p-healthy'), anomaly: false, severity: 'none' as const, anomaly_signals: [] };
  metrics.record(healthy);
  assert.deepEqual(await signalCounts(metrics), {});

  metrics.record({ ...exampleProbeResult('p-1'), anomaly: true, severity: 'high', anomaly_signals: ['fcs_drop', 'kf_stale'] });
  metrics.record({ ...exampleProbeResult('p-2'), anomaly: true, severity: 'low', anomaly_signals: ['fcs_drop'] });
  assert.deepEqual(await signalCounts(metrics), { fcs_drop: 2, kf_stale: 1 });
});
