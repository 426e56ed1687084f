import { RagClient } from './client.ts';

/**
 * A RagClient whose every request carries the configured headers (a User-Agent the RAG's WAF
 * accepts, an API key...). The contract client sets only content-type itself.
 */
export function ragClientWithHeaders(
  baseUrl: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
  /** Largest response body read (RagClient's default, 2 MiB, when absent). */
  maxResponseBytes?: number,
): RagClient {
  const withHeaders: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...headers, ...(init?.headers as Record<string, string> | undefined) } });
  return new RagClient({ baseUrl, timeoutMs, fetch: withHeaders, ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }) });
}
