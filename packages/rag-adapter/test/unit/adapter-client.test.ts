import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { RagHttpError, RagUnreachableError } from '@rag-immune/rag-contract';
import { AdapterFileError, AdapterRagClient, adapterClientFromFile, loadAdapterFile, parseAdapter } from '../../src/index.ts';
import { example, fixture, json, withServer } from './helpers.ts';

const SECRET = 'sk-live-7f3a9c2e1b';

test('Flowise: the question goes in the body, the API key in the header, the flow URL is the base URL', async () => {
  await withServer(
    (_req, res) => json(res, 200, fixture('flowise-prediction.json')),
    async (url, received) => {
      const client = adapterClientFromFile(example('flowise-prediction.yaml'), {
        baseUrl: `${url}/api/v1/prediction/flow-1`,
        env: { FLOWISE_API_KEY: SECRET },
        headers: { 'user-agent': 'rag-immune-sentinel/test' },
      });
      const response = await client.query({ query: 'What is the latest version of openssl in bookworm?', top_k: 5 });
      assert.equal(response.answer, 'The latest version of openssl in bookworm is 3.0.15-1~deb12u1.');
      assert.equal(response.chunks.length, 2);
      const [request] = received;
      assert.equal(request?.method, 'POST');
      assert.equal(request?.url, '/api/v1/prediction/flow-1');
      assert.equal(request?.headers.authorization, `Bearer ${SECRET}`);
      assert.equal(request?.headers['user-agent'], 'rag-immune-sentinel/test');
      assert.equal(request?.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(request?.body ?? ''), {
        question: 'What is the latest version of openssl in bookworm?',
        streaming: false,
      });
    },
  );
});

test('the body template keeps value types, drops an unset placeholder, and never re-expands a value', async () => {
  await withServer(
    (_req, res) => json(res, 200, { answer: 'ok', chunks: [] }),
    async (url, received) => {
      const client = new AdapterRagClient({ adapter: loadAdapterFile(example('health-contract.yaml')), baseUrl: url, env: {} });
      await client.query({ query: 'what is ${env:HOME}? ${top_k}', top_k: 3 });
      await client.query({ query: 'plain' });
      assert.deepEqual(JSON.parse(received[0]?.body ?? ''), { query: 'what is ${env:HOME}? ${top_k}', top_k: 3 });
      assert.deepEqual(JSON.parse(received[1]?.body ?? ''), { query: 'plain' });
      assert.equal(received[0]?.url, '/query');
    },
  );
});

test('a missing environment variable refuses to bind, naming the key and the variable, and the file', () => {
  assert.throws(
    () => adapterClientFromFile(example('flowise-prediction.yaml'), { baseUrl: 'http://127.0.0.1:1', env: {} }),
    (error: unknown) =>
      error instanceof AdapterFileError &&
      error.file.endsWith('flowise-prediction.yaml') &&
      error.issues.some(
        (i) => i.key === 'request.headers.authorization' && i.message === 'environment variable FLOWISE_API_KEY is not set',
      ),
  );
});

test('an unknown placeholder is refused at bind time, naming its key', () => {
  const adapter = parseAdapter(
    JSON.stringify({
      apiVersion: 'rag-immune/v1',
      kind: 'RagAdapter',
      metadata: { name: 't' },
      request: { url: '${base_url}', body: { q: '${question}' } },
      response: { answer: '$.a' },
    }),
  );
  assert.throws(
    () => new AdapterRagClient({ adapter, baseUrl: 'http://127.0.0.1:1', env: {} }),
    (error: unknown) =>
      error instanceof AdapterFileError &&
      error.issues[0]?.key === 'request.body.q' &&
      /unknown placeholder \$\{question\}/.test(error.message),
  );
});

function secretAdapter() {
  return parseAdapter(
    JSON.stringify({
      apiVersion: 'rag-immune/v1',
      kind: 'RagAdapter',
      metadata: { name: 'secretive' },
      request: { url: '${base_url}/ask?key=${env:RAG_KEY}', headers: { 'x-api-key': '${env:RAG_KEY}' }, body: { q: '${query}' } },
      response: { answer: '$.a' },
    }),
  );
}

