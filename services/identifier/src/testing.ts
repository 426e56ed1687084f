/** The identifier's pure parts (no Kafka, Elasticsearch or OpenTelemetry SDK imports), for fast unit tests and tools. */
export { DETECTORS, type RootCauseDetector, type DetectorVerdict, type Measurement } from './detectors/index.ts';
export { diffTraces, type TraceDiff } from './trace-diff/trace-diff.ts';
export * from './ledger/canonical-json.ts';
export * from './ledger/evidence-record.ts';
export * from './incidents/incident-state.ts';
export * from './verdict/calibration.ts';
export * from './verdict/verdict.ts';
export { labelledSamples } from './verdict/labelled-samples.ts';
export * from './verdict/claim-gate.ts';
export { analyseTraces, evidenceDrafts, toProbeAnalysis, firstDivergingLayer, type PreparedAnalysis } from './analysis.ts';
