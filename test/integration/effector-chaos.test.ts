/**
 * A repair is never left half-done, on the real stack (issue 29): the effector as a process beside
 * the reference RAG pair (real Qdrant, Kafka, Elasticsearch), RootCauseReports published directly.
 *
 * 1. kill -9 at every step of one action: the process SIGKILLs itself at a crash point
 *    (EFFECTOR_TEST_CRASH_AT) and is replaced under a NEW instance id, as a rescheduled pod would be,
 *    armed with the next point, so one repair is interrupted at all six steps in turn. A step with a
 *    live claim of the dead one is left alone until its lease runs out; then the new one's periodic
 *    sweep takes it over (the RAG put back to its before state first). The repair must end applied
 *    once: Qdrant at the before or the after state at every kill, executions ≤ undos + 1, one
 *    `succeeded` event, the incident recovered, the online answers equal to the baseline's.
 * 2. Elasticsearch goes away in the middle of an undo (a TCP proxy in front of it, for the effector
 *    only, cut while the failed repair is `undoing`): the action stays `undoing` through the outage
 *    and past its lease, nothing else runs, and the undo finishes once Elasticsearch is back.
 *
 * Short lease (15 s, allowed by a 4 s Elasticsearch timeout) and a 1 s sweep keep the takeovers quick.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { Kafka, logLevel } from 'kafkajs';
import { pino } from 'pino';
import { EventBus, busDefaults, parseBusConfig, topicNameOf } from '@rag-immune/bus';
import { exampleRootCauseReport, type RepairAction, type RootCauseReport } from '@rag-immune/contracts';
import { ActionStore, CRASH_POINTS, IncidentStore, effectorIndices, type ActionDoc } from '@rag-immune/effector';
import { elasticsearchStores } from '@rag-immune/es-store';
import { RagClient, callFaultAdmin } from '@rag-immune/rag-contract';
import { loadQuestions, startReferenceRagPair, type ReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { qdrantEnv } from '@rag-immune/stack';
import { ManagedProcess, ProcessStartError, TcpProxy, freePort, logMessage, sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import { createQdrantClient } from '@rag-immune/worker-runtime';

const LEASE_MS = 15_000;
const ns = `it-effchaos-${randomUUID().slice(0, 8)}`;
const logger = pino({ level: 'warn' });
const es = new Client({ node: endpoints.elasticsearchUrl });
const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey, timeoutMs: 120_000 });
const indices = effectorIndices(ns);
const actions = new ActionStore(elasticsearchStores(es), indices.actions);
const incidents = new IncidentStore(elasticsearchStores(es), indices.incidents);

let rags: ReferenceRagPair;
let bus: EventBus;
let publish: (report: RootCauseReport) => Promise<void>;
let proxy: TcpProxy;
let effector: ManagedProcess;
/** Every RepairAction event of the run, in the order the observer read them. */
const events: RepairAction[] = [];
/** Knowledge ids the faults drop, and the probes (questions about them) the reports name. */
let ids: string[] = [];
let probes: RootCauseReport['affected_probes'] = [];
let collection = '';

