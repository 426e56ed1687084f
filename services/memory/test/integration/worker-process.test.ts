/**
 * The memory worker as its own process (`npx tsx services/memory/src/main.ts`) on the real stack:
 * it refuses a bad rules file or setting with exit 78 naming it, starts, logs its port, builds a
 * case from events on Kafka, answers /recommend with a citation, and stops cleanly on SIGTERM.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Client } from '@elastic/elasticsearch';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { EventBus, busConfigFromEnv } from '@rag-immune/bus';
import { MemoryClient } from '@rag-immune/memory-client';
import { repoRoot, qdrantEnv } from '@rag-immune/stack';
import { endpoints } from '@rag-immune/test-kit/stack';
import { action, claim, report } from '../support/events.ts';

const run = randomUUID().slice(0, 8);
const TOKEN = `memory-process-token-${run}`;
const env: Record<string, string> = {
  KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
  SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
  BUS_TOPIC_PREFIX: `it-memproc-${run}.`,
  ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
  ...qdrantEnv(endpoints),
  ES_INDEX_PREFIX: `it-memproc-${run}`,
  MEMORY_PORT: '0',
  MEMORY_API_TOKEN: TOKEN,
  MEMORY_GROUP_ID: `it-memproc-${run}`,
  KAFKAJS_NO_PARTITIONER_WARNING: '1',
  MEMORY_STORE_TIMEOUT_MS: '5000',
};
const children: ChildProcess[] = [];

function startWorker(extra: Record<string, string> = {}) {
  const child = spawn('npx', ['tsx', 'services/memory/src/main.ts'], {
    cwd: repoRoot(),
    env: { ...process.env, ...env, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so SIGTERM reaches the worker under npx as a deployment's would.
    detached: true,
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // 'close' waits for every process holding the pipes (npx and the worker under it) to end.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const listening = async (timeoutMs = 90_000): Promise<number> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (const line of output.split('\n')) {
        if (!line.startsWith('{')) continue;
        const parsed = JSON.parse(line) as { msg?: string; port?: number };
        if (parsed.msg === 'memory listening' && typeof parsed.port === 'number') return parsed.port;
      }
      if (child.exitCode !== null) throw new Error(`memory exited ${child.exitCode}: ${output.slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`memory did not listen: ${output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  return { child, exited, listening, output: () => output };
}

after(async () => {
  for (const child of children) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const es = new Client({ node: endpoints.elasticsearchUrl });
  await es.indices.delete({ index: `${env.ES_INDEX_PREFIX}-*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
  await es.close();
  await createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey })
    .deleteCollection(`${env.ES_INDEX_PREFIX}-healing-cases`)
    .catch(() => undefined);
});

test('a bad rules file stops start-up with exit 78 naming the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'memory-proc-'));
  const path = join(dir, 'rules.v7.json');
  writeFileSync(path, JSON.stringify({ version: 'rules.v7', description: 'x', rules: [{ id: 'r' }], fallback: {} }));
  const worker = startWorker({ MEMORY_RULES_FILE: path });
  assert.equal(await worker.exited, 78);
  assert.ok(worker.output().includes(path), worker.output());
});

test('a bad setting stops start-up with exit 78 naming the variable', async () => {
  const worker = startWorker({ MEMORY_SIMILARITY_THRESHOLD: '7' });
  assert.equal(await worker.exited, 78);
  assert.match(worker.output(), /MEMORY_SIMILARITY_THRESHOLD/);
});

test('the worker process builds cases from Kafka and recommends from them, then stops on SIGTERM', async () => {
  const worker = startWorker();
  const port = await worker.listening();
  const baseUrl = `http://127.0.0.1:${port}`;
  assert.equal((await fetch(`${baseUrl}/healthz`)).status, 200);
  const client = new MemoryClient({ baseUrl, token: TOKEN, timeoutMs: 10_000 });

  const bus = new EventBus(busConfigFromEnv(env, `it-memproc-pub-${run}`), pino({ level: 'warn' }));
  await bus.start(['reports', 'actions']);
  const publisher = await bus.publisher();
  const incident = `inc-proc-${run}`;
  const t = Date.now() - 120_000;
  await publisher.publish(
    'reports',
    report(incident, {
      at: t,
      root_cause: 'knowledge_source_failure',
      affected_component: 'knowledge_source',
      claims: [claim('knowledge_staleness', 'kf_age_days', 240, 3)],
      affected_knowledge_ids: ['pkg/openssl', 'pkg/curl'],
    }),
  );
  await publisher.publish(
    'actions',
    action(incident, { intent: 'switch_backup_source', tool: 'knowledge_source', status: 'succeeded', at: t + 30_000 }),
  );

  const deadline = Date.now() + 60_000;
  let healingCase: { case_id: string; outcome: string; signature: unknown } | undefined;
  while (Date.now() < deadline) {
    healingCase = (await client.get(`/cases/by-incident/${incident}`).catch(() => undefined)) as typeof healingCase;
    if (healingCase?.outcome === 'recovered' && healingCase.signature !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  assert.equal(healingCase?.outcome, 'recovered');

  // Searches see the case after Elasticsearch's refresh interval.
  let answer = await client.recommend(
    {
      incident_id: `inc-proc-new-${run}`,
      root_cause: 'knowledge_source_failure',
      affected_component: 'knowledge_source',
      claims: [{ kind: 'knowledge_staleness', metric: 'kf_age_days', observed: 200, baseline: 2 }],
      affected_knowledge_ids: ['pkg/openssl', 'pkg/curl'],
    },
    10_000,
  );
  for (let i = 0; i < 10 && answer.source !== 'cases'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    answer = await client.recommend(
      {
        incident_id: `inc-proc-new-${run}`,
        root_cause: 'knowledge_source_failure',
        affected_component: 'knowledge_source',
        claims: [{ kind: 'knowledge_staleness', metric: 'kf_age_days', observed: 200, baseline: 2 }],
        affected_knowledge_ids: ['pkg/openssl', 'pkg/curl'],
      },
      10_000,
    );
  }
  assert.equal(answer.source, 'cases', answer.reason);
  assert.equal(answer.strategy[0]?.intent, 'switch_backup_source');
  assert.deepEqual(
    answer.citations.map((c) => c.case_id),
    [healingCase?.case_id],
  );
  assert.match(worker.output(), /\[HEALING\] case .* recovered by switch_backup_source/);

  const admin = bus.kafka.admin();
  await admin.connect();
  const mine = (await admin.listTopics()).filter((name) => name.startsWith(env.BUS_TOPIC_PREFIX ?? ''));
  await bus.stop();
  process.kill(-(worker.child.pid as number), 'SIGTERM');
  const code = await worker.exited;
  // npx itself may die of the signal (null); the worker's own shutdown is in its log.
  assert.ok(code === 0 || code === null, `exit ${code}`);
  assert.match(worker.output(), /shutting down gracefully/);
  assert.doesNotMatch(worker.output(), /shutdown failed|graceful shutdown timed out/);
  await admin.deleteTopics({ topics: mine }).catch(() => undefined);
  await admin.disconnect();
});
