import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ragConfigFromEnv } from '../../src/config.ts';
import { createApp, type AppDeps } from '../../src/http/app.ts';
import { createRagMetrics } from '../../src/metrics.ts';

const TOKEN = 'test-token-0123456789abcdef';

/** Log lines captured in memory, to check what reached the log (and what did not reach the caller). */
function memoryLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** createApp with stand-ins for the retrieval pipeline: these tests exercise only the HTTP policy. */
async function serve(overrides: Partial<AppDeps>, logger = memoryLogger()) {
  const injected: string[] = [];
  const deps = {
    service: {
      instance: 'online',
      query: async () => {
        throw new Error('qdrant at 10.1.2.3:6333 said: collection secret-collection missing');
      },
      trace: () => undefined,
      reranker: { availableVersions: ['v2.1'] },
      normalizer: { currentRules: [] },
    },
    repair: { answerValidation: () => ({ hook: 'answer_validation', applied_at: new Date().toISOString(), changed: 1 }) },
    faults: {
      list: () => [],
      inject: async (kind: string) => {
        injected.push(kind);
        return { fault: { kind, mode: 'silent', affected_knowledge_ids: null } };
      },
      undo: async () => ({}),
    },
    journal: { list: () => [] },
    metrics: createRagMetrics('online'),
    logger: logger.logger,
    knowledgeSources: [],
    faultsAllowed: true,
    faultInjectionEnabled: true,
    apiToken: TOKEN,
    host: '127.0.0.1',
    ...overrides,
  } as unknown as AppDeps;
  const server = createApp(deps).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, injected, lines: logger.lines, close: () => new Promise((resolve) => server.close(resolve)) };
}

const post = (url: string, token?: string, body: unknown = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

test('repair, trace and fault routes need the bearer token; the public query face does not', async () => {
  const rag = await serve({});
  try {
    assert.equal((await post(`${rag.url}/admin/faults/parser-bug`)).status, 401);
    assert.equal((await post(`${rag.url}/admin/faults/parser-bug`, 'wrong-token-0123456789')).status, 401);
    assert.equal((await post(`${rag.url}/repair/answer-validation`, undefined, { enabled: true })).status, 401);
    assert.equal((await fetch(`${rag.url}/traces/abc`)).status, 401);
    assert.equal((await fetch(`${rag.url}/knowledge/changelog%2Fopenssl`)).status, 401);
    assert.equal((await fetch(`${rag.url}/admin/faults/journal`)).status, 401);
    assert.deepEqual(rag.injected, []);
    assert.equal((await post(`${rag.url}/admin/faults/parser-bug`, TOKEN)).status, 200);
    assert.deepEqual(rag.injected, ['parser-bug']);
    assert.equal((await post(`${rag.url}/repair/answer-validation`, TOKEN, { enabled: true })).status, 200);
    assert.equal((await fetch(`${rag.url}/traces/abc`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404);
    assert.equal((await fetch(`${rag.url}/healthz`)).status, 200);
    assert.ok(!rag.lines.join('').includes(TOKEN), 'the token never reaches the log');
  } finally {
    await rag.close();
  }
});

test('fault injection is refused unless enabled, even with the token', async () => {
  const rag = await serve({ faultInjectionEnabled: false });
  try {
    const response = await post(`${rag.url}/admin/faults/parser-bug`, TOKEN);
    assert.equal(response.status, 403);
    assert.match(((await response.json()) as { error: string }).error, /RAG_FAULT_INJECTION=enabled/);
    assert.deepEqual(rag.injected, []);
  } finally {
    await rag.close();
  }
});

test('without a token the routes are open on loopback, with a warning in the log', async () => {
  const rag = await serve({ apiToken: undefined });
  try {
    assert.equal((await post(`${rag.url}/admin/faults/parser-bug`)).status, 200);
    assert.match(rag.lines.join(''), /no RAG_API_TOKEN set/);
  } finally {
    await rag.close();
  }
});

test('a non-loopback binding without a token refuses to start', () => {
  assert.throws(
    () =>
      createApp({
        service: { instance: 'online' },
        apiToken: undefined,
        host: '0.0.0.0',
        logger: pino({ level: 'silent' }),
      } as unknown as AppDeps),
    /RAG_API_TOKEN/,
  );
  assert.throws(() => ragConfigFromEnv({ QDRANT_URL: 'http://q:6333', HOST: '0.0.0.0' }), /RAG_API_TOKEN/);
  assert.equal(ragConfigFromEnv({ QDRANT_URL: 'http://q:6333', HOST: '0.0.0.0', RAG_API_TOKEN: TOKEN }).HOST, '0.0.0.0');
  assert.equal(ragConfigFromEnv({ QDRANT_URL: 'http://q:6333' }).RAG_FAULT_INJECTION, 'disabled');
});

test('a 500 returns only an error id; the detail is in the log under that id', async () => {
  const rag = await serve({});
  try {
    const response = await post(`${rag.url}/query`, undefined, { query: 'what changed in openssl?' });
    assert.equal(response.status, 500);
    const text = await response.text();
    assert.doesNotMatch(text, /qdrant|10\.1\.2\.3|secret-collection|at .*\.ts/);
    const { error_id: errorId } = JSON.parse(text) as { error_id: string };
    assert.match(errorId, /^[0-9a-f-]{36}$/);
    const logged = rag.lines.find((line) => line.includes(errorId));
    assert.ok(logged?.includes('secret-collection'), 'the detail is logged under the error id');
  } finally {
    await rag.close();
  }
});

test('a guarded route authenticates before parsing the body; body refusals are 4xx with a message, not 500', async () => {
  const rag = await serve({});
  try {
    const big = JSON.stringify({ filler: 'x'.repeat(2 * 1024 * 1024) });
    const send = (token: string | undefined, body: string, headers: Record<string, string> = {}) =>
      fetch(`${rag.url}/admin/faults/parser-bug`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
        body,
      });
    assert.equal((await send(undefined, big)).status, 401, 'unauthenticated: refused before the 2 MB body is parsed');
    assert.equal((await send(undefined, '{}', { 'content-encoding': 'compress' })).status, 401);
    assert.equal((await send(TOKEN, big)).status, 413);
    const unsupported = await send(TOKEN, '{}', { 'content-encoding': 'compress' });
    assert.equal(unsupported.status, 415);
    assert.match(((await unsupported.json()) as { error: string }).error, /content-encoding/);
    assert.equal((await send(TOKEN, '{nope')).status, 400);
    assert.deepEqual(rag.injected, []);
  } finally {
    await rag.close();
  }
});
