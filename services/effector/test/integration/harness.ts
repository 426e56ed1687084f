/**
 * Shared set-up of the effector's integration tests: a reference RAG pair (qdrant-local, real MiniLM),
 * the real Kafka/registry under a unique topic prefix, Elasticsearch under a unique index prefix, the
 * real FCS model, an effector worker in-process, a publisher of RootCauseReports and a collector of
 * the RepairAction events — and the clean-up of everything created.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { Client } from '@elastic/elasticsearch';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { EventBus, busDefaults, parseBusConfig, type BusConfig, type EventPublisher } from '@rag-immune/bus';
import { exampleRootCauseReport, type RepairAction, type RootCauseReport } from '@rag-immune/contracts';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { RagClient, callFaultAdmin } from '@rag-immune/rag-contract';
import { qdrantEnv } from '@rag-immune/stack';
import { sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import { isExactAnswer, loadQuestions, startReferenceRagPair, type ReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { effectorConfigFromEnv, startEffectorWorker, type EffectorWorker, type IncidentOutcome } from '../../src/index.ts';

export const API_TOKEN = 'effector-test-token-0123456789';
export const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'warn' });

let fcsPromise: Promise<FactConsistencyScorer> | undefined;
export function sharedFcs(): Promise<FactConsistencyScorer> {
  fcsPromise ??= FactConsistencyScorer.load({ intraOpNumThreads: 1, logger: false });
  return fcsPromise;
}

export interface Harness {
  run: string;
  rags: ReferenceRagPair;
  online: RagClient;
  baseline: RagClient;
  collection: string;
  busConfig: BusConfig;
  esPrefix: string;
  es: Client;
  qdrant: QdrantClient;
  publisher: EventPublisher;
  events: RepairAction[];
  outcomes: { report: RootCauseReport; outcome: IncidentOutcome | Error }[];
  env: Record<string, string>;
  startWorker(extraEnv?: Record<string, string>): Promise<EffectorWorker>;
  /** A worker in its own consumer group, returned once it has demonstrably received a report (its partitions are assigned). */
  startWorkerReady(extraEnv?: Record<string, string>): Promise<EffectorWorker>;
  publishReport(report: RootCauseReport): Promise<void>;
  waitFor(predicate: (events: RepairAction[]) => boolean, timeoutMs?: number, what?: string): Promise<RepairAction[]>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions read the API's JSON freely
  api(worker: EffectorWorker, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

export async function startHarness(label: string, packages = 12, options: { qdrantAlias?: boolean } = {}): Promise<Harness> {
  const run = randomUUID().slice(0, 8);
  const rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    ...options,
    packages,
    label: `it-eff-${label}`,
    logger,
  });
  const collection = rags.online.config.QDRANT_COLLECTION as string;
  const busConfig = parseBusConfig({
    ...busDefaults('development'),
    clientId: `effector-it-${run}`,
    brokers: endpoints.kafkaBrokers,
    schemaRegistryUrl: endpoints.schemaRegistryUrl,
    topicPrefix: `it-eff-${label}-${run}.`,
  });
  const esPrefix = `it-eff-${label}-${run}`;
  const es = new Client({ node: endpoints.elasticsearchUrl });
  const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
  const bus = new EventBus(busConfig, logger);
  await bus.start(['reports', 'actions']);
  const publisher = await bus.publisher();
  const events: RepairAction[] = [];
  await bus.subscribe({
    topic: 'actions',
    groupId: `it-eff-observer-${run}`,
    fromBeginning: true,
    onPoison: 'skip',
    handle: async (e) => void events.push(e),
  });
  const workers: EffectorWorker[] = [];
  const outcomes: Harness['outcomes'] = [];
  const env: Record<string, string> = {
    EFFECTOR_API_TOKEN: API_TOKEN,
    EFFECTOR_PORT: '0',
    EFFECTOR_ONLINE_RAG_URL: rags.onlineUrl,
    EFFECTOR_BASELINE_RAG_URL: rags.baselineUrl,
    EFFECTOR_QDRANT_COLLECTION: collection,
    ...(endpoints.qdrantSnapshotsPath ? { EFFECTOR_QDRANT_SNAPSHOTS_PATH: endpoints.qdrantSnapshotsPath } : {}),
    ...qdrantEnv(endpoints),
    ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
    ES_INDEX_PREFIX: esPrefix,
    EFFECTOR_MODE: 'auto',
    EFFECTOR_GROUP_ID: `it-eff-${run}`,
    EFFECTOR_INSTANCE_ID: `it-eff-${run}-a`,
    EFFECTOR_VERIFY_TIMEOUT_MS: '90000',
    // Escalations at once unless a test is about the grace (the warm-up knocks are abstentions).
    EFFECTOR_ABSTENTION_GRACE_SECONDS: '0',
  };
  const harness: Harness = {
    run,
    rags,
    online: new RagClient({ baseUrl: rags.onlineUrl, timeoutMs: 60_000 }),
    baseline: new RagClient({ baseUrl: rags.baselineUrl, timeoutMs: 60_000 }),
    collection,
    busConfig,
    esPrefix,
    es,
    qdrant,
    publisher,
    events,
    outcomes,
    env,
    async startWorker(extraEnv = {}) {
      const worker = await startEffectorWorker({
        config: effectorConfigFromEnv({ ...env, ...extraEnv }),
        busConfig: { ...busConfig, clientId: `effector-${run}-${workers.length}` },
        logger,
        fcs: await sharedFcs(),
        onOutcome: (report, outcome) => outcomes.push({ report, outcome }),
      });
      workers.push(worker);
      return worker;
    },
    async startWorkerReady(extraEnv = {}) {
      const id = randomUUID().slice(0, 6);
      const worker = await harness.startWorker({
        EFFECTOR_GROUP_ID: `it-eff-${run}-${id}`,
        EFFECTOR_INSTANCE_ID: `it-eff-${run}-${id}`,
        ...extraEnv,
      });
      // A new group starts at the latest offset: knock until the worker answers.
      const deadline = Date.now() + 150_000;
      for (let attempt = 0; Date.now() < deadline; attempt += 1) {
        const incident = `warmup-${run}-${id}-${attempt}`;
        await publisher.publish(
          'reports',
          reportFor(incident, 'unknown', 'unknown', [{ id: 'warmup', query: 'What is the latest version of bash?' }], []),
        );
        for (let i = 0; i < 15; i += 1) {
          // Any knock answered will do: with an abstention grace the answer comes after the grace.
          if (outcomes.some((o) => o.report.incident_id.startsWith(`warmup-${run}-${id}-`))) return worker;
          await sleep(200);
        }
      }
      throw new Error('the worker never received a report');
    },
    async publishReport(report) {
      await publisher.publish('reports', report);
    },
    async waitFor(predicate, timeoutMs = 120_000, what = 'events') {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(events)) {
        if (Date.now() > deadline)
          throw new Error(
            `timed out waiting for ${what}; events: ${events.map((e) => `${e.incident_id}/${e.tool}/${e.status}${e.failure ? `(${e.failure.reason}: ${e.failure.message})` : ''}`).join(' | ')}`,
          );
        await sleep(200);
      }
      return events;
    },
    async api(worker, method, path, body) {
      const response = await fetch(`${worker.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${API_TOKEN}`, 'content-type': 'application/json', 'x-immune-actor': 'it-oncall' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, json: await response.json().catch(() => null) };
    },
    async close() {
      for (const worker of workers) await worker.stop().catch(() => undefined);
      await bus.stop();
      for (const snapshot of await qdrant.listSnapshots(collection).catch(() => []))
        await qdrant.deleteSnapshot(collection, snapshot.name).catch(() => undefined);
      await rags.close();
      await es.indices.delete({ index: `${esPrefix}-*` }).catch(() => undefined);
      await es.close();
    },
  };
  return harness;
}

