import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContractViolationError, RagClient, RagHttpError, RagUnreachableError } from '../../src/index.ts';
import { VALID } from './examples.ts';

async function withServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  body: (url: string) => Promise<void>,
): Promise<void> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const reply = (res: ServerResponse, status: number, payload: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
};

test('query sends a validated request and returns the validated response', async () => {
  let received: unknown;
  await withServer(
    (req, res) => {
      let raw = '';
      req.on('data', (part: Buffer) => (raw += part.toString()));
      req.on('end', () => {
        received = JSON.parse(raw);
        reply(res, 200, VALID.QueryResponse?.[0]);
      });
    },
    async (url) => {
      const response = await new RagClient({ baseUrl: url }).query({ query: 'What is the latest version of openssl?' });
      assert.equal(response.trace_id, 't-1');
      assert.deepEqual(received, { query: 'What is the latest version of openssl?' });
    },
  );
});

test('a request that breaks the contract is refused before it is sent', async () => {
  const client = new RagClient({ baseUrl: 'http://127.0.0.1:9' });
  await assert.rejects(
    client.query({ query: '' }),
    (error: unknown) => error instanceof ContractViolationError && error.direction === 'request',
  );
});

test('a response that breaks the contract names the field', async () => {
  await withServer(
    (_req, res) => reply(res, 200, { trace_id: 't' }),
    async (url) => {
      await assert.rejects(new RagClient({ baseUrl: url }).trace('t'), (error: unknown) => {
        assert.ok(error instanceof ContractViolationError);
        assert.equal(error.direction, 'response');
        assert.match(error.message, /created_at/);
        return true;
      });
    },
  );
});

test('non-2xx becomes a RagHttpError with the status and the server message', async () => {
  await withServer(
    (_req, res) => reply(res, 404, { error: 'unknown trace id: x' }),
    async (url) => {
      await assert.rejects(new RagClient({ baseUrl: url }).trace('x'), (error: unknown) => {
        assert.ok(error instanceof RagHttpError);
        assert.equal(error.status, 404);
        assert.match(error.message, /unknown trace id/);
        return true;
      });
    },
  );
});

test('a slow RAG times out and an absent one is unreachable', async () => {
  await withServer(
    () => undefined,
    async (url) => {
      await assert.rejects(
        new RagClient({ baseUrl: url, timeoutMs: 100 }).health(),
        (error: unknown) => error instanceof RagUnreachableError && error.reason === 'timeout',
      );
    },
  );
  await assert.rejects(
    new RagClient({ baseUrl: 'http://127.0.0.1:9' }).health(),
    (error: unknown) => error instanceof RagUnreachableError && error.reason === 'network',
  );
});
