import { DEFAULT_MAX_RESPONSE_BYTES, readTextCapped } from './read-capped.ts';

/** What the admin API answers to an injection or an undo. */
export interface FaultAdminResponse {
  fault?: { affected_knowledge_ids: string[] | null };
}

/**
 * Injects (POST) or undoes (DELETE) a fault through a RAG's fault admin API (the reference RAG's); anything but a 200
 * is an error carrying the server's message. For tests, drills and the demo.
 */
export async function callFaultAdmin(
  baseUrl: string,
  method: 'POST' | 'DELETE',
  kind: string,
  body: unknown = {},
  /** The instance's RAG_API_TOKEN, when it has one. */
  token?: string,
): Promise<FaultAdminResponse> {
  const send = () =>
    fetch(`${baseUrl}/admin/faults/${kind}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
    });
  // A pooled keep-alive socket the server closed while idle resets on reuse, before the request is
  // read: send it once more. Should the first have landed after all, the second answers 409, it
  // does not inject twice.
  const response = await send().catch((error: unknown) => {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error;
    return send();
  });
  // Capped like every read from a RAG: the admin API answers small documents.
  const text = await readTextCapped(response, DEFAULT_MAX_RESPONSE_BYTES, `${baseUrl}/admin/faults/${kind}`);
  if (response.status !== 200) throw new Error(`${method} /admin/faults/${kind}: HTTP ${response.status}: ${text.slice(0, 2000)}`);
  return JSON.parse(text) as FaultAdminResponse;
}
