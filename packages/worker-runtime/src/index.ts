export { parseWorkerEnv, WorkerConfigError, EXIT_CONFIG, type ConfigIssue } from './worker-config.ts';
export { workerLogger, healingLog, REDACTED_PATHS, REDACTED, isSecretKey, redactText, redactValue, redactLogLine } from './logger.ts';
export { startTelemetry, traceHeaders, contextFromHeaders, inSpan, TELEMETRY_SERVICE_NAME, type Telemetry } from './telemetry.ts';
export {
  workerHttpApp,
  requireBearerToken,
  tokenMatches,
  isLoopback,
  assertSafeBinding,
  bearerAuth,
  bodyParserRefusal,
  hostOfHostHeader,
  principalOf,
  sendInternalError,
  HttpRequestError,
  ANONYMOUS_PRINCIPAL,
  SHARED_TOKEN_PRINCIPAL,
  type BearerAuthOptions,
  type BearerTokens,
  type Principal,
  type WorkerHttpOptions,
} from './http-app.ts';
export { roleTableEnv, callerRoles, roleGate, type RoleTable } from './api-roles.ts';
export { parseNamedTokens, NamedTokensEnv, NamedTokensFileEnv, MIN_API_TOKEN_LENGTH } from './api-tokens.ts';
export { listen, listening, httpTlsConfig, HttpTlsEnv, type HttpTlsConfig, type ListenOptions } from './listen.ts';
export { testPause } from './test-hooks.ts';
export {
  InvalidRulesFileError,
  loadRulesFile,
  parseRulesText,
  uniqueIds,
  type RulesFileIssue,
  type RulesFileFormat,
} from './rules-file.ts';
export {
  createQdrantClient,
  QDRANT_KEEP_ALIVE_MS,
  QDRANT_REQUEST_ATTEMPTS,
  type QdrantConnection,
  type QdrantRetryLogger,
} from './qdrant-client.ts';
export {
  isRequestTimeout,
  isResendableFailure,
  isSocketError,
  mayResend,
  qdrantOperationClass,
  type QdrantOperationClass,
} from './qdrant-retry-policy.ts';
export {
  createElasticsearchClient,
  elasticsearchConnection,
  elasticsearchCredentialsIssue,
  ElasticsearchCredentialsEnv,
  EsIndexPrefixEnv,
  type ElasticsearchConnection,
} from './elasticsearch-client.ts';