before(async () => {
  rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    qdrantAlias: false, // the in-place reindex: it has a snapshot step to be killed at
    packages: 6,
    label: ns,
    logger,
  });
  collection = rags.online.config.QDRANT_COLLECTION as string;
  const busConfig = parseBusConfig({
    ...busDefaults('development'),
    clientId: ns,
    brokers: endpoints.kafkaBrokers,
    schemaRegistryUrl: endpoints.schemaRegistryUrl,
    topicPrefix: `${ns}.`,
  });
  bus = new EventBus(busConfig, logger);
  await bus.start(['reports', 'actions']);
  const publisher = await bus.publisher();
  publish = async (report) => void (await publisher.publish('reports', report));
  await bus.subscribe({
    topic: 'actions',
    groupId: `${ns}-observer`,
    fromBeginning: true,
    onPoison: 'skip',
    handle: async (e) => void events.push(e),
  });
  // A new consumer group starts at the latest offset: commit offset 0 for the effector's group first, so
  // the first report is read even if published before the first process has joined.
  const admin = new Kafka({ clientId: ns, brokers: endpoints.kafkaBrokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topic = topicNameOf(busConfig, 'reports');
    const partitions = await admin.fetchTopicOffsets(topic);
    await admin.setOffsets({
      groupId: `${ns}-effector`,
      topic,
      partitions: partitions.map((p) => ({ partition: p.partition, offset: p.low })),
    });
  } finally {
    await admin.disconnect();
  }

  ids = [
    ...new Set(
      loadQuestions()
        .filter((q) => rags.knowledgeIds.has(q.knowledge_id) && q.kind === 'latest_version')
        .map((q) => q.knowledge_id),
    ),
  ].slice(0, 2);
  probes = loadQuestions()
    .filter((q) => ids.includes(q.knowledge_id))
    .slice(0, 3)
    .map((q, k) => ({ probe_id: `p-${k}`, probe_version: 1, query: q.question }));
  assert.equal(ids.length, 2, 'two knowledge ids with latest-version questions');

  proxy = await TcpProxy.start(endpoints.elasticsearchUrl);
  const port = await freePort();
  const runDir = mkdtempSync(join(tmpdir(), `${ns}-`));
  effector = new ManagedProcess({
    name: 'effector',
    entry: 'services/effector/src/main.ts',
    env: {
      KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
      BUS_TOPIC_PREFIX: `${ns}.`,
      // Only the effector goes through the proxy: the test itself reads Elasticsearch directly.
      ELASTICSEARCH_URL: proxy.url,
      ES_INDEX_PREFIX: ns,
      ...qdrantEnv(endpoints),
      ...(endpoints.qdrantSnapshotsPath ? { EFFECTOR_QDRANT_SNAPSHOTS_PATH: endpoints.qdrantSnapshotsPath } : {}),
      EFFECTOR_API_TOKEN: `${ns}-token-0123456789`,
      EFFECTOR_HOST: '127.0.0.1',
      EFFECTOR_PORT: String(port),
      EFFECTOR_MODE: 'auto',
      EFFECTOR_ONLINE_RAG_URL: rags.onlineUrl,
      EFFECTOR_BASELINE_RAG_URL: rags.baselineUrl,
      EFFECTOR_QDRANT_COLLECTION: collection,
      EFFECTOR_GROUP_ID: `${ns}-effector`,
      EFFECTOR_COMPONENT_RATE_LIMIT: '1000',
      EFFECTOR_ES_REQUEST_TIMEOUT_MS: '4000',
      EFFECTOR_LEASE_MS: String(LEASE_MS),
      EFFECTOR_RECOVERY_SWEEP_SECONDS: '1',
      EFFECTOR_UNDO_RETRY_SECONDS: '1',
      EFFECTOR_DRAIN_SECONDS: '0',
      LOG_LEVEL: 'info',
    },
    logFile: join(runDir, 'effector.log'),
    ready: logMessage('effector listening'),
    healthPort: () => port,
    startTimeoutMs: 180_000,
  });
});

after(async () => {
  await effector?.stop(5000);
  await bus?.stop();
  await proxy?.close();
  for (const s of await qdrant.listSnapshots(collection).catch(() => []))
    await qdrant.deleteSnapshot(collection, s.name).catch(() => undefined);
  await rags?.close();
  await es.indices.delete({ index: `${ns}-*` }).catch(() => undefined);
  await es.close();
});

/** (Re)starts the effector under `instanceId`, armed or not; a start it does not survive (killed during its start-up recovery) is no error. */
async function startEffector(instanceId: string, extra: Record<string, string | undefined> = {}): Promise<void> {
  try {
    await effector.restart({
      EFFECTOR_INSTANCE_ID: instanceId,
      EFFECTOR_TEST_CRASH_AT: undefined,
      RAG_IMMUNE_TEST_PAUSE: undefined,
      ...extra,
    });
  } catch (error) {
    if (!(error instanceof ProcessStartError)) throw error;
  }
}

