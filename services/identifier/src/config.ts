import { z } from 'zod';
import { ElasticsearchCredentialsEnv, elasticsearchCredentialsIssue, parseWorkerEnv } from '@rag-immune/worker-runtime';

export const IDENTIFIER_VERSION = '0.1.0';

const seconds = (fallback: number) => z.coerce.number().positive().default(fallback);

const headersJson = z
  .string()
  .optional()
  .transform((text, ctx) => {
    if (text === undefined || text === '') return {};
    try {
      const parsed = z.record(z.string()).parse(JSON.parse(text));
      return parsed;
    } catch {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a JSON object of header names to string values' });
      return z.NEVER;
    }
  });

/** The identifier's environment (shared bus settings are read by the bus library). */
export const IdentifierEnv = z.object({
  IDENTIFIER_ONLINE_RAG_URL: z.string().url(),
  IDENTIFIER_BASELINE_RAG_URL: z.string().url(),
  /** Extra headers for trace calls (e.g. the RAG's bearer token), JSON. */
  IDENTIFIER_RAG_HEADERS: headersJson,
  IDENTIFIER_TRACE_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  ELASTICSEARCH_URL: z.string().url().default('http://127.0.0.1:19200'),
  ...ElasticsearchCredentialsEnv,
  ES_INDEX_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lowercase letters, digits, - or _')
    .default('rag-immune'),
  IDENTIFIER_GROUP_ID: z.string().min(1).default('rag-immune-identifier'),
  IDENTIFIER_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * The evidence ledger's key (from a Secret): records are HMAC-SHA256-keyed and chain heads signed
   * with it, so whoever can write the ledger's indices without it cannot forge a chain that verifies.
   * Unset: unkeyed SHA-256 (development), tamper-evident only; verify says `keyed: false`.
   */
  IDENTIFIER_LEDGER_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Rotation: the keys IDENTIFIER_LEDGER_KEY replaced, comma-separated, newest first. Chains written
   * under them still verify (nothing is re-hashed); new records and heads use IDENTIFIER_LEDGER_KEY
   * only, and a record under a retired key after one under a newer key fails verification.
   */
  IDENTIFIER_LEDGER_PREVIOUS_KEYS: z
    .string()
    .transform((value) => value.split(',').map((key) => key.trim()))
    .pipe(z.array(z.string().min(32, 'each retired key must be at least 32 characters (comma-separated)')))
    .optional(),
  /**
   * When each retired key stopped signing, comma-separated ISO times aligned with
   * IDENTIFIER_LEDGER_PREVIOUS_KEYS (the rotation's time for each): a record under a retired key that
   * happened after its cut-off fails verification (whoever kept an old key cannot add recent evidence).
   * Required beside retired keys with BUS_PROFILE=production.
   */
  IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT: z
    .string()
    .transform((value) => value.split(',').map((time) => time.trim()))
    .pipe(z.array(z.string().datetime({ offset: true, message: 'each cut-off must be an ISO 8601 time (comma-separated)' })))
    .transform((times) => times.map((time) => Date.parse(time)))
    .optional(),
  IDENTIFIER_HOST: z.string().min(1).default('127.0.0.1'),
  IDENTIFIER_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
  /** An anomaly this long after an incident's last one opens a new incident. */
  IDENTIFIER_GROUP_WINDOW_SECONDS: seconds(3600),
  /** Clean results every probe of an incident needs before it closes. */
  IDENTIFIER_CLEAN_ROUNDS_TO_CLOSE: z.coerce.number().int().min(1).default(2),
  /** With fewer analysed results than IDENTIFIER_MIN_RESULTS, wait this long for more before reporting. */
  IDENTIFIER_MAX_WAIT_SECONDS: seconds(900),
  IDENTIFIER_MIN_RESULTS: z.coerce.number().int().min(1).default(2),
  IDENTIFIER_ACCEPT_CONFIDENCE: z.coerce.number().min(0).max(1).default(0.7),
  /**
   * Where traces are read: auto (each RAG's GET /capabilities `traces` says; endpoint when it says
   * nothing), endpoint (GET /traces/{id}) or intake (the RAG's OTLP spans in the trace intake).
   */
  IDENTIFIER_TRACE_SOURCE: z.enum(['auto', 'endpoint', 'intake']).default('auto'),
  /** ES_INDEX_PREFIX of the trace intake whose spans are read (default: this worker's ES_INDEX_PREFIX). */
  IDENTIFIER_INTAKE_INDEX_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'must be lowercase letters, digits, - or _')
    .optional(),
  /** How long to wait for a probe call's spans to reach the intake (exporters batch, default every 5 s). */
  IDENTIFIER_INTAKE_WAIT_MS: z.coerce.number().int().positive().default(15_000),
  /** A fitted calibration file (scripts/fit-calibration.ts); default: the one shipped in src/verdict. */
  IDENTIFIER_CALIBRATION_FILE: z.string().optional(),
  /**
   * The index diff (evidence for the data causes): the RAG's Qdrant and the two collections (or
   * aliases) the online and the baseline instance read. Unset IDENTIFIER_QDRANT_URL: no index diff.
   */
  IDENTIFIER_QDRANT_URL: z.string().url().optional(),
  IDENTIFIER_QDRANT_API_KEY: z.string().min(1).optional(),
  IDENTIFIER_ONLINE_COLLECTION: z.string().min(1).optional(),
  IDENTIFIER_BASELINE_COLLECTION: z.string().min(1).optional(),
  /** Where the chunk fields sit in a point's payload: `top` (the reference RAG) or `metadata` (@langchain/qdrant, `content` text). */
  IDENTIFIER_INDEX_PAYLOAD_LAYOUT: z.enum(['top', 'metadata']).default('top'),
  /** The baseline's "as of": online versions valid from after it are the knowledge moving on, not a change. */
  IDENTIFIER_BASELINE_PINNED_AS_OF: z.string().datetime({ offset: true }).optional(),
});
export type IdentifierEnv = z.infer<typeof IdentifierEnv>;

