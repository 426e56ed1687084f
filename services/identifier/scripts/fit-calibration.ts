/**
 * Fits the verdict calibration on labelled runs (recorded trace pairs, scripts/record-trace-pairs.ts)
 * and writes src/verdict/calibration.json. For every fault scenario and every subset (up to 4 probes)
 * of its anomalous runs, two labelled samples: the verdict features with all detectors (label: did
 * the right cause rank first?) and with the true cause's detector left out (label: wrong, since the
 * top cause then cannot be right: the case of a fault no detector was designed for). The
 * evaluation-only fault is not used. Judge the result on other runs: `npm run bench:identifier`.
 *
 *   npx tsx services/identifier/scripts/fit-calibration.ts [runs.jsonl.gz ...]
 */
import { writeFileSync } from 'node:fs';
import {
  analyseTraces,
  diffTraces,
  fitCalibration,
  reliability,
  calibratedConfidence,
  toProbeAnalysis,
  DEFAULT_CALIBRATION_PATH,
} from '../src/testing.ts';
import { labelledSamples } from '../src/verdict/labelled-samples.ts';
import { loadRecordedRuns, TRACE_PAIRS } from '../test/fixtures/recorded-runs.ts';
import { FAULT_SCENARIOS } from '@rag-immune/test-kit/identifier/scenarios';

const files = process.argv.slice(2);
const runs = (files.length > 0 ? files : [TRACE_PAIRS]).flatMap((file) => loadRecordedRuns(file));
const groups = FAULT_SCENARIOS.filter((s) => s.cause !== 'unknown').map((scenario) => ({
  cause: scenario.cause as Exclude<typeof scenario.cause, 'unknown'>,
  analyses: runs
    .filter((r) => r.kind === scenario.kind && r.mode === scenario.mode && r.result.anomaly && r.online_trace && r.baseline_trace)
    .map((r) => toProbeAnalysis(analyseTraces(r.result, diffTraces(r.online_trace!, r.baseline_trace!)), [])),
}));
const samples = labelledSamples(groups, 4);
const calibration = fitCalibration(
  samples,
  `${runs.length} recorded probe runs (${files.join(', ') || 'test/fixtures/trace-pairs.jsonl.gz'}), ${samples.length} samples`,
);
writeFileSync(DEFAULT_CALIBRATION_PATH, `${JSON.stringify(calibration, null, 2)}\n`);
const fit = reliability(samples.map((s) => ({ confidence: calibratedConfidence(calibration, s.features), correct: s.correct })));
console.log(
  `fitted on ${samples.length} samples (${samples.filter((s) => s.correct).length} right): weights ${JSON.stringify(calibration.weights)}; ` +
    `on the fitting data ECE ${fit.ece.toFixed(3)}, Brier ${fit.brier.toFixed(3)} → ${DEFAULT_CALIBRATION_PATH}`,
);