async function until<T>(what: string, check: () => Promise<T | undefined | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what} (effector log: ${effector.spec.logFile})`);
    await sleep(250);
  }
}

/** The in-place reindex of the incident (the repair the kills interrupt). */
const repairOf = async (incident: string): Promise<ActionDoc | undefined> =>
  (await actions.list({ incident })).find((a) => a.tool === 'reindex_knowledge');

const answersOf = async (client: RagClient) => {
  const out = [];
  for (const probe of probes) out.push((await client.query({ query: probe.query })).answer);
  return out;
};

function reportOf(incident: string, patch: Partial<RootCauseReport>): RootCauseReport {
  return {
    ...exampleRootCauseReport(incident),
    affected_knowledge_ids: ids,
    affected_probes: probes,
    recommended_intents: [],
    ...patch,
  };
}

test('kill -9 at every step of one repair, each time replaced under a new instance id: applied once, succeeded once, recovered', async () => {
  const started = Date.now();
  const incident = `${ns}-kills`;
  const countPoints = async () => (await qdrant.count(collection, { exact: true })).count;
  const cleanCount = await countPoints();
  await callFaultAdmin(rags.onlineUrl, 'POST', 'vector-index-corruption', { mode: 'drop', scope: { knowledge_ids: ids } });
  const brokenCount = await countPoints();
  assert.ok(brokenCount < cleanCount, `the fault dropped points (${brokenCount} < ${cleanCount})`);
  await publish(reportOf(incident, { root_cause: 'vector_index_corruption', affected_component: 'vector_index' }));

  const kills: { point: string; instance: string; left: string; qdrant: string }[] = [];
  for (const [k, point] of CRASH_POINTS.entries()) {
    const instance = `${ns}-effector-${k}`;
    await startEffector(instance, { EFFECTOR_TEST_CRASH_AT: point });
    // A live claim of the dead one holds the takeover off for up to a lease, then the repair runs again.
    await until(`${instance} to kill itself ${point}`, async () => !effector.running, 150_000);
    const atKill = await countPoints();
    const doc = await repairOf(incident);
    kills.push({
      point,
      instance,
      left: `${doc?.status} by ${doc?.owner === instance ? 'itself' : (doc?.owner ?? 'nobody')}`,
      qdrant: atKill === brokenCount ? 'before' : atKill === cleanCount ? 'after' : `other(${atKill})`,
    });
  }
  const last = `${ns}-effector-${CRASH_POINTS.length}`;
  await startEffector(last);
  const done = await until(
    'the repair to be succeeded, published and the incident recovered',
    async () => {
      const doc = await repairOf(incident);
      const recovered = (await incidents.get(incident))?.doc.status === 'recovered';
      return doc?.status === 'succeeded' && recovered && events.some((e) => e.incident_id === incident && e.status === 'succeeded')
        ? doc
        : null;
    },
    120_000,
  );
  await sleep(2000); // a late duplicate event would show up meanwhile
  const mine = events.filter((e) => e.incident_id === incident);
  console.log(
    `kills (${((Date.now() - started) / 1000).toFixed(0)} s): ${kills.map((k) => `${k.point}: left ${k.left}, Qdrant ${k.qdrant}`).join('; ')}; ` +
      `executions ${done.executions}, resumes ${done.resumes}; events ${mine.map((e) => `${e.tool}:${e.status}`).join(' ')}`,
  );

  assert.equal(effector.running, true, 'the last, unarmed replica runs');
  // Each replica died where it was armed (the step the action was left at), on the action the previous one left.
  assert.deepEqual(
    kills.map((k) => k.left),
    [
      'planned by nobody', // planned, not yet claimed
      'planned by itself', // claimed and snapshotted, not started
      'started by itself',
      'started by itself', // executed on the RAG, the state not yet written
      'executed by itself',
      'succeeded by itself', // verified, the event not yet published
    ],
  );
  for (const k of kills) assert.ok(k.qdrant === 'before' || k.qdrant === 'after', `Qdrant half-written at ${k.point}: ${k.qdrant}`);
  // No execution on top of an applied one: every re-run was preceded by putting the RAG back.
  assert.ok(done.executions >= 1 && done.executions <= done.resumes + 1, `executions ${done.executions}, resumes ${done.resumes}`);
  // The blue/green rebuild the plan names first does not apply to a RAG without an alias: refused, never run.
  const all = await actions.list({ incident });
  assert.deepEqual(
    all.map((a) => `${a.tool}:${a.status}:${a.executions}`),
    ['reindex_into_new_collection:failed:0', 'reindex_knowledge:succeeded:' + done.executions],
    'one repair ran and succeeded; no other tool ran',
  );
  const repair = mine.filter((e) => e.tool === 'reindex_knowledge');
  assert.equal(repair.filter((e) => e.status === 'succeeded').length, 1, 'succeeded published exactly once');
  assert.equal(repair.filter((e) => ['failed', 'rolled_back', 'escalated'].includes(e.status)).length, 0);
  assert.equal(mine.filter((e) => e.status === 'escalated').length, 0);
  assert.equal(await countPoints(), cleanCount, 'Qdrant at the after state');
  assert.deepEqual(
    await answersOf(new RagClient({ baseUrl: rags.onlineUrl })),
    await answersOf(new RagClient({ baseUrl: rags.baselineUrl })),
  );
  await callFaultAdmin(rags.onlineUrl, 'DELETE', 'vector-index-corruption');
});

test('Elasticsearch unreachable in the middle of an undo: the action stays undoing, nothing else runs, the undo finishes once it is back', async () => {
  const started = Date.now();
  const incident = `${ns}-es-outage`;
  await callFaultAdmin(rags.onlineUrl, 'DELETE', 'vector-index-corruption').catch(() => undefined); // left by a failed test above
  await callFaultAdmin(rags.onlineUrl, 'POST', 'vector-index-corruption', { mode: 'drop', scope: { knowledge_ids: ids } });
  // Named the wrong cause: the reranker pin runs, its verification fails (the index is still broken), it is undone.
  await startEffector(`${ns}-effector-es`, { RAG_IMMUNE_TEST_PAUSE: 'effector.mid-undo', RAG_IMMUNE_TEST_PAUSE_MS: '3000' });
  const from = effector.records.length;
  await publish(reportOf(incident, { root_cause: 'reranker_drift', affected_component: 'reranker' }));
  await effector.waitForLog((r) => r.json?.msg === 'test pause' && r.json.point === 'effector.mid-undo', 180_000, from);
  proxy.cut();
  const cutAt = Date.now();
  const [undoing] = await actions.list({ incident });
  assert.equal(undoing?.status, 'undoing', 'cut while the failed repair is being undone');
  // Past the dead-ended undo attempt and the lease: nobody can take it over, nothing else may run.
  const seen = new Set<string>();
  while (Date.now() - cutAt < LEASE_MS + 5000) {
    const docs = await actions.list({ incident });
    for (const d of docs) seen.add(`${d.tool}:${d.status}`);
    await sleep(500);
  }
  assert.deepEqual([...seen], ['pin_reranker_version:undoing'], 'during the outage');
  assert.ok(proxy.refused > 0, 'the effector tried Elasticsearch during the outage');
  assert.equal(effector.running, true, 'the effector survives the outage');
  proxy.restore();
  const restoredAt = Date.now();
  const closed = await until(
    'the undo to finish and the plan to end',
    async () => ((await incidents.get(incident))?.doc.status === 'escalated' ? actions.list({ incident }) : null),
    120_000,
  );
  const mine = events.filter((e) => e.incident_id === incident).map((e) => `${e.tool}:${e.status}`);
  console.log(
    `ES outage ${((restoredAt - cutAt) / 1000).toFixed(0)} s; undo done ${((Date.now() - restoredAt) / 1000).toFixed(0)} s after; ` +
      `total ${((Date.now() - started) / 1000).toFixed(0)} s; events ${mine.join(' ')}; refused ${proxy.refused} connections`,
  );
  const pin = closed.find((a) => a.tool === 'pin_reranker_version') as ActionDoc;
  assert.equal(pin.status, 'rolled_back');
  assert.equal(pin.executions, 1, 'the failed repair ran once');
  // Nothing ran before the undo was done: the escalation (the plan's next step) was planned after it.
  const next = closed.filter((a) => a.tool !== 'pin_reranker_version');
  assert.deepEqual(
    next.map((a) => a.tool),
    ['escalate_to_human'],
  );
  assert.ok(Date.parse(next[0]!.created_at) >= Date.parse(pin.updated_at), 'the next step was planned after the undo finished');
  // Each lifecycle step of the failed repair published once (the retried undo included).
  assert.deepEqual(
    mine.filter((s) => s.startsWith('pin_reranker_version:')),
    ['pin_reranker_version:planned', 'pin_reranker_version:started', 'pin_reranker_version:failed', 'pin_reranker_version:rolled_back'],
  );
  await callFaultAdmin(rags.onlineUrl, 'DELETE', 'vector-index-corruption');
});
