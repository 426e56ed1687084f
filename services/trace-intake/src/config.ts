import { z } from 'zod';
import { parseWorkerEnv } from '@rag-immune/worker-runtime';

/** The trace intake's environment; a bad value stops it (exit 78) naming the variable. */
export const TraceIntakeEnv = z.object({
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
