import { pino, type Logger } from 'pino';

/**
 * Paths pino blanks in every log line. Tokens and API keys reach loggers through request headers,
 * configuration dumps and errors; redaction is the last line of defence, not the only one.
 */
export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'token',
  '*.token',
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  // Store credentials, as configuration dumps and client options carry them.
  'headers["api-key"]',
  '*.headers["api-key"]',
  'QDRANT_API_KEY',
  '*.QDRANT_API_KEY',
  'EFFECTOR_QDRANT_API_KEY',
  '*.EFFECTOR_QDRANT_API_KEY',
  'ES_API_KEY',
  '*.ES_API_KEY',
  'ES_PASSWORD',
  '*.ES_PASSWORD',
];

/** The JSON logger of one worker: `service` and `version` on every line, secrets redacted. */
export function workerLogger(service: string, version: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ name: service, level, base: { service, version }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

/**
 * A `[HEALING]` line: one per healing step (verdict, repair, verification, case), grep-able across
 * workers' logs to follow an incident.
 */
export function healingLog(logger: Logger, fields: Record<string, unknown> & { incident_id: string }, message: string): void {
  logger.info({ healing: true, ...fields }, `[HEALING] ${message}`);
}
