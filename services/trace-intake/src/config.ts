import { z } from 'zod';
import { RedactionConfigError, RedactionEnv, redactorFromConfig, type Redactor } from '@rag-immune/redaction';
import { parseWorkerEnv, WorkerConfigError } from '@rag-immune/worker-runtime';

const serviceList = z
  .string()
  .optional()
  .transform((text) =>
    (text ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  );

/** The trace intake's environment; a bad value stops it (exit 78) naming the variable. */
export const TraceIntakeEnv = RedactionEnv.extend({
  TRACE_INTAKE_HOST: z.string().min(1).default('127.0.0.1'),
  /** 4318 is OTLP/HTTP's registered port: exporters default to it. */
  TRACE_INTAKE_PORT: z.coerce.number().int().min(0).max(65535).default(4318),
  /** Bearer token exporters send (OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer …). */
  TRACE_INTAKE_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  ELASTICSEARCH_URL: z.string().url().default('http://127.0.0.1:19200'),
  ES_INDEX_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lowercase letters, digits, - or _')
    .default('rag-immune'),
  /** Spans older than this are deleted: long enough for an incident's analysis and a look back. */
  TRACE_INTAKE_RETENTION_HOURS: z.coerce.number().positive().default(72),
  /**
   * Users' spans (no `rag-immune=probe` in their tracestate): `on` keeps them, redacted, in
   * `<prefix>-otlp-user-spans`; `off` drops them all (counted), so no user text is ever stored.
   */
  TRACE_INTAKE_USER_TRAFFIC: z.enum(['on', 'off']).default('on'),
  /** service.name values whose users' spans are dropped (a RAG whose owners keep its traffic out); comma-separated. */
  TRACE_INTAKE_USER_TRAFFIC_EXCLUDE: serviceList,
  /** Users' spans are personal data: kept shorter than probe spans, just long enough for the traffic watcher. */
  TRACE_INTAKE_USER_RETENTION_HOURS: z.coerce.number().positive().default(24),
  TRACE_INTAKE_PURGE_INTERVAL_MINUTES: z.coerce.number().positive().default(60),
  /** Largest export body after decompression; larger ones get a 413 (exporters then split or drop the batch). */
  TRACE_INTAKE_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
});
export type TraceIntakeEnv = z.infer<typeof TraceIntakeEnv>;

export function traceIntakeConfigFromEnv(env: NodeJS.ProcessEnv): TraceIntakeEnv {
  return parseWorkerEnv('trace-intake', TraceIntakeEnv, env);
}

/** The redactor the settings describe; a bad pattern or rule name stops the intake naming its variable. */
export function intakeRedactor(config: TraceIntakeEnv): Redactor {
  try {
    return redactorFromConfig(config);
  } catch (error) {
    if (error instanceof RedactionConfigError)
      throw new WorkerConfigError('trace-intake', [{ key: error.key, message: error.message.slice(error.key.length + 2) }]);
    throw error;
  }
}
