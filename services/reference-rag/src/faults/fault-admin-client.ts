/** What the admin API answers to an injection or an undo. */
export interface FaultAdminResponse {
  fault?: { affected_knowledge_ids: string[] | null };
}

/**
 * Injects (POST) or undoes (DELETE) a fault through a reference RAG's admin API; anything but a 200
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
  const response = await fetch(`${baseUrl}/admin/faults/${kind}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });
  if (response.status !== 200) throw new Error(`${method} /admin/faults/${kind}: HTTP ${response.status}: ${await response.text()}`);
  return (await response.json()) as FaultAdminResponse;
}
