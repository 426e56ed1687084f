/**
 * Case writes wait while Elasticsearch is unreachable and are not lost: the worker reaches the real
 * Elasticsearch through a TCP relay this test owns (the shared server is never stopped); the relay
 * is cut, events are published, nothing is written, /recommend answers degraded from rules; the
 * relay comes back and the redelivered events make the complete case.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { EventBus, busConfigFromEnv } from '@rag-immune/bus';
import { SentenceEmbedder } from '@rag-immune/embeddings';
import { MemoryClient } from '@rag-immune/memory-client';
import { qdrantEnv } from '@rag-immune/stack';
import { endpoints } from '@rag-immune/test-kit/stack';
import { caseIdOf, memoryConfigFromEnv, MemoryWorker } from '../../src/index.ts';
import { action, report } from '../support/events.ts';

const run = randomUUID().slice(0, 8);
const esTarget = new URL(endpoints.elasticsearchUrl);

/** A relay to Elasticsearch that the test can cut (closing every connection) and restore on the same port. */
class Relay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async open(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(Number(esTarget.port), esTarget.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

const relay = new Relay();
let worker: MemoryWorker | undefined;
let bus: EventBus | undefined;
let embedder: SentenceEmbedder | undefined;

after(async () => {
  await relay.open().catch(() => undefined);
  await bus?.stop();
  if (worker) {
    await worker.store.drop().catch(() => undefined);
    await worker.store.es.indices.delete({ index: worker.audit.index, ignore_unavailable: true }).catch(() => undefined);
    await worker.stop();
  }
  await relay.cut();
  await embedder?.release();
});

test('events published while Elasticsearch is unreachable are recorded once it is back', async () => {
  await relay.open();
  const env = {
    KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
    BUS_TOPIC_PREFIX: `it-memout-${run}.`,
    ELASTICSEARCH_URL: `http://127.0.0.1:${relay.port}`,
    ...qdrantEnv(endpoints),
    ES_INDEX_PREFIX: `it-memout-${run}`,
    MEMORY_PORT: '0',
    MEMORY_GROUP_ID: `it-memout-${run}`,
    MEMORY_FORGET_INTERVAL_SECONDS: '0',
    MEMORY_STORE_TIMEOUT_MS: '500',
  };
  embedder = await SentenceEmbedder.load();
  worker = new MemoryWorker({
    config: memoryConfigFromEnv(env),
    busConfig: busConfigFromEnv(env, `it-memout-${run}`),
    embedder,
    logger: pino({ level: 'fatal' }),
    tracer: trace.getTracer('it'),
  });
  const { port } = await worker.start();
  await worker.ensureStores();
  const client = new MemoryClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 5000 });

  await relay.cut();
  bus = new EventBus(busConfigFromEnv(env, `it-memout-pub-${run}`), pino({ level: 'fatal' }));
  await bus.start(['reports', 'actions']);
  const publisher = await bus.publisher();
  const incident = `inc-out-${run}`;
  const t = Date.now() - 60_000;
  await publisher.publish('reports', report(incident, { at: t }));
  await publisher.publish('actions', action(incident, { intent: 'rollback_reranker', status: 'succeeded', at: t + 10_000 }));

  const degraded = await client.recommend({ incident_id: `inc-ask-${run}`, root_cause: 'reranker_drift', affected_component: 'reranker' });
  assert.equal(degraded.degraded, true);
  assert.equal(degraded.source, 'rules');
  await new Promise((resolve) => setTimeout(resolve, 4000));
  // Read through the real server directly: nothing could be written while the relay was cut.
  const caseId = caseIdOf('default', incident);
  const { Client } = await import('@elastic/elasticsearch');
  const direct = new Client({ node: endpoints.elasticsearchUrl });
  const before = await direct.exists({ index: worker.store.options.casesIndex, id: caseId });
  assert.equal(before, false);

  await relay.open();
  const deadline = Date.now() + 90_000;
  let outcome: string | undefined;
  let sources = 0;
  while (Date.now() < deadline) {
    const doc = await direct
      .get<{ outcome: string; card: { source_event_ids: string[] }; signature: unknown }>({
        index: worker.store.options.casesIndex,
        id: caseId,
      })
      .catch(() => undefined);
    outcome = doc?._source?.outcome;
    sources = doc?._source?.card.source_event_ids.length ?? 0;
    if (outcome === 'recovered' && sources === 2 && doc?._source?.signature) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await direct.close();
  assert.equal(outcome, 'recovered');
  assert.equal(sources, 2);

  const admin = bus.kafka.admin();
  await admin.connect();
  const mine = (await admin.listTopics()).filter((name) => name.startsWith(env.BUS_TOPIC_PREFIX));
  await admin.deleteTopics({ topics: mine }).catch(() => undefined);
  await admin.disconnect();
});
