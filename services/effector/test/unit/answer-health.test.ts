import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleProbeResult, type AnomalySignal, type ProbeResult } from '@rag-immune/contracts';
import { answerUnhealthy } from '../../src/verify/answer-health.ts';
import { judgeRepair } from '../../src/verify/repair-judgement.ts';
import type { ProbeMeasurement } from '../../src/index.ts';

const result = (id: string, signals: AnomalySignal[], callStatus: ProbeResult['online']['call_status'] = 'ok'): ProbeResult => {
  const base = exampleProbeResult(id);
  return { ...base, anomaly: signals.length > 0, anomaly_signals: signals, online: { ...base.online, call_status: callStatus } };
};

test('a probe slower than the baseline but answering like it is healthy for a repair; a wrong or missing answer is not', () => {
  assert.equal(answerUnhealthy(result('p', [])), false);
  assert.equal(answerUnhealthy(result('p', ['latency_regression'])), false);
  assert.equal(answerUnhealthy(result('p', ['latency_regression', 'timeout_rate'])), false);
  assert.equal(answerUnhealthy(result('p', ['latency_regression', 'answer_disagreement'])), true);
  assert.equal(answerUnhealthy(result('p', ['fcs_drop'])), true);
  assert.equal(answerUnhealthy(result('p', [], 'timeout')), true, 'an answer that never came');
  assert.equal(answerUnhealthy({ ...result('p', []), anomaly: true }), true, 'an anomaly naming no signal is taken at its word');
});

test('an index repair verified while the online RAG serves users: its probe slower, its answer back: recovered, kept', () => {
  const measurement = (results: ProbeResult[]): ProbeMeasurement => ({
    probe_ids: results.map((r) => r.probe_id),
    fcs: null,
    ic: null,
    kf_age_days: null,
    recovered: results.every((r) => !answerUnhealthy(r)),
    anomalies: [],
    results,
  });
  const before = measurement([result('traffic-a', ['answer_disagreement', 'fcs_drop']), result('golden-b', [])]);
  const after = measurement([result('traffic-a', ['latency_regression']), result('golden-b', ['latency_regression'])]);
  assert.deepEqual(judgeRepair(before, after), { outcome: 'recovered', keep: true, healed: ['traffic-a'], unhealed: [], worsened: [] });
  // The same answer still wrong after the repair: not recovered (and not made worse by its speed).
  const still = measurement([result('traffic-a', ['answer_disagreement']), result('golden-b', [])]);
  assert.equal(judgeRepair(before, still).outcome, 'no_effect');
});
