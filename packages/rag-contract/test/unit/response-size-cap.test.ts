import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ContractViolationError,
  DEFAULT_MAX_RESPONSE_BYTES,
  RagClient,
  RagResponseTooLargeError,
  ResponseTooLargeError,
  callFaultAdmin,
  ragClientWithHeaders,
} from '../../src/index.ts';
import { VALID } from './examples.ts';

async function withServer(handler: (req: IncomingMessage, res: ServerResponse) => void, body: (url: string) => Promise<void>) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/**
 * A RAG streaming a JSON body without Content-Length, 64 KiB at a time, until the client goes away
 * (or 64 MiB, so a client that never stops cannot hang the test). Reports how much it wrote.
 */
function endlessBody(sent: { bytes: number }) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const part = Buffer.alloc(64 * 1024, 'a');
    res.write('{"status":"ok","instance":"');
    let closed = false;
    res.on('close', () => (closed = true));
    const pump = () => {
      while (!closed && sent.bytes < 64 * 1024 * 1024) {
        sent.bytes += part.length;
        if (!res.write(part)) return void res.once('drain', pump);
      }
      if (!closed) res.end('"}');
    };
    pump();
  };
}

test('a huge streamed body aborts the read with a typed error past the cap', async () => {
  const sent = { bytes: 0 };
  await withServer(endlessBody(sent), async (url) => {
    await assert.rejects(new RagClient({ baseUrl: url }).health(), (error: unknown) => {
      assert.ok(error instanceof RagResponseTooLargeError, String(error));
      // A contract violation, so probes classify it as an invalid response.
      assert.ok(error instanceof ContractViolationError);
      assert.equal(error.direction, 'response');
      assert.equal(error.limitBytes, DEFAULT_MAX_RESPONSE_BYTES);
      assert.match(error.message, /health: response violates .* exceeds 2097152 bytes/);
      return true;
    });
  });
  assert.ok(sent.bytes < 64 * 1024 * 1024, `the client stopped reading (the server wrote ${sent.bytes} bytes)`);
});

test('the cap is configurable and a declared Content-Length over it is refused before reading', async () => {
  const body = JSON.stringify(VALID.QueryResponse?.[0]);
  await withServer(
    (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body),
    async (url) => {
      await assert.rejects(
        new RagClient({ baseUrl: url, maxResponseBytes: 100 }).query({ query: 'q' }),
        (error: unknown) => error instanceof RagResponseTooLargeError && error.limitBytes === 100,
      );
      await assert.rejects(
        ragClientWithHeaders(url, {}, 5000, 100).query({ query: 'q' }),
        (error: unknown) => error instanceof RagResponseTooLargeError,
      );
      // Under the cap the same response reads as before.
      const answer = await new RagClient({ baseUrl: url, maxResponseBytes: Buffer.byteLength(body) }).query({ query: 'q' });
      assert.equal(answer.trace_id, 't-1');
    },
  );
});

test('the fault admin client caps its read too', async () => {
  const sent = { bytes: 0 };
  await withServer(endlessBody(sent), async (url) => {
    await assert.rejects(callFaultAdmin(url, 'POST', 'parser-bug'), (error: unknown) => error instanceof ResponseTooLargeError);
  });
  assert.ok(sent.bytes < 64 * 1024 * 1024);
});
