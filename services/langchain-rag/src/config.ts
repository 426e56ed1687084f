/**
 * The LangChain RAG's configuration, from the environment, validated by zod: a bad value (or an
 * unknown LLM_* key, a typo that would silently leave a default in force) stops start-up naming the key.
 */
import { z } from 'zod';
import { isLoopback, parseWorkerEnv, type ConfigIssue } from '@rag-immune/worker-runtime';
import { PROMPT_VERSIONS } from './prompt.ts';

const isoUtc = z.string().datetime({ message: 'must be an RFC 3339 UTC timestamp like 2024-06-01T00:00:00Z' });
const flag = (fallback: 'true' | 'false') =>
  z
    .enum(['true', 'false'])
    .default(fallback)
    .transform((v) => v === 'true');

const Settings = z.object({
  INSTANCE: z.enum(['online', 'baseline']).default('online'),
  PORT: z.coerce.number().int().min(0).max(65535).default(18450),
  HOST: z.string().default('127.0.0.1'),
  QDRANT_URL: z.string().url(),
  QDRANT_API_KEY: z.string().min(1).optional(),
  /** The alias the retriever reads (reindexes build a new collection behind it); default langchain-rag-<instance>. */
  QDRANT_ALIAS: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/, 'may hold letters, digits, _ . - only')
    .optional(),
  /** Baseline only, required there: the time its knowledge is frozen at and its answers are as of. */
  PINNED_AS_OF: isoUtc.optional(),
  /**
   * Where the Debian knowledge comes from: `corpus` (default), the fixed snapshot committed in
   * @rag-immune/debian-knowledge, the same on every machine; `host`, this machine's own packages.
   */
  KNOWLEDGE_FROM: z.enum(['corpus', 'host']).default('corpus'),
  /** Use only this many Debian source packages (tests, benches); default all of the knowledge. */
  KNOWLEDGE_PACKAGES: z.coerce.number().int().positive().optional(),
  /**
   * Build the index behind the alias at start (a new collection, from the active feeds); false: serve
   * the alias's collection, re-synced from the active feeds where its versions differ (online only).
   */
  INGEST_ON_START: flag('true'),
  /**
   * Online only, an operator's stale deploy: the primary feed of FEED_PRIMARY_STALE_SOURCE serves the
   * knowledge only as published by this time (the backup feed stays current). Unset: a current primary.
   */
  FEED_PRIMARY_STALE_AS_OF: isoUtc.optional(),
  /** The source whose primary feed is stale (with FEED_PRIMARY_STALE_AS_OF). */
  FEED_PRIMARY_STALE_SOURCE: z.enum(['debian-changelog', 'apt-metadata']).default('debian-changelog'),
  /** Comma-separated knowledge ids the stale primary is stale for; unset: all of the source's. */
  FEED_PRIMARY_STALE_IDS: z
    .string()
    .optional()
    .transform((v) =>
      v === undefined
        ? undefined
        : v
            .split(',')
            .map((id) => id.trim())
            .filter((id) => id.length > 0),
    ),
  RETRIEVAL_CANDIDATES: z.coerce.number().int().min(1).max(200).default(30),
  /** Chunks stuffed into the prompt: a 270M model with a 2k-token context wants few. */
  DEFAULT_TOP_K: z.coerce.number().int().min(1).max(10).default(3),
  /** The GGUF model file (scripts/install-gemma.sh prints its path). */
  LLM_MODEL_PATH: z.string().min(1),
  /** Sampling temperature: > 0, this RAG samples as production RAGs do. */
  LLM_TEMPERATURE: z.coerce.number().gt(0, 'must be > 0: this RAG samples').max(2).default(0.7),
  LLM_TOP_P: z.coerce.number().gt(0).max(1).default(0.95),
  LLM_MAX_TOKENS: z.coerce.number().int().min(1).max(512).default(48),
  /** First seed; each call takes the next one, so no two calls share a seed. Default: random. */
  LLM_SEED: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
  /**
   * The prompt the generator starts with (its build is `<model>+<prompt>`; the generator pin can
   * name any other of PROMPTS). A deploy picks it; default the few-shot prompt.
   */
  LLM_PROMPT_VERSION: z.enum(PROMPT_VERSIONS).default('few-shot-v1'),
  LLM_CONTEXT_SIZE: z.coerce.number().int().min(256).max(32768).default(2048),
  /**
   * CPU threads for generation. 1 by default: llama.cpp's threads spin-wait for each other, and on a
   * shared 2-core machine 2 threads took ~130 s for 40 tokens where 1 thread took ~1.5 s.
   */
  LLM_THREADS: z.coerce.number().int().min(1).max(256).default(1),
  /** false: CPU only (the prebuilt CPU binaries); auto: a GPU node-llama-cpp finds (CUDA, Vulkan). */
  LLM_GPU: z.enum(['false', 'auto']).default('false'),
  /** Bearer token for /repair/*; without it the service stays on loopback. */
  RAG_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Where the spans go (OTLP/HTTP protobuf), e.g. RAG Immune's trace intake /v1/traces. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  /** `Authorization=Bearer …` for the intake, in OTLP's `key=value,…` syntax (read by the exporter itself). */
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).default(5000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type LangchainRagConfig = z.output<typeof Settings>;

const KNOWN_LLM_KEYS = new Set(Object.keys(Settings.shape).filter((k) => k.startsWith('LLM_')));

/** The environment keeps every other variable, so that an unknown LLM_* key can be named. */
const Environment = Settings.passthrough();

const checks: ((config: z.output<typeof Environment>) => ConfigIssue | null)[] = [
  (c) =>
    c.INSTANCE === 'baseline' && c.PINNED_AS_OF === undefined
      ? { key: 'PINNED_AS_OF', message: 'is required when INSTANCE=baseline' }
      : null,
  (c) =>
    c.INSTANCE === 'online' && c.PINNED_AS_OF !== undefined ? { key: 'PINNED_AS_OF', message: 'is only for INSTANCE=baseline' } : null,
  (c) =>
    c.INSTANCE === 'baseline' && c.FEED_PRIMARY_STALE_AS_OF !== undefined
      ? { key: 'FEED_PRIMARY_STALE_AS_OF', message: 'is only for INSTANCE=online (the baseline is frozen at its pin)' }
      : null,
  (c) =>
    c.FEED_PRIMARY_STALE_IDS !== undefined && c.FEED_PRIMARY_STALE_IDS.length === 0
      ? { key: 'FEED_PRIMARY_STALE_IDS', message: 'names no knowledge id (unset it for all of the source)' }
      : null,
  (c) =>
    c.RAG_API_TOKEN === undefined && !isLoopback(c.HOST)
      ? { key: 'RAG_API_TOKEN', message: `is required to bind HOST=${c.HOST} (beyond loopback)` }
      : null,
  (c) => {
    const unknown = Object.keys(c).find((key) => key.startsWith('LLM_') && !KNOWN_LLM_KEYS.has(key));
    return unknown === undefined ? null : { key: unknown, message: `is not a setting (known: ${[...KNOWN_LLM_KEYS].join(', ')})` };
  },
];

/** Reads the configuration; throws WorkerConfigError naming every bad key (main exits 78). */
export function langchainRagConfigFromEnv(env: NodeJS.ProcessEnv = process.env): LangchainRagConfig {
  parseWorkerEnv('langchain-rag', Environment, env, checks);
  return Settings.parse(env); // the same values, without the rest of the environment
}
