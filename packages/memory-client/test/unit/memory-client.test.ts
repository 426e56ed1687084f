/**
 * MemoryClient against a real HTTP server on loopback (node:http): what it sends, what it accepts,
 * and how every way of not getting an answer becomes MemoryUnavailableError, so the effector falls
 * back to its policy instead of failing the repair.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  MemoryClient,
  MemoryUnavailableError,
  RecommendRequest,
  type Recommendation,
  type RecommendRequest as Request,
} from '../../src/index.ts';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let handler: Handler = (_req, _body, res) => res.writeHead(500).end();
let server: Server;
let baseUrl: string;

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handler(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const request: Request = {
  incident_id: 'inc-1',
  root_cause: 'reranker_drift',
  affected_component: 'reranker',
  claims: [{ kind: 'rerank_score_shift', metric: 'top1_rerank_score', observed: 0.4, baseline: 0.9 }],
};

const answer: Recommendation = {
  incident_id: 'inc-1',
  source: 'cases',
  degraded: false,
  strategy: [{ intent: 'rollback_reranker', tool: 'pin_reranker_version' }],
  confidence: 0.8,
  top_similarity: 0.93,
  citations: [{ case_id: 'c-1', similarity: 0.93, outcome: 'recovered', intents: ['rollback_reranker'] }],
  rules_version: null,
  reason: 'similar_cases',
  audit_id: 'a-1',
};

const json = (res: ServerResponse, status: number, value: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

test('recommend posts the validated request (defaults filled, bearer token sent) and returns the validated answer', async () => {
  let seen: { method?: string; url?: string; auth?: string; type?: string; body?: unknown } = {};
  handler = (req, body, res) => {
    seen = { method: req.method, url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body: JSON.parse(body) };
    json(res, 200, answer);
  };
  const client = new MemoryClient({ baseUrl: `${baseUrl}/`, token: 'memory-token' });
  assert.deepEqual(await client.recommend(request), answer);
  assert.equal(seen.method, 'POST');
  assert.equal(seen.url, '/recommend', 'a trailing slash on the base URL is dropped');
  assert.equal(seen.auth, 'Bearer memory-token');
  assert.equal(seen.type, 'application/json');
  assert.deepEqual(seen.body, RecommendRequest.parse(request));
  assert.deepEqual((seen.body as { exclude_intents: unknown }).exclude_intents, []);
});

test('a request that breaks the contract is refused before anything is sent', async () => {
  let called = false;
  handler = (_req, _body, res) => ((called = true), json(res, 200, answer));
  const client = new MemoryClient({ baseUrl });
  await assert.rejects(client.recommend({ ...request, root_cause: 'gremlins' as never }), /root_cause/);
  await assert.rejects(client.recommend({ ...request, exclude_intents: ['reboot_everything' as never] }));
  assert.equal(called, false);
});

test('an answer off the contract, a 5xx, a 4xx and a non-JSON body are MemoryUnavailableError naming what happened', async () => {
  const client = new MemoryClient({ baseUrl });
  handler = (_req, _body, res) => json(res, 200, { ...answer, source: 'vibes' });
  await assert.rejects(client.recommend(request), (e: unknown) => e instanceof MemoryUnavailableError && /off-contract/.test(e.message));
  handler = (_req, _body, res) => json(res, 503, { error: 'stores warming up' });
  await assert.rejects(
    client.recommend(request),
    (e: unknown) => e instanceof MemoryUnavailableError && /503 .*stores warming up/.test(e.message),
  );
  handler = (_req, _body, res) => json(res, 401, { error: 'missing token' });
  await assert.rejects(client.recommend(request), (e: unknown) => e instanceof MemoryUnavailableError && /401/.test(e.message));
  handler = (_req, _body, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>');
  await assert.rejects(
    client.recommend(request),
    (e: unknown) => e instanceof MemoryUnavailableError && /502 .*bad gateway/.test(e.message),
  );
});

test('memory slower than the timeout, or not listening, is MemoryUnavailableError quickly', async () => {
  handler = (_req, _body, res) => void setTimeout(() => json(res, 200, answer), 2000);
  const started = Date.now();
  await assert.rejects(new MemoryClient({ baseUrl, timeoutMs: 150 }).recommend(request), MemoryUnavailableError);
  assert.ok(Date.now() - started < 1500, 'the timeout fires, not the server');
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await assert.rejects(
    new MemoryClient({ baseUrl: `http://127.0.0.1:${port}` }).recommend(request),
    (e: unknown) => e instanceof MemoryUnavailableError && /unreachable/.test(e.message),
  );
});

test('get returns the JSON served for a path, with the token', async () => {
  handler = (req, _body, res) => json(res, 200, { path: req.url, auth: req.headers.authorization ?? null });
  assert.deepEqual(await new MemoryClient({ baseUrl, token: 't' }).get('/cases?limit=2'), { path: '/cases?limit=2', auth: 'Bearer t' });
  assert.deepEqual(await new MemoryClient({ baseUrl }).get('/cases/c-1'), { path: '/cases/c-1', auth: null });
});

test('the contract enums are the Avro ones: every cause, component and intent of the contract, no other', async () => {
  const { ROOT_CAUSES, RAG_COMPONENTS, REPAIR_INTENTS } = await import('@rag-immune/contracts');
  const { RootCauseName, RagComponentName, RepairIntentName } = await import('../../src/index.ts');
  assert.deepEqual(RootCauseName.options, [...ROOT_CAUSES]);
  assert.deepEqual(RagComponentName.options, [...RAG_COMPONENTS]);
  assert.deepEqual(RepairIntentName.options, [...REPAIR_INTENTS]);
});
