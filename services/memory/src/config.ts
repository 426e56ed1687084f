import { z } from 'zod';
import { ElasticsearchCredentialsEnv, EsIndexPrefixEnv, elasticsearchCredentialsIssue, parseWorkerEnv } from '@rag-immune/worker-runtime';
import { fileURLToPath } from 'node:url';

export const MEMORY_VERSION = '0.1.0';
export const DEFAULT_RULES_FILE = fileURLToPath(new URL('../rules/rules.v1.json', import.meta.url));

const number = (min: number, max: number) => z.coerce.number().finite().min(min).max(max);

/** The memory worker's environment; a bad value stops it naming the variable (exit 78). */
export const MemoryConfigSchema = z.object({
  MEMORY_HOST: z.string().min(1).default('127.0.0.1'),
  MEMORY_PORT: z.coerce.number().int().min(0).max(65_535).default(9467),
  MEMORY_API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  MEMORY_GROUP_ID: z.string().min(1).default('rag-immune-memory'),
  ELASTICSEARCH_URL: z.string().url().default('http://127.0.0.1:19200'),
  ...ElasticsearchCredentialsEnv,
  QDRANT_URL: z.string().url().default('http://127.0.0.1:16333'),
  /** Qdrant's api-key (a secured server, Qdrant Cloud). */
  QDRANT_API_KEY: z.string().min(1).optional(),
  ...EsIndexPrefixEnv,
  /** Environment stamped on cases built from events (the reports carry none) and the default filter. */
  MEMORY_ENVIRONMENT: z.string().min(1).max(100).default('default'),
  /** Seed 003 §3.6: below this similarity memory answers from its expert rules. */
  MEMORY_SIMILARITY_THRESHOLD: number(0, 1).default(0.6),
  MEMORY_RULES_FILE: z.string().min(1).default(DEFAULT_RULES_FILE),
  /** Half-life of a case's weight in days (recency in ranking, decay in forgetting). */
  MEMORY_HALF_LIFE_DAYS: number(0.01, 36_500).default(30),
  /** A case whose decayed importance falls below this is archived. */
  MEMORY_ARCHIVE_BELOW: number(0, 1).default(0.05),
  MEMORY_FORGET_INTERVAL_SECONDS: number(0, 86_400).default(300),
  /** Per-call budget for Qdrant and Elasticsearch on the /recommend path. */
  MEMORY_STORE_TIMEOUT_MS: z.coerce.number().int().min(10).max(60_000).default(800),
  /** A new consumer group reads the retained reports and actions from the start (default true). */
  MEMORY_FROM_BEGINNING: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true'),
  MEMORY_CANDIDATES: z.coerce.number().int().min(1).max(500).default(50),
});
export type MemoryConfig = z.infer<typeof MemoryConfigSchema>;

export function memoryConfigFromEnv(env: NodeJS.ProcessEnv): MemoryConfig {
  return parseWorkerEnv('memory', MemoryConfigSchema, env, [elasticsearchCredentialsIssue]);
}

/** Index and collection names, all under the prefix so tests and deployments isolate. */
export function storeNames(prefix: string): { cases: string; audit: string; collection: string } {
  return { cases: `${prefix}-healing-cases`, audit: `${prefix}-memory-retrieval-audit`, collection: `${prefix}-healing-cases` };
}
