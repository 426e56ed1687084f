/**
 * A known secret (an API key in SENTINEL_HEADERS, the sentinel's own SENTINEL_API_TOKEN) configured
 * into the real sentinel process, publishing to the real Kafka with SENTINEL_DEBUG=1, never shows up
 * in its logs, its debug capture, its published events, its metrics or its /probes answer — while
 * the key does reach the RAG (it is really in use). The RAG here is a contract-valid stand-in that
 * records the headers it receives; the bus and the registry are the real stack.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createKafka, topicNameOf } from '@rag-immune/bus';
import { sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';

const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const run = randomUUID().slice(0, 8);
const prefix = `it-secrets-${run}.`;
const API_KEY = `sk-live-${randomUUID().replace(/-/g, '')}`;
const API_TOKEN = `sentinel-token-${randomUUID().replace(/-/g, '')}`;
const dir = mkdtempSync(join(tmpdir(), 'sentinel-secrets-'));
const debugDir = join(dir, 'debug');

let rag: Server;
let ragUrl: string;
const keysSeenByRag: (string | undefined)[] = [];
let sentinel: ChildProcess;
let output = '';
let port = 0;

function answer(instance: string) {
  const chunk = {
    doc_id: 'debian-changelog:openssl',
    chunk_id: 'debian-changelog:openssl@3.0.15-1#0',
    knowledge_id: 'changelog/openssl',
    version: '3.0.15-1',
    source: 'debian-changelog',
    source_trust: 0.9,
    updated_at: '2024-09-05T18:30:12.000Z',
    valid_from: '2024-09-05T18:30:12.000Z',
    valid_until: null,
    retrieval_score: 0.71,
    rerank_score: 0.93,
    text: 'openssl 3.0.15-1 was released on 2024-09-05.',
  };
  return {
    trace_id: randomUUID(),
    answer: 'The latest version of openssl is 3.0.15-1.',
    citations: [{ chunk_id: chunk.chunk_id, doc_id: chunk.doc_id, knowledge_id: chunk.knowledge_id, version: chunk.version }],
    chunks: [chunk],
    models: { embedder: 'stand-in', reranker: 'v2.1', generator: 'stand-in' },
    timings: { total_ms: 1 },
    as_of: new Date().toISOString(),
    instance,
  };
}

before(async () => {
  rag = createServer((req, res) => {
    keysSeenByRag.push(req.headers['x-api-key'] as string | undefined);
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer(req.url?.includes('baseline') ? 'baseline' : 'online')));
    });
  });
  await new Promise<void>((resolve) => rag.listen(0, '127.0.0.1', resolve));
  ragUrl = `http://127.0.0.1:${(rag.address() as AddressInfo).port}`;
  const probe = {
    id: 'secret-probe',
    version: 1,
    query: 'What is the latest version of openssl?',
    expected_sources: ['changelog/openssl'],
    business_value: 1,
    cluster: 'head',
    created_at: '2026-11-01T00:00:00Z',
    retired_at: null,
  };
  writeFileSync(join(dir, 'probes.jsonl'), `${JSON.stringify(probe)}\n`);
  sentinel = spawn(process.execPath, ['--import', 'tsx', main], {
    env: {
      ...process.env,
      SENTINEL_ONLINE_RAG_URL: `${ragUrl}/online`,
      SENTINEL_BASELINE_RAG_URL: `${ragUrl}/baseline`,
      SENTINEL_PROBES_FILE: join(dir, 'probes.jsonl'),
      SENTINEL_HEADERS: JSON.stringify({ 'x-api-key': API_KEY }),
      SENTINEL_API_TOKEN: API_TOKEN,
      SENTINEL_INTERVAL_SECONDS: '1',
      SENTINEL_DEBUG: '1',
      SENTINEL_DEBUG_DIR: debugDir,
      SENTINEL_PORT: '0',
      KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
      BUS_TOPIC_PREFIX: prefix,
      BUS_PROBES_PARTITIONS: '1',
      LOG_LEVEL: 'debug',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  sentinel.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  sentinel.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
});

after(async () => {
  sentinel?.kill('SIGTERM');
  await sleep(500);
  sentinel?.kill('SIGKILL');
  rag?.closeAllConnections();
  rag?.close();
  const kafka = createKafka({ clientId: `it-secrets-cleanup-${run}`, brokers: endpoints.kafkaBrokers });
  const admin = kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
  if (topics.length > 0) await admin.deleteTopics({ topics });
  await admin.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

test('a configured secret never appears in logs, debug captures, events, metrics or /probes', { timeout: 240_000 }, async () => {
  // Wait for the listening line (the bound port), then for two published results.
  const deadline = Date.now() + 180_000;
  while (!/"msg":"sentinel listening"/.test(output)) {
    assert.ok(Date.now() < deadline, `the sentinel did not start:\n${output.slice(-3000)}`);
    assert.equal(sentinel.exitCode, null, `the sentinel exited:\n${output.slice(-3000)}`);
    await sleep(200);
  }
  port = Number(/"port":(\d+)[^\n]*"msg":"sentinel listening"/.exec(output)?.[1]);
  assert.ok(port > 0, 'the sentinel logs its bound port');

  const kafka = createKafka({ clientId: `it-secrets-${run}`, brokers: endpoints.kafkaBrokers });
  const consumer = kafka.consumer({ groupId: `it-secrets-${run}` });
  const events: Buffer[] = [];
  const headerBytes: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic: topicNameOf({ topicPrefix: prefix }, 'probes'), fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (message.value) events.push(message.value);
      for (const value of Object.values(message.headers ?? {})) headerBytes.push(String(value));
    },
  });
  while (events.length < 2) {
    assert.ok(Date.now() < deadline, `no ProbeResult published:\n${output.slice(-3000)}`);
    await sleep(250);
  }
  await consumer.disconnect();

  const base = `http://127.0.0.1:${port}`;
  assert.equal((await fetch(`${base}/probes`)).status, 401, '/probes needs the token');
  const probes = await fetch(`${base}/probes`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
  assert.equal(probes.status, 200);
  const probesText = await probes.text();
  const metricsText = await (await fetch(`${base}/metrics`)).text();
  const captures = readdirSync(debugDir).map((file) => readFileSync(join(debugDir, file), 'utf8'));

  assert.ok(keysSeenByRag.includes(API_KEY), 'the key really was sent to the RAG');
  assert.ok(captures.join('').includes('"x-api-key":"[redacted]"'), 'the capture names the header, redacted');
  const places: [string, string][] = [
    ['logs', output],
    ['debug captures', captures.join('\n')],
    ['events', Buffer.concat(events).toString('latin1')],
    ['event headers', headerBytes.join('\n')],
    ['metrics', metricsText],
    ['/probes', probesText],
  ];
  for (const [place, text] of places) {
    assert.ok(text.length > 0, `${place} were captured`);
    for (const secret of [API_KEY, API_TOKEN]) assert.ok(!text.includes(secret), `a secret appears in ${place}`);
  }
});
