// Probing, scoring and probe curation live in @rag-immune/probing (the effector verifies repairs
// with the same code, the CLI curates the probe set with it); import them from there.
export { Sentinel, type ProbeResultSink, type ProbeStatus, type SentinelSchedule } from './sentinel.ts';
export { ProbeScheduler } from './probe-scheduler.ts';
export { SentinelMetrics } from './metrics.ts';
export { sentinelHttpApp } from './http/routes.ts';
export { startTelemetry, TELEMETRY_SERVICE_NAME } from './telemetry.ts';
export { sentinelConfigFromEnv, SentinelConfigError, SENTINEL_VERSION, DEFAULT_USER_AGENT, type SentinelEnv } from './config.ts';
