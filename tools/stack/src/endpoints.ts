import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { StackConfig } from './config.ts';
import { repoRoot } from './repo-root.ts';
import { qdrantApiKey, qdrantSnapshotsDir } from './services/qdrant.ts';

/** Where the running stack's servers are, for workers and integration tests. */
export interface StackEndpoints {
  kafkaBrokers: string[];
  /** Full Confluent-compatible base URL, e.g. http://127.0.0.1:18081/apis/ccompat/v7 */
  schemaRegistryUrl: string;
  elasticsearchUrl: string;
  /** The stack's Qdrant, or an existing one at `QDRANT_URL`. */
  qdrantUrl: string;
  /** The key every Qdrant client sends: `QDRANT_API_KEY`, else the one the stack generated. */
  qdrantApiKey: string | undefined;
  /**
   * The real server's snapshots directory as that server sees it (a recover by `file://` URL must
   * point inside it); undefined for an existing Qdrant elsewhere, whose snapshots are recovered by upload.
   */
  qdrantSnapshotsPath: string | undefined;
  prometheusUrl: string;
}

/** Apicurio serves its Confluent-compatible API under this path. */
export const CCOMPAT_PATH = '/apis/ccompat/v7';

export function stackEndpoints(config: StackConfig, root: string = repoRoot(), env: NodeJS.ProcessEnv = process.env): StackEndpoints {
  const { host } = config;
  const qdrantDir = join(root, '.stack', 'qdrant');
  const external = env.QDRANT_URL?.trim();
  return {
    kafkaBrokers: [`${host}:${config.kafka.port}`],
    schemaRegistryUrl: `http://${host}:${config.schemaRegistry.port}${CCOMPAT_PATH}`,
    elasticsearchUrl: `http://${host}:${config.elasticsearch.port}`,
    qdrantUrl: external || `http://${host}:${config.qdrant.port}`,
    qdrantApiKey: qdrantApiKey(qdrantDir, env),
    // Only the real server takes file:// locations; the stand-in and remote servers recover by upload.
    qdrantSnapshotsPath: external
      ? env.QDRANT_SNAPSHOTS_PATH?.trim() || undefined
      : existsSync(join(qdrantDir, 'qdrant.pid.json'))
        ? qdrantSnapshotsDir(qdrantDir)
        : undefined,
    prometheusUrl: `http://${host}:${config.prometheus.port}`,
  };
}

/** The environment a spawned worker or RAG needs to reach the stack's Qdrant (the key only when there is one). */
export function qdrantEnv(endpoints: Pick<StackEndpoints, 'qdrantUrl' | 'qdrantApiKey'>): Record<string, string> {
  return { QDRANT_URL: endpoints.qdrantUrl, ...(endpoints.qdrantApiKey ? { QDRANT_API_KEY: endpoints.qdrantApiKey } : {}) };
}
