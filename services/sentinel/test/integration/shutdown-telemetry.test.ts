/**
 * Issue 15, item 5: with OTEL_EXPORTER_OTLP_ENDPOINT unset the sentinel exported to
 * 127.0.0.1:4318 at shutdown anyway, logged ECONNREFUSED at error level and took about 8 s to stop.
 * The real worker (main.ts) runs here against the real Kafka and registry and a contract-valid RAG,
 * probes run (so there are spans to export), then SIGTERM: nothing may reach an OTLP listener on
 * 127.0.0.1:4318, no error is logged, and the process is gone within 2 s. The same run with the
 * endpoint set must export, which shows the listener would have seen a stray export.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { endpoints } from '@rag-immune/test-kit/stack';
import { startContractRag } from '../fixtures/contract-rag-server.ts';

const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const SHUTDOWN_LIMIT_MS = 2000;
let rag: Awaited<ReturnType<typeof startContractRag>>;
let probesFile: string;

/** An OTLP/HTTP receiver that counts the export requests it gets. */
async function otlpListener(port: number): Promise<{ server: Server; port: number; requests: () => number }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port, requests: () => requests };
}

before(async () => {
  rag = await startContractRag(() => ({
    trace_id: randomUUID(),
    answer: 'The latest version of acl is 2.3.1-3.',
    citations: [{ chunk_id: 'c1', doc_id: 'd1', knowledge_id: 'changelog/acl', version: '2.3.1-3' }],
    chunks: [
      {
        doc_id: 'd1',
        chunk_id: 'c1',
        knowledge_id: 'changelog/acl',
        version: '2.3.1-3',
        source: 'debian-changelog',
        source_trust: 0.9,
        updated_at: '2023-01-01T00:00:00Z',
        valid_from: '2023-01-01T00:00:00Z',
        valid_until: null,
        retrieval_score: 0.8,
        text: 'Package: acl | Version: 2.3.1-3 | Released: 2023-01-01',
      },
    ],
    models: { embedder: 'e', reranker: 'r', generator: 'g' },
    timings: { total_ms: 1 },
    as_of: new Date().toISOString(),
  }));
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-shutdown-'));
  probesFile = join(dir, 'probes.jsonl');
  const probe = (id: string) =>
    JSON.stringify({
      id,
      version: 1,
      query: 'What is the latest version of acl?',
      expected_sources: ['changelog/acl'],
      business_value: 1,
      cluster: 'head',
      created_at: '2026-11-01T00:00:00Z',
      retired_at: null,
    });
  writeFileSync(probesFile, `${probe('acl-a')}\n${probe('acl-b')}\n`);
});

after(async () => {
  await rag?.close();
});

/** Runs the worker until `queries` probe calls reached the RAG, then SIGTERM; how long it took to exit and what it logged. */
async function runWorker(extraEnv: Record<string, string>, queries = 4): Promise<{ code: number | null; stopMs: number; output: string }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    SENTINEL_ONLINE_RAG_URL: rag.url,
    SENTINEL_BASELINE_RAG_URL: rag.url,
    SENTINEL_PROBES_FILE: probesFile,
    SENTINEL_INTERVAL_SECONDS: '1',
    SENTINEL_JITTER: '0',
    SENTINEL_PORT: '0',
    KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
    BUS_TOPIC_PREFIX: `it-shutdown-${randomUUID().slice(0, 8)}.`,
    ...extraEnv,
  };
  for (const key of Object.keys(env)) if (key.startsWith('OTEL_') && !(key in extraEnv)) delete env[key];
  const child = spawn(process.execPath, ['--import', 'tsx', main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => (output += `${line}\n`));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const startQueries = rag.queries();
  const deadline = Date.now() + 120_000;
  while (rag.queries() - startQueries < queries) {
    assert.ok(Date.now() < deadline, `the worker ran no probes in 120 s:\n${output}`);
    assert.equal(child.exitCode, null, `the worker exited early:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stopping = performance.now();
  child.kill('SIGTERM');
  const code = await exited;
  return { code, stopMs: performance.now() - stopping, output };
}

test('OTLP not configured: nothing exported, no error logged, the worker stops within 2 s', async () => {
  const listener = await otlpListener(4318).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`127.0.0.1:4318 must be free for this test (the OTLP default a stray exporter would use): ${error.code}`);
  });
  try {
    const { code, stopMs, output } = await runWorker({});
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(code, 0, output);
    assert.equal(listener.requests(), 0, 'no OTLP export reached 127.0.0.1:4318');
    assert.ok(!/ECONNREFUSED/.test(output), output);
    const errors = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .filter((line) => (JSON.parse(line) as { level?: number }).level! >= 50);
    assert.deepEqual(errors, []);
    console.log(`stopped in ${Math.round(stopMs)} ms`);
    assert.ok(stopMs <= SHUTDOWN_LIMIT_MS, `stopped in ${Math.round(stopMs)} ms`);
  } finally {
    listener.server.close();
  }
});

test('OTLP configured: the spans are exported (the listener sees exports when there are any)', async () => {
  const listener = await otlpListener(0);
  try {
    const { code, output } = await runWorker({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${listener.port}` });
    assert.equal(code, 0, output);
    assert.ok(listener.requests() > 0, 'spans reached the configured endpoint');
  } finally {
    listener.server.close();
  }
});
