/**
 * The Qdrant client policy (createQdrantClient) against a server that drops a pooled connection as
 * the client reuses it (issue 36: `getCollections` failed with `fetch failed`, cause `other side
 * closed`, after a keep-alive connection was closed by the server as idle).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { QdrantClient } from '@qdrant/js-client-rest';
import {
  createQdrantClient,
  isResendableFailure,
  isSocketError,
  mayResend,
  qdrantOperationClass,
  QDRANT_REQUEST_ATTEMPTS,
} from '../../src/index.ts';
import { IdleClosingServer } from './qdrant-idle-close.ts';

/** A logger that keeps what the policy warns. */
function recordingLogger() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  return { lines, warn: (fields: Record<string, unknown>, message: string) => void lines.push({ fields, message }) };
}

/**
 * Lets the pool take the answered connection back (undici frees it a turn after the body is read),
 * so the next call reuses it, as a call seconds later does.
 */
const pooled = () => new Promise<void>((resolve) => setImmediate(resolve));

const points = [{ id: 1, vector: [0.1, 0.2, 0.3, 0.4], payload: { package: 'bash' } }];

test('the plain REST client fails when the server drops the connection it reuses: the fault the policy must absorb', async () => {
  const server = await IdleClosingServer.start();
  try {
    const plain = new QdrantClient({ url: server.url, checkCompatibility: false });
    await plain.getCollections();
    await pooled();
    const failure = await plain.getCollections().then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(failure instanceof Error, 'the second call over the reused connection fails');
    assert.ok(isSocketError(failure), `a socket error: ${String(failure)} / ${String((failure as { cause?: unknown }).cause)}`);
  } finally {
    await server.close();
  }
});

test('a read whose reused connection the server drops is resent on a new connection, and the resend is logged', async () => {
  const server = await IdleClosingServer.start();
  const logger = recordingLogger();
  try {
    const client = createQdrantClient({ url: server.url, logger });
    await client.getCollections();
    await pooled();
    assert.deepEqual(await client.getCollections(), { collections: [] });
    assert.equal(server.count('GET', '/collections'), 3, 'sent, dropped on the reused connection, resent');
    assert.deepEqual(
      server.requests.map((r) => [r.connection, r.answered]),
      [
        [1, true],
        [1, false],
        [2, true],
      ],
    );
    assert.equal(logger.lines.length, 1);
    assert.equal(logger.lines[0]?.fields.qdrant_operation, 'getCollections');
    assert.equal(logger.lines[0]?.fields.attempt, 1);
    assert.ok(
      ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE'].includes(String(logger.lines[0]?.fields.code)),
      String(logger.lines[0]?.fields.code),
    );
  } finally {
    await server.close();
  }
});

test('an upsert (its points carry ids) and a count (a read over POST) are resent', async () => {
  const server = await IdleClosingServer.start();
  const logger = recordingLogger();
  try {
    const client = createQdrantClient({ url: server.url, logger });
    await client.getCollections();
    await pooled();
    assert.equal((await client.upsert('kb', { wait: true, points })).status, 'completed');
    await pooled();
    await client.getCollections();
    await pooled();
    assert.equal((await client.count('kb', { exact: true })).count, 3);
    assert.equal(server.count('PUT', '/collections/kb/points?wait=true'), 2);
    assert.equal(server.count('POST', '/collections/kb/points/count'), 2);
    assert.deepEqual(
      logger.lines.map((l) => l.fields.qdrant_operation),
      ['upsertPoints', 'getCollections', 'countPoints'],
    );
  } finally {
    await server.close();
  }
});

test('a snapshot create and a collection create are sent once: the socket error reaches the caller', async () => {
  const server = await IdleClosingServer.start();
  const logger = recordingLogger();
  try {
    const client = createQdrantClient({ url: server.url, logger });
    await client.getCollections();
    await pooled();
    await assert.rejects(client.createSnapshot('kb', { wait: true }), (error) => isSocketError(error));
    assert.equal(server.count('POST', '/collections/kb/snapshots?wait=true'), 1, 'not resent: a repeat would take a second snapshot');
    await client.getCollections();
    await pooled();
    await assert.rejects(client.createCollection('kb2', { vectors: { size: 4, distance: 'Cosine' } }), (error) => isSocketError(error));
    assert.equal(server.count('PUT', '/collections/kb2'), 1, 'not resent: a repeat after an applied create answers 409');
    assert.equal(logger.lines.length, 0);
  } finally {
    await server.close();
  }
});

test('an alias switch is resent when it only creates or deletes aliases, not when it renames one', async () => {
  const server = await IdleClosingServer.start();
  try {
    const client = createQdrantClient({ url: server.url, logger: recordingLogger() });
    await client.getCollections();
    await pooled();
    await client.updateCollectionAliases({
      actions: [{ delete_alias: { alias_name: 'kb' } }, { create_alias: { alias_name: 'kb', collection_name: 'kb-2' } }],
    });
    assert.equal(server.count('POST', '/collections/aliases'), 2);
    await client.getCollections();
    await pooled();
    await assert.rejects(
      client.updateCollectionAliases({ actions: [{ rename_alias: { old_alias_name: 'kb', new_alias_name: 'kb-old' } }] }),
      (error) => isSocketError(error),
    );
    assert.equal(server.count('POST', '/collections/aliases'), 3);
  } finally {
    await server.close();
  }
});

