export { Sentinel, type ProbeResultSink, type ProbeStatus } from './sentinel.ts';
export { ProbeRunner, type ProbeRunnerOptions } from './probe-runner.ts';
export { ProbeScheduler } from './probe-scheduler.ts';
export { SentinelMetrics } from './sentinel-metrics.ts';
export { sentinelHttpApp } from './http-server.ts';
export { DebugCapture } from './debug-capture.ts';
export { startTelemetry, TELEMETRY_SERVICE_NAME } from './telemetry.ts';
export { sentinelConfigFromEnv, SentinelConfigError, SENTINEL_VERSION, DEFAULT_USER_AGENT, type SentinelEnv } from './config.ts';
export type { RagPort, FactConsistencyPort, FcsVerdict, EvidenceSnippet } from './ports.ts';
export { GoldenProbeSchema, isActive, type GoldenProbe } from './probes/golden-probe.ts';
export { ProbeCatalog, parseProbeFile, formatProbeFile, InvalidProbeFileError, type ProbeFileIssue } from './probes/probe-catalog.ts';
export {
  ProbeSetBuilder,
  attribution,
  defaultProbeSetOptions,
  queryVariants,
  type ProbeSetOptions,
  type ProbeSetReport,
  type CandidateVerdict,
} from './probes/probe-set-builder.ts';
export {
  planRotation,
  applyRotation,
  defaultRotationOptions,
  type RotationDecision,
  type RotationOptions,
} from './probes/probe-rotation.ts';
export { parseQueryLog, type QueryLogEntry } from './probes/query-log.ts';
export { intentCoverage, detectIntents, extractSlots, type IntentCoverage, type IntentKind } from './signals/intent-coverage.ts';
export { knowledgeFreshness, type KnowledgeFreshness } from './signals/knowledge-freshness.ts';
export { compareWithBaseline, defaultThresholds, type AnomalyThresholds, type BaselineVerdict } from './signals/baseline-comparison.ts';
export { ragClientWithHeaders } from './rag-connection.ts';
export { readOnlineFcsHistory } from './probes/probe-history.ts';
export { probesFromQuestions, type LabelledQuestionLike } from './probes/labelled-question-probes.ts';
