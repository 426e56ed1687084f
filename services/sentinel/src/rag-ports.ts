/**
 * The sentinel's two RAG ports: the health-contract client by default, or, with
 * SENTINEL_RAG_ADAPTER_FILE, one declarative adapter bound to the online and the baseline URL (the
 * baseline is a second instance of the same RAG). Either way it says which signals the RAG's
 * answers can feed, for the start-up log and GET /capabilities.
 */
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import { adapterClientFromFile, contractSignals, signalAvailability, type RagSignals } from '@rag-immune/rag-adapter';
import type { RagPort } from '@rag-immune/probing';
import type { SentinelEnv } from './config.ts';

export interface SentinelRagPorts {
  online: RagPort;
  baseline: RagPort;
  signals: RagSignals;
  /**
   * How online knowledge newer than the baseline is judged without a freshness lookup: the adapter's
   * `knowledge.newer_than_baseline` (`update` for the contract, which may serve the lookup itself).
   */
  newerKnowledge: 'update' | 'unverified';
  /** What may be logged of how the RAG is asked: URLs and header names, never a secret. */
  described: { mode: 'contract' | 'adapter'; adapter?: string; online: string; baseline: string; headers?: string[] };
}

type RagConfig = Pick<
  SentinelEnv,
  'SENTINEL_ONLINE_RAG_URL' | 'SENTINEL_BASELINE_RAG_URL' | 'SENTINEL_CALL_TIMEOUT_MS' | 'SENTINEL_RAG_ADAPTER_FILE'
>;

/** Throws AdapterFileError (naming the key) for a bad adapter file or a missing `${env:…}` variable. */
export function sentinelRagPorts(
  config: RagConfig,
  headers: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): SentinelRagPorts {
  const file = config.SENTINEL_RAG_ADAPTER_FILE;
  if (file === undefined) {
    return {
      online: ragClientWithHeaders(config.SENTINEL_ONLINE_RAG_URL, headers, config.SENTINEL_CALL_TIMEOUT_MS),
      baseline: ragClientWithHeaders(config.SENTINEL_BASELINE_RAG_URL, headers, config.SENTINEL_CALL_TIMEOUT_MS),
      signals: contractSignals(),
      newerKnowledge: 'update',
      described: { mode: 'contract', online: config.SENTINEL_ONLINE_RAG_URL, baseline: config.SENTINEL_BASELINE_RAG_URL },
    };
  }
  const bind = (baseUrl: string) => adapterClientFromFile(file, { baseUrl, headers, env, timeoutMs: config.SENTINEL_CALL_TIMEOUT_MS });
  const online = bind(config.SENTINEL_ONLINE_RAG_URL);
  const baseline = bind(config.SENTINEL_BASELINE_RAG_URL);
  const described = online.describe();
  return {
    online,
    baseline,
    signals: signalAvailability(online.adapter),
    newerKnowledge: online.adapter.knowledge?.newer_than_baseline ?? 'update',
    described: {
      mode: 'adapter',
      adapter: described.adapter,
      online: `${described.method} ${described.url}`,
      baseline: `${baseline.describe().method} ${baseline.describe().url}`,
      headers: described.headers,
    },
  };
}