/** A RootCauseReport as the identifier would publish it, naming the fault and the probes it degraded. */
export function reportFor(
  incidentId: string,
  rootCause: RootCauseReport['root_cause'],
  component: RootCauseReport['affected_component'],
  probes: { id: string; query: string }[],
  knowledgeIds: string[],
  revision = 1,
): RootCauseReport {
  const base = exampleRootCauseReport(incidentId);
  return {
    ...base,
    report_revision: revision,
    root_cause: rootCause,
    affected_component: component,
    confidence: 0.9,
    claims: [
      { ...base.claims[0]!, kind: 'answer_fact_mismatch', subject: probes[0]?.id ?? 'p', metric: 'fcs', observed: 0.2, baseline: 0.9 },
    ],
    affected_probes: probes.map((p) => ({ probe_id: p.id, probe_version: 1, query: p.query })),
    affected_knowledge_ids: knowledgeIds,
    recommended_intents: [],
    window_start: Date.now() - 60_000,
    window_end: Date.now(),
  };
}

/** Up to three changelog knowledge ids of the RAG's subset whose latest version changed since the baseline's knowledge date. */
export function changedSinceBaseline(h: Harness): string[] {
  return [
    ...new Set(
      loadQuestions()
        .filter((q) => h.rags.knowledgeIds.has(q.knowledge_id) && q.kind === 'latest_version' && q.expected !== q.expected_baseline)
        .map((q) => q.knowledge_id),
    ),
  ].slice(0, 3);
}

