/**
 * Serves recorded traces (real traces of the reference RAG, from the fixture) under the RAG health
 * contract's GET /traces/{id}, plus the ways a trace lookup fails in production: an unknown id
 * (404), a body that breaks the contract, a lookup that never answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Trace } from '@rag-immune/rag-contract';

export const SLOW_TRACE = 'slow-trace';
export const MALFORMED_TRACE = 'malformed-trace';

export async function serveRecordedTraces(traces: readonly Trace[]): Promise<{ url: string; close(): Promise<void> }> {
  const byId = new Map(traces.map((t) => [t.trace_id, t]));
  const server: Server = createServer((req, res) => {
    const id = decodeURIComponent((req.url ?? '').replace(/^\/traces\//, ''));
    if (id === SLOW_TRACE) return; // never answers: the caller's timeout must fire
    if (id === MALFORMED_TRACE) {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"trace_id": 42, "candidates": "nope"}');
      return;
    }
    const trace = byId.get(id);
    if (!trace) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `unknown trace id ${id}` }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(trace));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
