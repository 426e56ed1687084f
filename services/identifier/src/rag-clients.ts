import { RagClient } from '@rag-immune/rag-contract';

/** A RagClient whose every request carries the configured headers (e.g. the RAG's bearer token for /traces). */
export function ragClientWithHeaders(baseUrl: string, headers: Readonly<Record<string, string>>, timeoutMs: number): RagClient {
  const withHeaders: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...headers, ...(init?.headers as Record<string, string> | undefined) } });
  return new RagClient({ baseUrl, timeoutMs, fetch: withHeaders });
}
