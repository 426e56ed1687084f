/**
 * Live traffic caught a fault no golden probe could see (issue 38), with real parts: the reference
 * RAG pair exporting its OpenInference spans over OTLP, the spans stored in Elasticsearch in the
 * intake's user-span document shape, the traffic watcher built from its configuration, the real FCS
 * model and ProbeRunner for the replay, the real Kafka and schema registry for the ProbeResults.
 * Simulated users ask about a few knowledge ids; once every segment is profiled, the vectors of one
 * of them, picked at random, are overwritten straight in Qdrant (no fault API). The watcher must
 * flag that segment from traffic alone, confirm it by shadow replay, and publish ProbeResults with
 * origin traffic naming it.
 *
 * Until the intake classifies probe and user traces (wip/traffic-intake), a stand-in OTLP receiver
 * here stores the online RAG's spans as user spans (the replay's own calls included, after the alarm).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { Client } from '@elastic/elasticsearch';
import { trace } from '@opentelemetry/api';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { EventBus, busDefaults, parseBusConfig } from '@rag-immune/bus';
import type { ProbeResult } from '@rag-immune/contracts';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { ProbeRunner, defaultThresholds } from '@rag-immune/probing';
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import { loadQuestions, startReferenceRagPair, type ReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { sleep } from '@rag-immune/test-kit';
import { damageVectors } from '@rag-immune/test-kit/loop/operator-faults';
import { endpoints } from '@rag-immune/test-kit/stack';
import { SPAN_MAPPINGS, decodeProtobufExport } from '@rag-immune/traces';
import { trafficConfigFromEnv } from '../../src/traffic/config.ts';
import { trafficWatcher } from '../../src/traffic/traffic-module.ts';
import type { TrafficWatcher } from '../../src/traffic/traffic-watcher.ts';
import { userSpanIndex } from '../../src/traffic/user-trace-reader.ts';

const run = randomUUID().slice(0, 8);
const prefix = `it-traffic-watch-${run}`;
const index = userSpanIndex(prefix);
const logger = pino({ level: 'warn' });
const es = new Client({ node: endpoints.elasticsearchUrl });
const PROFILE_ANSWERS = 8;
const SEGMENTS = 5;

let receiver: Server;
let rags: ReferenceRagPair;
let bus: EventBus;
let watcher: TrafficWatcher;
const published: ProbeResult[] = [];
let users: { stop: boolean; done: Promise<void> } | undefined;

/** The intake stand-in: OTLP/protobuf from the online RAG, stored in the user-span index's document shape. */
function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(parts);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      const receivedAt = Date.now();
      const spans = decodeProtobufExport(body).spans.filter((s) => s.resource['rag_immune.instance'] === 'online');
      const write =
        spans.length === 0
          ? Promise.resolve()
          : es.bulk({
              operations: spans.flatMap((span) => [
                { index: { _index: index, _id: `${span.trace_id}-${span.span_id}` } },
                {
                  trace_id: span.trace_id,
                  span_id: span.span_id,
                  parent_span_id: span.parent_span_id,
                  name: span.name,
                  service_name: String(span.resource['service.name'] ?? ''),
                  start_ms: span.start_ms,
                  received_at: receivedAt,
                  span,
                },
              ]),
            });
      write.then(
        () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(),
        () => res.writeHead(503).end(),
      );
    });
  });
  return new Promise((resolve) =>
    receiver.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`)),
  );
}

before(async () => {
  await es.indices.create({ index, mappings: SPAN_MAPPINGS, settings: { number_of_replicas: 0 } });
  const otlpTracesUrl = await startReceiver();
  rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages: 25,
    label: `it-traffic-${run}`,
    logger,
    otlpTracesUrl,
  });
  bus = new EventBus(
    parseBusConfig({
      ...busDefaults('development'),
      clientId: `sentinel-traffic-${run}`,
      brokers: endpoints.kafkaBrokers,
      schemaRegistryUrl: endpoints.schemaRegistryUrl,
    }),
  );
  await bus.start(['probes']);
  const publisher = await bus.publisher();
  const fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1 });
  const headers = { 'user-agent': 'rag-immune-sentinel/test' };
  const online = ragClientWithHeaders(rags.onlineUrl, headers, 30_000);
  const runner = new ProbeRunner({
    online,
    baseline: ragClientWithHeaders(rags.baselineUrl, headers, 30_000),
    fcs,
    tracer: trace.getTracer('sentinel-traffic'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 30_000,
    callAttempts: 2,
    version: 'test',
  });
  const config = trafficConfigFromEnv({
    TRAFFIC_WATCH: '1',
    ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
    ES_INDEX_PREFIX: prefix,
    TRAFFIC_POLL_MS: '500',
    TRAFFIC_SETTLE_MS: '1500',
    TRAFFIC_VISIBILITY_MS: '1000',
    TRAFFIC_PROFILE_ANSWERS: String(PROFILE_ANSWERS),
    TRAFFIC_FCS_SHARE: '0.1',
    TRAFFIC_START_LOOKBACK_MS: '60000',
  });
  watcher = trafficWatcher(config, {
    runner,
    publish: async (result) => {
      await publisher.publish('probes', result);
      published.push(result);
    },
    fcs,
    online,
    registry: new Registry(),
    logger,
  });
  watcher.start();
});

after(async () => {
  if (users) {
    users.stop = true;
    await users.done;
  }
  await watcher?.stop();
  await bus?.stop();
  await rags?.close();
  receiver?.close();
  await es.indices.delete({ index }).catch(() => undefined);
  await es.close();
});

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

test('a fault on knowledge only users ask about is caught from traffic, confirmed by replay and published with origin traffic', async () => {
  const asked = [...rags.knowledgeIds].sort(() => Math.random() - 0.5).slice(0, SEGMENTS);
  const questions = loadQuestions().filter((q) => asked.includes(q.knowledge_id));
  assert.ok(questions.length >= SEGMENTS, `questions about ${asked.length} knowledge ids: ${questions.length}`);
  // Simulated users, two at a time, round the questions (no traceparent: user traces).
  const client = ragClientWithHeaders(rags.onlineUrl, { 'user-agent': 'simulated-user' }, 30_000);
  const state = { stop: false, done: Promise.resolve() };
  let next = 0;
  const user = async () => {
    while (!state.stop) {
      const q = questions[next++ % questions.length]!;
      await client.query({ query: q.question }).catch(() => undefined);
      await sleep(50);
    }
  };
  state.done = Promise.all([user(), user()]).then(() => undefined);
  users = state;

  const profiled = await waitFor(
    'every asked segment profiled',
    () => {
      const segments = watcher.segments().filter((s) => s.profiled && asked.includes(s.segment));
      return segments.length >= Math.min(3, asked.length) ? segments : undefined;
    },
    120_000,
  );
  assert.equal(watcher.outcomes.length, 0, 'clean traffic flagged nothing');
  const target = profiled[Math.floor(Math.random() * profiled.length)]!.segment;
  const damaged = await damageVectors(
    { qdrantUrl: endpoints.qdrantUrl, qdrantApiKey: endpoints.qdrantApiKey, collection: rags.online.index.collection },
    [target],
    'garbage',
  );
  assert.deepEqual(damaged, [target]);

  const outcome = await waitFor('the replay of the damaged segment', () => watcher.outcomes.find((o) => o.segment === target), 120_000);
  const others = watcher.outcomes.filter((o) => o.segment !== target);
  assert.deepEqual(
    others.map((o) => o.segment),
    [],
    'no other segment flagged',
  );
  assert.equal(outcome.confirmed, true, `replay: ${JSON.stringify(outcome)}`);
  assert.ok(outcome.replayed >= 1);
  const fromTraffic = published.filter((r) => r.origin === 'traffic');
  assert.ok(fromTraffic.length >= 1);
  assert.ok(fromTraffic.every((r) => r.segment === target && r.anomaly && r.probe_id.startsWith('traffic-')));
});