/**
 * Drops the vectors of the changedSinceBaseline ids; returns the ids hit and up to three questions the corruption demonstrably degraded (at least one).
 */
export async function injectVectorCorruption(h: Harness): Promise<{ affected: string[]; probes: ReturnType<typeof questionsAbout> }> {
  const injected = await fault(h, 'POST', 'vector-index-corruption', { mode: 'drop', scope: { knowledge_ids: changedSinceBaseline(h) } });
  const affected = injected.fault?.affected_knowledge_ids ?? [];
  const probes = await degradedQuestions(h, questionsAbout(affected), 3);
  assert.ok(probes.length > 0, 'the corruption degrades some answers');
  return { affected, probes };
}

/** Labelled questions about the given knowledge ids. */
export function questionsAbout(knowledgeIds: Iterable<string>): { id: string; query: string; knowledge_id: string; expected: string }[] {
  const ids = new Set(knowledgeIds);
  return loadQuestions()
    .filter((q) => ids.has(q.knowledge_id))
    .map((q) => ({
      id: q.id
        .replace(/[^a-z0-9._-]/gi, '-')
        .toLowerCase()
        .slice(0, 120),
      query: q.question,
      knowledge_id: q.knowledge_id,
      expected: q.expected,
    }));
}

/** Online answers to the queries (for before/after comparisons). */
export async function answers(client: RagClient, queries: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const query of queries) out.push((await client.query({ query })).answer);
  return out;
}

/** The questions whose online answer the fault made differ from the baseline's (up to `max`). */
export async function degradedQuestions(h: Harness, candidates: ReturnType<typeof questionsAbout>, max = 3) {
  const picked: ReturnType<typeof questionsAbout> = [];
  for (const q of candidates) {
    if (picked.length >= max) break;
    const [online, baseline] = [await h.online.query({ query: q.query }), await h.baseline.query({ query: q.query })];
    if (online.answer !== baseline.answer && isExactAnswer(baseline.answer, q.expected)) picked.push(q);
  }
  return picked;
}

export const fault = (h: Harness, method: 'POST' | 'DELETE', kind: string, body: unknown = {}) =>
  callFaultAdmin(h.rags.onlineUrl, method, kind, body);

export function lifecycle(events: RepairAction[], incidentId: string): string[] {
  return events.filter((e) => e.incident_id === incidentId).map((e) => `${e.tool}:${e.status}`);
}
