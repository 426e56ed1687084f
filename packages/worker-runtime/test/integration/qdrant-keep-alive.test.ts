/**
 * The Qdrant client policy against the stack's real Qdrant (issue 36: CI failed on
 * `getCollections` with `fetch failed`, cause `other side closed`, when a pooled connection was
 * reused as Qdrant closed it as idle). A loopback proxy in front of Qdrant drops a connection the
 * moment the client sends a second request on it, so the race happens on every reuse instead of
 * once in a thousand runs; requests and answers are the real server's.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, createServer, connect, type Server, type Socket } from 'node:net';
import { QdrantClient } from '@qdrant/js-client-rest';
import { loadStackConfig, stackEndpoints } from '@rag-immune/stack';
import { createQdrantClient, isSocketError, QDRANT_KEEP_ALIVE_MS } from '../../src/index.ts';

const endpoints = stackEndpoints(loadStackConfig());
const collection = `it_qdrant_keep_alive_${process.pid}_${Date.now()}`;
const direct = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });

/** Forwards to Qdrant; a connection that has had an answer is dropped when the client writes on it again. */
class ReuseDroppingProxy {
  dropped = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<ReuseDroppingProxy> {
    const { hostname, port } = new URL(target);
    const holder: { self?: ReuseDroppingProxy } = {};
    const server = createServer((client) => holder.self?.accept(client, hostname, Number(port)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    holder.self = new ReuseDroppingProxy(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
    return holder.self;
  }

  private accept(client: Socket, host: string, port: number): void {
    const upstream = createConnection({ host, port });
    let answered = false;
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => this.sockets.delete(socket));
    }
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    upstream.on('data', (chunk: Buffer) => {
      answered = true;
      client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => {
      // HTTP/1.1 without pipelining: bytes after an answer begin the next request on a reused connection.
      if (answered) {
        this.dropped += 1;
        client.destroy();
        return;
      }
      upstream.write(chunk);
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Lets undici's pool take the answered connection back, so the next call reuses it. */
const pooled = () => new Promise<void>((resolve) => setImmediate(resolve));

let proxy: ReuseDroppingProxy;

before(async () => {
  proxy = await ReuseDroppingProxy.start(endpoints.qdrantUrl);
  await direct.createCollection(collection, { vectors: { size: 4, distance: 'Cosine' } });
});

after(async () => {
  await direct.deleteCollection(collection).catch(() => undefined);
  await proxy.close();
});

test('Qdrant closes an idle keep-alive connection later than the client does', async () => {
  // One request on a raw socket, then wait for the server to close it (up to 30 s).
  const socket = connect(Number(new URL(endpoints.qdrantUrl).port), '127.0.0.1');
  socket.on('error', () => undefined);
  const key = endpoints.qdrantApiKey ? `api-key: ${endpoints.qdrantApiKey}\r\n` : '';
  const idleMs = await new Promise<number>((resolve) => {
    let answeredAt = 0;
    const timer = setTimeout(() => resolve(Number.POSITIVE_INFINITY), 30_000);
    socket.once('data', () => (answeredAt = Date.now()));
    socket.once('end', () => {
      clearTimeout(timer);
      resolve(Date.now() - answeredAt);
    });
    socket.write(`GET /readyz HTTP/1.1\r\nhost: 127.0.0.1\r\n${key}\r\n`);
  });
  socket.destroy();
  assert.ok(
    idleMs > QDRANT_KEEP_ALIVE_MS,
    `Qdrant closed an idle connection after ${idleMs} ms, the client keeps one ${QDRANT_KEEP_ALIVE_MS} ms`,
  );
});

test('through a connection dropped on every reuse, the plain REST client fails as CI did', async () => {
  const plain = new QdrantClient({
    url: proxy.url,
    checkCompatibility: false,
    ...(endpoints.qdrantApiKey ? { headers: { 'api-key': endpoints.qdrantApiKey } } : {}),
  });
  await plain.getCollections();
  await pooled();
  await assert.rejects(plain.getCollections(), (error) => isSocketError(error));
});

test('through the same connections, the policy client reads and writes the real Qdrant: each dropped request resent once, nothing applied twice', async () => {
  const warned: Record<string, unknown>[] = [];
  const client = createQdrantClient({
    url: proxy.url,
    apiKey: endpoints.qdrantApiKey,
    logger: { warn: (fields: Record<string, unknown>) => void warned.push(fields) },
  });
  const droppedBefore = proxy.dropped;
  assert.ok((await client.getCollections()).collections.some((c) => c.name === collection));
  await pooled();
  const points = [1, 2, 3].map((id) => ({ id, vector: [id, 1, 0, 0], payload: { package: `pkg-${id}` } }));
  await client.upsert(collection, { wait: true, points });
  await pooled();
  assert.equal((await client.count(collection, { exact: true })).count, 3, 'the resent upsert rewrote the same three points');
  await pooled();
  const hits = await client.query(collection, { query: [3, 1, 0, 0], limit: 1, with_payload: true });
  assert.equal(hits.points[0]?.payload?.package, 'pkg-3');
  assert.equal(proxy.dropped - droppedBefore, 3, 'upsert, count and query each met a dropped connection');
  assert.deepEqual(
    warned.map((w) => w.qdrant_operation),
    ['upsertPoints', 'countPoints', 'queryPoints'],
  );
});
