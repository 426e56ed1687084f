// Probing and scoring live in @rag-immune/probing (the effector verifies repairs with the same code);
// re-exported here so the sentinel's users keep one import.
export * from '@rag-immune/probing';
export { Sentinel, type ProbeResultSink, type ProbeStatus, type SentinelSchedule } from './sentinel.ts';
export { ProbeScheduler } from './probe-scheduler.ts';
export { SentinelMetrics } from './sentinel-metrics.ts';
export { sentinelHttpApp } from './http-server.ts';
export { startTelemetry, TELEMETRY_SERVICE_NAME } from './telemetry.ts';
export { sentinelConfigFromEnv, SentinelConfigError, SENTINEL_VERSION, DEFAULT_USER_AGENT, type SentinelEnv } from './config.ts';
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
export { readOnlineFcsHistory } from './probes/probe-history.ts';
export { probesFromQuestions, type LabelledQuestionLike } from './probes/labelled-question-probes.ts';
