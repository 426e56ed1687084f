/**
 * SENTINEL_RAG_ADAPTER_FILE: the sentinel asks a RAG through a declarative adapter instead of the
 * contract client, refuses a bad adapter at start naming the key, and reports which signals the
 * RAG's answers can feed at GET /capabilities.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { RagClient } from '@rag-immune/rag-contract';
import { AdapterFileError, AdapterRagClient } from '@rag-immune/rag-adapter';
import { sentinelRagPorts } from '../../src/rag-ports.ts';
import { sentinelHttpApp } from '../../src/http/routes.ts';
import type { Sentinel } from '../../src/sentinel.ts';

const flowise = fileURLToPath(new URL('../../../../packages/rag-adapter/examples/flowise-prediction.yaml', import.meta.url));
const config = (file?: string) => ({
  SENTINEL_ONLINE_RAG_URL: 'http://127.0.0.1:1/api/v1/prediction/online-flow',
  SENTINEL_BASELINE_RAG_URL: 'http://127.0.0.1:1/api/v1/prediction/baseline-flow',
  SENTINEL_CALL_TIMEOUT_MS: 2000,
  ...(file === undefined ? {} : { SENTINEL_RAG_ADAPTER_FILE: file }),
});

test('without an adapter file: the contract clients, every signal available (default unchanged)', () => {
  const rag = sentinelRagPorts(config(), {});
  assert.ok(rag.online instanceof RagClient && rag.baseline instanceof RagClient);
  assert.deepEqual(rag.signals.unavailable, []);
  assert.equal(rag.described.mode, 'contract');
});

test('with an adapter file: each side asks its own URL through the adapter; signals and description carry no secret', async () => {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ text: 'answer', sourceDocuments: [{ pageContent: 'doc', metadata: {} }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/prediction`;
  try {
    const rag = sentinelRagPorts(
      { ...config(flowise), SENTINEL_ONLINE_RAG_URL: `${base}/online-flow`, SENTINEL_BASELINE_RAG_URL: `${base}/baseline-flow` },
      { 'user-agent': 'rag-immune-sentinel/test' },
      { FLOWISE_API_KEY: 'flowise-secret-key-123' },
    );
    assert.ok(rag.online instanceof AdapterRagClient && rag.baseline instanceof AdapterRagClient);
    assert.deepEqual(await rag.online.query({ query: 'q' }), { answer: 'answer', chunks: [{ text: 'doc' }] });
    await rag.baseline.query({ query: 'q' });
    assert.deepEqual(asked, ['/api/v1/prediction/online-flow', '/api/v1/prediction/baseline-flow']);
    assert.deepEqual(rag.signals.available, ['fcs', 'ic', 'answer_agreement']);
    assert.equal(rag.described.adapter, 'flowise-prediction');
    assert.equal(JSON.stringify(rag).includes('flowise-secret-key-123'), false);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('issue 42: how newer knowledge is judged comes from the adapter (`knowledge.newer_than_baseline`), `update` otherwise', () => {
  const langserve = fileURLToPath(new URL('../../../../packages/rag-adapter/examples/langserve.yaml', import.meta.url));
  assert.equal(sentinelRagPorts(config(langserve), {}).newerKnowledge, 'unverified');
  assert.equal(sentinelRagPorts(config(flowise), {}, { FLOWISE_API_KEY: 'k-123456' }).newerKnowledge, 'update');
  assert.equal(sentinelRagPorts(config(), {}).newerKnowledge, 'update');
});

test('an adapter whose secret is not in the environment is refused, naming the key and the variable', () => {
  assert.throws(
    () => sentinelRagPorts(config(flowise), {}, {}),
    (error: unknown) =>
      error instanceof AdapterFileError &&
      /request\.headers\.authorization: environment variable FLOWISE_API_KEY is not set/.test(error.message),
  );
});

test('GET /capabilities serves the signals the RAG supports (behind the API token like /probes)', async () => {
  const token = 'sentinel-test-token-0123456789';
  const signals = sentinelRagPorts(config(flowise), {}, { FLOWISE_API_KEY: 'k-123456' }).signals;
  const sentinel = { isStarted: true, probeStatus: () => [] } as unknown as Sentinel;
  const logger = pino(new Writable({ write: (_c, _e, done) => done() }));
  const server = sentinelHttpApp(sentinel, {
    registry: new Registry(),
    logger,
    host: '127.0.0.1',
    apiToken: token,
    ragSignals: signals,
    newerKnowledge: 'unverified',
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/capabilities`;
  try {
    assert.equal((await fetch(url)).status, 401);
    const body = (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      rag: typeof signals;
      knowledge?: { newer_than_baseline: string };
    };
    assert.deepEqual(body.rag, signals);
    assert.deepEqual(body.knowledge, { newer_than_baseline: 'unverified' });
    assert.deepEqual(body.rag.unavailable.find((u) => u.signal === 'kf')?.missing, ['response.documents.retrieval_score']);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a bad adapter file stops the worker at start (exit 78), naming the file and the key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-adapter-'));
  const probes = join(dir, 'probes.jsonl');
  writeFileSync(
    probes,
    `${JSON.stringify({ id: 'adapter-probe', version: 1, query: 'What is the latest version of xz-utils?', expected_sources: ['changelog/xz-utils'], business_value: 1, cluster: 'head', created_at: '2026-11-01T00:00:00Z', retired_at: null })}\n`,
  );
  const adapter = join(dir, 'adapter.yaml');
  writeFileSync(
    adapter,
    'apiVersion: rag-immune/v1\nkind: RagAdapter\nmetadata: {name: x}\nrequest: {url: "${base_url}"}\nresponse: {documents: {path: "$.d[*]", text: "$.t"}}\n',
  );
  const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
  const result = spawnSync(process.execPath, ['--import', 'tsx', main], {
    env: {
      ...process.env,
      SENTINEL_ONLINE_RAG_URL: 'http://127.0.0.1:1',
      SENTINEL_BASELINE_RAG_URL: 'http://127.0.0.1:2',
      SENTINEL_PROBES_FILE: probes,
      SENTINEL_RAG_ADAPTER_FILE: adapter,
      KAFKA_BROKERS: '127.0.0.1:1',
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
    },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(result.status, 78, result.stdout + result.stderr);
  assert.match(result.stdout + result.stderr, /adapter\.yaml: response\.answer: Required/);
});
