import { z } from 'zod';
import { isLoopback } from '@rag-immune/worker-runtime';

const isoUtc = z.string().datetime({ message: 'must be an RFC 3339 UTC timestamp like 2024-06-01T00:00:00Z' });

const ConfigSchema = z
  .object({
    INSTANCE: z.enum(['online', 'baseline']).default('online'),
    PORT: z.coerce.number().int().min(0).max(65535).default(18400),
    HOST: z.string().default('127.0.0.1'),
    QDRANT_URL: z.string().url(),
    /** Qdrant's api-key (a secured server, Qdrant Cloud). */
    QDRANT_API_KEY: z.string().min(1).optional(),
    /** Default: reference-rag-<instance>. */
    QDRANT_COLLECTION: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/)
      .optional(),
    /**
     * Query QDRANT_COLLECTION as an alias over a physical collection (default), so that a reindex can
     * be built beside it and switched atomically; `false` uses a plain collection (repairs snapshot it).
     */
    QDRANT_ALIAS: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    /** Baseline only, required there: the time its knowledge is frozen at and its answers are as of. */
    PINNED_AS_OF: isoUtc.optional(),
    /** Online only: the knowledge time of the first ingest (default now); a refresh moves it to now. */
    KNOWLEDGE_PUBLISHED_BY: isoUtc.optional(),
    RERANKER_VERSION: z.string().default('v2.1'),
    RERANKER_DIR: z.string().optional(),
    /**
     * Where the Debian knowledge comes from: `corpus` (default), the fixed snapshot committed in
     * @rag-immune/debian-knowledge, the same on every machine; `host`, this machine's own packages.
     */
    KNOWLEDGE_FROM: z.enum(['corpus', 'host']).default('corpus'),
    /** Use only this many Debian source packages (tests, benches); default all of the knowledge. */
    KNOWLEDGE_PACKAGES: z.coerce.number().int().positive().optional(),
    SOURCE_TRUST: z
      .string()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined) return undefined;
        try {
          return z.record(z.number().min(0).max(1)).parse(JSON.parse(raw));
        } catch {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be JSON like {"debian-changelog":0.9}' });
          return z.NEVER;
        }
      }),
    RETRIEVAL_CANDIDATES: z.coerce.number().int().min(1).max(200).default(30),
    DEFAULT_TOP_K: z.coerce.number().int().min(1).max(50).default(5),
    TRACE_CAPACITY: z.coerce.number().int().min(1).default(5000),
    FAULT_JOURNAL_PATH: z.string().optional(),
    QUERY_LOG_PATH: z.string().optional(),
    /** Most distinct queries the query log keeps (least recently seen dropped first). */
    QUERY_LOG_MAX_ENTRIES: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
    /** Hours after which a query not seen again leaves the query log. */
    QUERY_LOG_MAX_AGE_HOURS: z.coerce.number().positive().max(8760).default(168),
    /** Re-sync the index with the knowledge at start (idempotent: unchanged chunks are skipped). */
    INGEST_ON_START: z
      .enum(['true', 'false'])
      .default('true')
      .transform((value) => value === 'true'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * Bearer token for the mutating and revealing routes (/repair/*, /traces/*, /admin/*). Without it the
     * service stays open on loopback only (development) and refuses a non-loopback HOST.
     */
    RAG_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    /** The fault admin API (POST /admin/faults/*) works only when explicitly enabled: drills, tests, the demo. */
    RAG_FAULT_INJECTION: z.enum(['enabled', 'disabled']).default('disabled'),
    /** GET /traces/{id}: disabled leaves the RAG's OTLP spans (below) as its only traces. */
    RAG_TRACES_ENDPOINT: z.enum(['enabled', 'disabled']).default('enabled'),
    /** Where to export each query's OpenInference spans (OTLP/HTTP protobuf), e.g. the trace intake's /v1/traces. */
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
    /** `Authorization=Bearer …` for the intake, in OTLP's `key=value,…` syntax. */
    OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
    /** The span batch's export delay (the SDK's default 5 s; tests shorten it). */
    OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).default(5000),
  })
  .superRefine((config, ctx) => {
    if (config.INSTANCE === 'baseline' && config.PINNED_AS_OF === undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['PINNED_AS_OF'], message: 'is required when INSTANCE=baseline' });
    }
    if (config.RAG_API_TOKEN === undefined && !isLoopback(config.HOST)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['RAG_API_TOKEN'],
        message: `is required to bind HOST=${config.HOST} (beyond loopback)`,
      });
    }
    if (config.RAG_TRACES_ENDPOINT === 'disabled' && config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
        message: 'is required when RAG_TRACES_ENDPOINT=disabled (otherwise the RAG has no traces at all)',
      });
    }
    if (config.INSTANCE === 'online' && config.PINNED_AS_OF !== undefined) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['PINNED_AS_OF'], message: 'is only for INSTANCE=baseline' });
    }
  });

export type RagConfig = z.output<typeof ConfigSchema>;

export class InvalidConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidConfigError';
  }
}

/** Reads the service configuration from the environment, refusing a bad value by naming its key. */
export function ragConfigFromEnv(env: NodeJS.ProcessEnv = process.env): RagConfig {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(config)'} ${issue.message}`).join('; ');
    throw new InvalidConfigError(`invalid reference-rag configuration: ${detail}`);
  }
  return parsed.data;
}
