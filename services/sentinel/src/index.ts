// Probing, scoring and probe curation live in @rag-immune/probing (the effector verifies repairs
// with the same code, the CLI curates the probe set with it); import them from there.
export { Sentinel, type ProbeResultSink, type ProbeStatus, type SentinelSchedule } from './sentinel.ts';
export { ProbeScheduler } from './probe-scheduler.ts';
export { SentinelMetrics } from './metrics.ts';
export { sentinelHttpApp } from './http/routes.ts';
export { startTelemetry, TELEMETRY_SERVICE_NAME } from './telemetry.ts';
export { sentinelConfigFromEnv, SentinelConfigError, SENTINEL_VERSION, DEFAULT_USER_AGENT, type SentinelEnv } from './config.ts';
// The traffic watcher (issue 38): live user traces as the sentinel's second input.
export { trafficConfigFromEnv, TrafficConfigError, type TrafficEnv } from './traffic/config.ts';
export { trafficWatcher } from './traffic/traffic-module.ts';
export { TrafficWatcher, type TrafficSource } from './traffic/traffic-watcher.ts';
export { UserTraceReader, toUserAnswer, type PollResult } from './traffic/user-trace-reader.ts';
export { retrievedKnowledgeIds, topKnowledgeId, type UserAnswer } from './traffic/user-answer.ts';
export type { AnswerSignal } from './traffic/signals/answer-signal.ts';
export { retrievalHealth } from './traffic/signals/retrieval-health.ts';
export { citationCheck } from './traffic/signals/citation-check.ts';
export { fcsAgainstContext } from './traffic/signals/fcs-against-context.ts';
export { feedFreshness } from './traffic/signals/feed-freshness.ts';
export { DriftMonitor } from './traffic/drift-monitor.ts';
export { SegmentResolver } from './traffic/segment-resolver.ts';
export { ShadowReplay } from './traffic/shadow-replay.ts';
export { TrafficMetrics } from './traffic/traffic-metrics.ts';