export function identifierConfigFromEnv(env: NodeJS.ProcessEnv): IdentifierEnv {
  return parseWorkerEnv('identifier', IdentifierEnv, env, [
    elasticsearchCredentialsIssue,
    ledgerKeysIssue,
    retiredKeyCutoffIssue(env.BUS_PROFILE === 'production'),
    indexDiffIssue,
  ]);
}

/** The index diff needs both collections beside the Qdrant URL: half a setting is refused, not ignored. */
function indexDiffIssue(config: IdentifierEnv): { key: string; message: string } | null {
  if (config.IDENTIFIER_QDRANT_URL === undefined) return null;
  for (const key of ['IDENTIFIER_ONLINE_COLLECTION', 'IDENTIFIER_BASELINE_COLLECTION'] as const)
    if (config[key] === undefined) return { key, message: 'required with IDENTIFIER_QDRANT_URL (the index diff reads both collections)' };
  return null;
}

/** One cut-off per retired key, in the same order; production gives every retired key one. */
function retiredKeyCutoffIssue(production: boolean): (config: IdentifierEnv) => { key: string; message: string } | null {
  return (config) => {
    const keys = config.IDENTIFIER_LEDGER_PREVIOUS_KEYS ?? [];
    const cutoffs = config.IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT;
    if (cutoffs === undefined)
      return production && keys.length > 0
        ? {
            key: 'IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT',
            message:
              'is required beside IDENTIFIER_LEDGER_PREVIOUS_KEYS with BUS_PROFILE=production (when each retired key stopped signing)',
          }
        : null;
    if (cutoffs.length !== keys.length)
      return {
        key: 'IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT',
        message: `names ${cutoffs.length} cut-off(s) for ${keys.length} retired key(s): one per key, in the same order`,
      };
    return null;
  };
}

/** Retired ledger keys only make sense beside the key that replaced them, and never repeat it. */
function ledgerKeysIssue(config: IdentifierEnv): { key: string; message: string } | null {
  const previous = config.IDENTIFIER_LEDGER_PREVIOUS_KEYS;
  if (previous === undefined || previous.length === 0) return null;
  if (config.IDENTIFIER_LEDGER_KEY === undefined)
    return { key: 'IDENTIFIER_LEDGER_PREVIOUS_KEYS', message: 'set IDENTIFIER_LEDGER_KEY (the new key) beside the retired keys' };
  if (previous.includes(config.IDENTIFIER_LEDGER_KEY))
    return { key: 'IDENTIFIER_LEDGER_PREVIOUS_KEYS', message: 'must not include IDENTIFIER_LEDGER_KEY itself' };
  return null;
}
