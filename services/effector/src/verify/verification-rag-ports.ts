/**
 * With EFFECTOR_RAG_ADAPTER_FILE, a repair is verified by probing the RAG through its declarative
 * adapter (the sentinel's SENTINEL_RAG_ADAPTER_FILE, the same file), so a RAG that does not serve
 * the health contract's POST /query can still be checked after a repair. The repair hooks themselves
 * stay on the contract client. Unset: null, and verification uses the contract clients as before.
 */
import { adapterClientFromFile, signalAvailability, type RagAdapterFile, type RagSignals } from '@rag-immune/rag-adapter';
import type { RagPort } from '@rag-immune/probing';
import type { EffectorConfig } from '../config.ts';

export interface VerificationRagPorts {
  online: RagPort;
  baseline: RagPort;
  signals: RagSignals;
  /** The adapter file itself (its `repair` says what the effector may repair). */
  adapter: RagAdapterFile;
  /**
   * How newer online knowledge is judged without a freshness lookup, as the sentinel judges it (the
   * adapter's `knowledge.newer_than_baseline`): the effector's check that a cause's probes are still
   * anomalous before a repair, and its verification after, must see what the sentinel saw.
   */
  newerKnowledge: 'update' | 'unverified';
}

/** Throws AdapterFileError (naming the key) for a bad adapter file or a missing `${env:…}` variable. */
export function verificationRagPorts(
  config: Pick<
    EffectorConfig,
    'EFFECTOR_RAG_ADAPTER_FILE' | 'EFFECTOR_ONLINE_RAG_URL' | 'EFFECTOR_BASELINE_RAG_URL' | 'EFFECTOR_RAG_TIMEOUT_MS'
  >,
  headers: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>> = process.env,
): VerificationRagPorts | null {
  const file = config.EFFECTOR_RAG_ADAPTER_FILE;
  if (file === undefined) return null;
  const bind = (baseUrl: string) => adapterClientFromFile(file, { baseUrl, headers, env, timeoutMs: config.EFFECTOR_RAG_TIMEOUT_MS });
  const online = bind(config.EFFECTOR_ONLINE_RAG_URL);
  return {
    online,
    baseline: bind(config.EFFECTOR_BASELINE_RAG_URL),
    signals: signalAvailability(online.adapter),
    adapter: online.adapter,
    newerKnowledge: online.adapter.knowledge?.newer_than_baseline ?? 'update',
  };
}
