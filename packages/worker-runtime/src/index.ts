export { parseWorkerEnv, WorkerConfigError, EXIT_CONFIG, type ConfigIssue } from './worker-config.ts';
export { workerLogger, healingLog, REDACTED_PATHS } from './logger.ts';
export { startTelemetry, traceHeaders, contextFromHeaders, inSpan, TELEMETRY_SERVICE_NAME, type Telemetry } from './telemetry.ts';
export {
  workerHttpApp,
  requireBearerToken,
  tokenMatches,
  isLoopback,
  assertSafeBinding,
  bearerAuth,
  sendInternalError,
  HttpRequestError,
  type BearerAuthOptions,
  type WorkerHttpOptions,
} from './http-app.ts';
export { testPause } from './test-hooks.ts';
export { createQdrantClient, type QdrantConnection } from './qdrant-client.ts';
export {
  createElasticsearchClient,
  elasticsearchConnection,
  elasticsearchCredentialsIssue,
  ElasticsearchCredentialsEnv,
  type ElasticsearchConnection,
} from './elasticsearch-client.ts';
