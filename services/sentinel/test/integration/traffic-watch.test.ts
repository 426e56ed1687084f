/**
 * Live traffic caught a fault no golden probe could see (issue 38), with real parts: the reference
 * RAG pair exporting its OpenInference spans over OTLP to the real trace intake (a process), which
 * keeps the users' spans, redacted, apart from the probes' in Elasticsearch; the traffic watcher
 * built from its configuration; the real FCS model and ProbeRunner for the replay (its calls carry
 * the probe tracestate, so the intake keeps them out of the user spans); the real Kafka and schema
 * registry for the ProbeResults.
 * Simulated users ask about a few knowledge ids; once every segment is profiled, the vectors of one
 * of them, picked at random, are overwritten straight in Qdrant (no fault API). The watcher must
 * flag that segment from traffic alone, confirm it by shadow replay, and publish ProbeResults with
 * origin traffic naming it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { ManagedProcess, freePort, logMessage, sleep } from '@rag-immune/test-kit';
import { damageVectors } from '@rag-immune/test-kit/loop/operator-faults';
import { endpoints } from '@rag-immune/test-kit/stack';
import { trafficConfigFromEnv } from '../../src/traffic/config.ts';
import { trafficWatcher } from '../../src/traffic/traffic-module.ts';
import type { TrafficWatcher } from '../../src/traffic/traffic-watcher.ts';

const run = randomUUID().slice(0, 8);
const prefix = `it-traffic-watch-${run}`;
const logger = pino({ level: 'warn' });
const es = new Client({ node: endpoints.elasticsearchUrl });
const PROFILE_ANSWERS = 8;
const SEGMENTS = 5;

let intake: ManagedProcess;
let rags: ReferenceRagPair;
let bus: EventBus;
let watcher: TrafficWatcher;
const published: ProbeResult[] = [];
let users: { stop: boolean; done: Promise<void> } | undefined;

before(async () => {
  const intakePort = await freePort();
  intake = new ManagedProcess({
    name: 'trace-intake',
    entry: 'services/trace-intake/src/main.ts',
    env: {
      ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
      ES_INDEX_PREFIX: prefix,
      TRACE_INTAKE_HOST: '127.0.0.1',
      TRACE_INTAKE_PORT: String(intakePort),
      LOG_LEVEL: 'info',
    },
    logFile: join(mkdtempSync(join(tmpdir(), 'traffic-watch-')), 'trace-intake.log'),
    ready: logMessage('trace intake listening'),
    healthPort: () => intakePort,
    startTimeoutMs: 120_000,
  });
  await intake.start();
  const otlpTracesUrl = `http://127.0.0.1:${intakePort}/v1/traces`;
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
  await intake?.stop();
  await es.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
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
  // The replay's calls are probe traffic: the intake kept them out of the users' spans the watcher reads.
  await es.indices.refresh({ index: `${prefix}-*` });
  const replayTraces = fromTraffic.map((r) => r.online.trace_id).filter((id): id is string => id !== null);
  assert.ok(replayTraces.length > 0, 'the replayed calls name their traces');
  const inUserSpans = await es.count({ index: `${prefix}-otlp-user-spans`, query: { terms: { trace_id: replayTraces } } });
  assert.equal(inUserSpans.count, 0);
  const userSpans = await es.count({ index: `${prefix}-otlp-user-spans` });
  assert.ok(userSpans.count > 0, 'the users spans went to their own index');
});
