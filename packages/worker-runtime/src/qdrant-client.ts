import { QdrantClient } from '@qdrant/js-client-rest';
import { isLoopback } from './http-app.ts';

export interface QdrantConnection {
  url: string;
  /** Qdrant's `api-key` (QDRANT_API_KEY); Qdrant Cloud and a secured self-hosted server require one. */
  apiKey?: string | undefined;
  timeoutMs?: number;
}

/**
 * The one way every worker, the reference RAG and the tests open a Qdrant client: the key sent on
 * every request, no version probe at construction (it logs to the console on a mismatch). The
 * client warns once per instance about an API key over plain http; on loopback (the local stack)
 * that is not a risk, so the key goes in as a plain header there and the warning stays for real
 * networks.
 */
export function createQdrantClient(connection: QdrantConnection): QdrantClient {
  const { url, apiKey, timeoutMs } = connection;
  const base = { url, checkCompatibility: false, ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }) };
  if (apiKey === undefined || apiKey === '') return new QdrantClient(base);
  const parsed = new URL(url);
  if (parsed.protocol === 'http:' && isLoopback(parsed.hostname.replace(/^\[|\]$/g, ''))) {
    return new QdrantClient({ ...base, headers: { 'api-key': apiKey } });
  }
  return new QdrantClient({ ...base, apiKey });
}