test('a request still failing after the last attempt rejects with the socket error', async () => {
  const server = await IdleClosingServer.start({ drop: 'all' });
  const logger = recordingLogger();
  try {
    const client = createQdrantClient({ url: server.url, logger });
    await assert.rejects(client.getCollections(), (error) => isSocketError(error));
    assert.equal(server.count('GET', '/collections'), QDRANT_REQUEST_ATTEMPTS, 'bounded: no more than the attempts');
    assert.equal(logger.lines.length, QDRANT_REQUEST_ATTEMPTS - 1);
  } finally {
    await server.close();
  }
});

/** Qdrant 1.18 (actix-web) closes a keep-alive connection idle this long (measured in the integration test). */
const QDRANT_SERVER_IDLE_MS = 5_000;

test('a pooled connection idle past the keep-alive is closed by the client, before Qdrant would close it', async () => {
  // A server that never closes: only the client can. The REST client's own pool keeps a connection
  // 10 s, past the server's 5 s; ours must be closed before.
  const server = await IdleClosingServer.start({ drop: 'none' });
  try {
    const client = createQdrantClient({ url: server.url, keepAliveMs: 100 });
    await client.getCollections();
    const since = Date.now();
    while (server.clientClosed === 0 && Date.now() - since < QDRANT_SERVER_IDLE_MS) await sleep(50);
    assert.equal(server.clientClosed, 1, `the client closed its idle connection within ${QDRANT_SERVER_IDLE_MS} ms`);
    await client.getCollections();
    assert.equal(server.connectionCount, 2, 'the next request opened a new connection');
  } finally {
    await server.close();
  }
});

test('every operation of the installed REST client is judged resendable or not', () => {
  const api = new QdrantClient({ url: 'http://127.0.0.1:9', checkCompatibility: false }).api();
  const unjudged = Object.keys(api).filter((operation) => qdrantOperationClass(operation) === undefined);
  assert.deepEqual(unjudged, [], 'a client upgrade added operations: classify them in qdrant-retry-policy.ts');
});

test('which requests may be resent, and which errors are a dropped socket', () => {
  for (const read of ['getCollections', 'queryPoints', 'scrollPoints', 'countPoints', 'getPoints'])
    assert.equal(mayResend(read, {}), true, read);
  for (const write of ['upsertPoints', 'deletePoints', 'setPayload', 'deleteCollection', 'createFieldIndex', 'deleteSnapshot'])
    assert.equal(mayResend(write, {}), true, write);
  for (const once of ['createSnapshot', 'recoverFromSnapshot', 'createCollection', 'batchUpdate', 'aNewOperation'])
    assert.equal(mayResend(once, {}), false, once);
  assert.equal(mayResend('updateAliases', { actions: [{ create_alias: { alias_name: 'a', collection_name: 'c' } }] }), true);
  assert.equal(mayResend('updateAliases', { actions: [{ rename_alias: { old_alias_name: 'a', new_alias_name: 'b' } }] }), false);
  assert.equal(mayResend('updateAliases', {}), false);

  const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  assert.equal(isSocketError(new TypeError('fetch failed', { cause: socket })), true);
  assert.equal(isSocketError(new TypeError('terminated', { cause: socket })), true);
  assert.equal(
    isSocketError(new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) })),
    true,
  );
  assert.equal(
    isSocketError(new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) })),
    false,
  );
  assert.equal(isSocketError(new TypeError('fetch failed')), false);
  assert.equal(isSocketError(Object.assign(new Error('Conflict'), { status: 409 })), false);
});

test("Qdrant's 408 Request Timeout: an upsert is resent, a snapshot create is not", async () => {
  const seen: string[] = [];
  // Answers the first request of each kind 408 (a loaded server giving up on a wait=true write), then 200.
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = `${req.method} ${req.url}`;
      const first = !seen.includes(key);
      seen.push(key);
      res.setHeader('content-type', 'application/json');
      if (first) {
        res.statusCode = 408;
        res.end(JSON.stringify({ status: { error: 'Request Timeout' }, time: 0 }));
        return;
      }
      res.end(
        JSON.stringify({
          result: { operation_id: 1, status: 'completed', name: 's', creation_time: null, size: 0 },
          status: 'ok',
          time: 0,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const logger = recordingLogger();
  try {
    const client = createQdrantClient({ url: `http://127.0.0.1:${port}`, logger });
    assert.equal((await client.upsert('kb', { wait: true, points })).status, 'completed');
    assert.equal(seen.filter((k) => k === 'PUT /collections/kb/points?wait=true').length, 2);
    assert.equal(logger.lines[0]?.fields.code, 'HTTP_408');
    await assert.rejects(client.createSnapshot('kb', { wait: true }), (error) => (error as { status?: number }).status === 408);
    assert.equal(
      seen.filter((k) => k === 'POST /collections/kb/snapshots?wait=true').length,
      1,
      'not resent: a repeat would take a second snapshot',
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  assert.equal(isResendableFailure(Object.assign(new Error('Request Timeout'), { status: 408 })), true);
  assert.equal(isResendableFailure(Object.assign(new Error('Conflict'), { status: 409 })), false);
});
