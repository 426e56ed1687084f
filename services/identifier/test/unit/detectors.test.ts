/**
 * Detectors on recorded trace pairs (real traces of the reference RAG under each fault, recorded by
 * scripts/record-trace-pairs.ts): the right cause ranks first for every fault, nothing fires on
 * clean runs, and the fault no detector was designed for gets no confident cause.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseTraces, diffTraces, DETECTORS, rankCauses, toProbeAnalysis, type ProbeAnalysis } from '../../src/testing.ts';
import { FAULT_SCENARIOS } from '@rag-immune/test-kit/identifier/scenarios';
import { loadRecordedRuns, type RecordedRun } from '../fixtures/recorded-runs.ts';

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