test('env interpolation never reaches a log line or an error: describe(), HTTP errors that echo it, unreachable URLs', async () => {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) }));
  await withServer(
    // A RAG whose error page echoes the key it was sent.
    (req, res) => json(res, 401, { error: `bad key ${req.headers['x-api-key']} for ${req.url}` }),
    async (url, received) => {
      const client = new AdapterRagClient({ adapter: secretAdapter(), baseUrl: url, env: { RAG_KEY: SECRET } });
      logger.info({ rag: client.describe() }, 'adapter bound');
      // Even a careless log of the client object itself shows no secret.
      logger.debug({ client }, 'client');
      const error = await client.query({ query: 'q' }).catch((e: unknown) => e);
      assert.ok(error instanceof RagHttpError);
      assert.equal(error.status, 401);
      logger.warn({ err: error, body: error.body }, error.message);
      // The secret did go on the wire, where it belongs.
      assert.equal(received[0]?.headers['x-api-key'], SECRET);
      assert.equal(received[0]?.url, `/ask?key=${SECRET}`);
    },
  );
  const unreachable = new AdapterRagClient({ adapter: secretAdapter(), baseUrl: 'http://127.0.0.1:1', env: { RAG_KEY: SECRET } });
  const error = await unreachable.query({ query: 'q' }).catch((e: unknown) => e);
  assert.ok(error instanceof RagUnreachableError);
  logger.warn({ err: error }, error.message);
  assert.equal(lines.length, 4);
  const logged = lines.join('\n');
  assert.equal(logged.includes(SECRET), false, logged);
  assert.match(logged, /\$\{env:RAG_KEY\}/);
  assert.deepEqual(unreachable.describe(), {
    adapter: 'secretive',
    method: 'POST',
    url: 'http://127.0.0.1:1/ask?key=${env:RAG_KEY}',
    headers: ['x-api-key'],
  });
});

test('a 5xx is a RagHttpError and a non-JSON 200 a contract violation, as from the contract client', async () => {
  await withServer(
    (req, res) => (req.body.includes('boom') ? json(res, 503, { error: 'overloaded' }) : res.writeHead(200).end('<html>')),
    async (url) => {
      const client = new AdapterRagClient({ adapter: loadAdapterFile(example('langserve-invoke.yaml')), baseUrl: url, env: {} });
      await assert.rejects(client.query({ query: 'boom' }), (e: unknown) => e instanceof RagHttpError && e.status === 503);
      await assert.rejects(client.query({ query: 'fine' }), /query: response violates the RAG health contract: the body is not JSON/);
    },
  );
});

test('a RAG slower than the timeout is a RagUnreachableError with reason timeout', async () => {
  await withServer(
    (_req, res) => setTimeout(() => json(res, 200, { output: 'late' }), 2_000),
    async (url) => {
      const client = new AdapterRagClient({
        adapter: loadAdapterFile(example('langserve-invoke.yaml')),
        baseUrl: url,
        env: {},
        timeoutMs: 200,
      });
      await assert.rejects(client.query({ query: 'q' }), (e: unknown) => e instanceof RagUnreachableError && e.reason === 'timeout');
    },
  );
});

test('GET: the query goes URL-encoded into the URL and no body is sent', async () => {
  const adapter = parseAdapter(
    JSON.stringify({
      apiVersion: 'rag-immune/v1',
      kind: 'RagAdapter',
      metadata: { name: 'get' },
      request: { method: 'GET', url: '${base_url}/search?q=${query}&k=${top_k}' },
      response: { answer: '$.answer' },
    }),
  );
  await withServer(
    (_req, res) => json(res, 200, { answer: 'ok' }),
    async (url, received) => {
      const client = new AdapterRagClient({ adapter, baseUrl: url, env: {} });
      await client.query({ query: 'openssl & curl?', top_k: 4 });
      assert.equal(received[0]?.method, 'GET');
      assert.equal(received[0]?.url, '/search?q=openssl%20%26%20curl%3F&k=4');
      assert.equal(received[0]?.body, '');
    },
  );
});
