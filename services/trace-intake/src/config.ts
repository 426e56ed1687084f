import { z } from 'zod';
import { RedactionConfigError, RedactionEnv, redactorFromConfig, type Redactor } from '@rag-immune/redaction';
import { MAX_SPANS_PER_TRACE, PROBE_MARK_MIN_KEY_LENGTH } from '@rag-immune/traces';
import {
  ElasticsearchCredentialsEnv,
  elasticsearchCredentialsIssue,
  parseWorkerEnv,
  WorkerConfigError,
  type ConfigIssue,
} from '@rag-immune/worker-runtime';
import { IntakeTokensFileEnv } from './intake-tokens.ts';

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
  /** The RAG whose spans the single TRACE_INTAKE_API_TOKEN posts; unset, the spans' own service.name is kept (legacy). */
  TRACE_INTAKE_API_TOKEN_RAG: z
    .string()
    .regex(/^[\w.@-]{1,100}$/, "1-100 letters, digits, '_', '.', '@' or '-'")
    .optional(),
  /** A JSON file (a mounted Secret) of per-RAG tokens: the RAG a span set belongs to comes from its token. */
  TRACE_INTAKE_TOKENS_FILE: IntakeTokensFileEnv.optional(),
  /**
   * The key the probe runners (sentinel, effector) sign their probe mark with: set, a span is a
   * probe's only when its `rag-immune=probe:<issued>:<mac>` verifies; unset, the unsigned mark is
   * trusted as before (development; a warning at start).
   */
  PROBE_MARK_KEY: z.string().min(PROBE_MARK_MIN_KEY_LENGTH, `must be at least ${PROBE_MARK_MIN_KEY_LENGTH} characters`).optional(),
  /** Retired probe mark keys still accepted while their marks age out, comma-separated. */
  PROBE_MARK_PREVIOUS_KEYS: z
    .string()
    .transform((value) => value.split(',').map((key) => key.trim()))
    .pipe(z.array(z.string().min(PROBE_MARK_MIN_KEY_LENGTH, `each retired key must be at least ${PROBE_MARK_MIN_KEY_LENGTH} characters`)))
    .optional(),
  /** Oldest probe mark accepted: exporters batch and Collectors retry, so spans come well after the call. */
  TRACE_INTAKE_PROBE_MARK_MAX_AGE_SECONDS: z.coerce.number().int().positive().default(3600),
  /**
   * Most spans one trace may hold (per index), counted at write time; the excess is refused as OTLP
   * partial success. At most the reader's cap, so a trace the identifier reads is never cut short.
   */
  TRACE_INTAKE_MAX_SPANS_PER_TRACE: z.coerce.number().int().min(1).max(MAX_SPANS_PER_TRACE).default(500),
  /** Spans per second each token may post (token bucket, refilled continuously); over it: 429 with Retry-After. 0: no limit. */
  TRACE_INTAKE_RATE_SPANS_PER_SECOND: z.coerce.number().min(0).default(2000),
  /** The bucket's size: a burst this large passes at once (a Collector flushing its queue). */
  TRACE_INTAKE_RATE_BURST_SPANS: z.coerce.number().int().min(1).default(20_000),
  ELASTICSEARCH_URL: z.string().url().default('http://127.0.0.1:19200'),
  ...ElasticsearchCredentialsEnv,
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

/** The shared token and a per-RAG token must not be the same secret: the RAG would be ambiguous. */
function sharedTokenIssue(config: TraceIntakeEnv): ConfigIssue | null {
  const shared = config.TRACE_INTAKE_API_TOKEN;
  if (shared === undefined || config.TRACE_INTAKE_TOKENS_FILE === undefined) return null;
  return config.TRACE_INTAKE_TOKENS_FILE.some((grant) => grant.token === shared)
    ? { key: 'TRACE_INTAKE_API_TOKEN', message: 'is also a token in TRACE_INTAKE_TOKENS_FILE; use one or the other' }
    : null;
}

export function traceIntakeConfigFromEnv(env: NodeJS.ProcessEnv): TraceIntakeEnv {
  return parseWorkerEnv('trace-intake', TraceIntakeEnv, env, [elasticsearchCredentialsIssue, sharedTokenIssue]);
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
