import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeObservation } from '@rag-immune/contracts';
import { compareWithBaseline, defaultThresholds } from '../../src/signals/baseline-comparison.ts';

const DAY = 86_400_000;
const NOW = 20_000 * DAY;

/** kfDaysOld: how many days before NOW the side's knowledge is dated. */
function observation(
  fcs: number | null,
  ic: number | null,
  kfDaysOld: number | null,
  status: ProbeObservation['call_status'] = 'ok',
): ProbeObservation {
  return {
    call_status: status,
    http_status: status === 'ok' ? 200 : 500,
    error_message: status === 'ok' ? null : 'boom',
    trace_id: null,
    traceparent: null,
    latency_ms: 10,
    signals:
      status === 'ok'
        ? {
            fcs,
            fcs_status: fcs === null ? 'no_evidence' : 'scored',
            fcs_truncated: false,
            ic,
            kf_as_of: kfDaysOld === null ? null : NOW - kfDaysOld * DAY,
            kf_age_days: kfDaysOld,
          }
        : null,
    retrieved_documents: [],
    component_versions: { embedder: null, reranker: null, generator: null },
    answer_hash: null,
  };
}

test('equal sides raise nothing', () => {
  const verdict = compareWithBaseline(observation(0.9, 1, 10), observation(0.9, 1, 10), defaultThresholds);
  assert.deepEqual(verdict, {
    comparison: {
      fcs_drop: 0,
      ic_drop: 0,
      kf_lag_days: 0,
      answer_agreement: null,
      online_answer_vs_baseline_fcs: null,
      baseline_answer_vs_online_fcs: null,
      knowledge_update: false,
      altered_chunks: [],
      online_latency_p95_ms: null,
      baseline_latency_p95_ms: null,
      online_timeout_rate: null,
      feed_check: null,
      unpublished_knowledge: [],
      attribution: null,
    },
    anomaly: false,
    severity: 'none',
    signals: [],
  });
});

test('each signal trips on its own threshold, and only past it', () => {
  assert.deepEqual(compareWithBaseline(observation(0.74, 1, 10), observation(0.9, 1, 10), defaultThresholds).signals, ['fcs_drop']);
  assert.deepEqual(compareWithBaseline(observation(0.76, 1, 10), observation(0.9, 1, 10), defaultThresholds).signals, []);
  assert.deepEqual(compareWithBaseline(observation(0.9, 0.5, 10), observation(0.9, 1, 10), defaultThresholds).signals, ['ic_drop']);
  assert.deepEqual(compareWithBaseline(observation(0.9, 1, 45), observation(0.9, 1, 10), defaultThresholds).signals, ['kf_stale']);
  // Online knowledge newer than the frozen baseline's is the normal case, never stale.
  assert.deepEqual(compareWithBaseline(observation(0.9, 1, 0), observation(0.9, 1, 400), defaultThresholds).signals, []);
  assert.equal(compareWithBaseline(observation(0.9, 1, 0), observation(0.9, 1, 400), defaultThresholds).comparison.kf_lag_days, -400);
});

test('severity grows with how far past the threshold the worst signal is', () => {
  const severityAt = (fcsOnline: number) =>
    compareWithBaseline(observation(fcsOnline, 1, 0), observation(1, 1, 0), defaultThresholds).severity;
  assert.equal(severityAt(0.8), 'low'); // drop 0.2 = 1.33x
  assert.equal(severityAt(0.7), 'medium'); // 2x
  assert.equal(severityAt(0.5), 'high'); // 3.33x
  assert.equal(severityAt(0.3), 'critical'); // 4.67x
});

test('a failing online RAG is high even when nothing else can be compared; a failing baseline alone is low', () => {
  const onlineDown = compareWithBaseline(observation(null, null, null, 'timeout'), observation(0.9, 1, 0), defaultThresholds);
  assert.equal(onlineDown.severity, 'high');
  assert.deepEqual(onlineDown.signals, ['online_error']);
  const { fcs_drop, ic_drop, kf_lag_days } = onlineDown.comparison;
  assert.deepEqual({ fcs_drop, ic_drop, kf_lag_days }, { fcs_drop: null, ic_drop: null, kf_lag_days: null });
  const baselineDown = compareWithBaseline(observation(0.9, 1, 0), observation(null, null, null, 'http_error'), defaultThresholds);
  assert.equal(baselineDown.severity, 'low');
  assert.deepEqual(baselineDown.signals, ['baseline_error']);
});
