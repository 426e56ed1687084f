/**
 * The memory worker on the real stack: report and action events through real Kafka (unique topic
 * prefix) become cases in Elasticsearch and Qdrant (unique index prefix), /recommend cites the right
 * cases, falls back to the rules below the threshold, forgetting compacts near-duplicates in both
 * stores, and an instance whose stores are unreachable answers from rules with the degraded flag.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { EventBus, busConfigFromEnv } from '@rag-immune/bus';
import { SentenceEmbedder } from '@rag-immune/embeddings';
import { MemoryClient, Recommendation, type RecommendRequest } from '@rag-immune/memory-client';
import { repoRoot, qdrantEnv } from '@rag-immune/stack';
import { sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import { memoryConfigFromEnv, MemoryWorker, type HealingCase } from '../../src/index.ts';
import { action, claim, exampleIndexDiff, report } from '../support/events.ts';

const run = randomUUID().slice(0, 8);
const logger = pino({ level: 'warn' });
const TOKEN = `memory-test-token-${run}`;
const env = {
  KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
  SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
  BUS_TOPIC_PREFIX: `it-memory-${run}.`,
  ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
  ...qdrantEnv(endpoints),
  ES_INDEX_PREFIX: `it-memory-${run}`,
  MEMORY_PORT: '0',
  MEMORY_API_TOKEN: TOKEN,
  MEMORY_GROUP_ID: `it-memory-${run}`,
  MEMORY_FORGET_INTERVAL_SECONDS: '0',
  // Generous: on a saturated CI machine a store call past the budget would (rightly) answer degraded.
  MEMORY_STORE_TIMEOUT_MS: '5000',
};

let embedder: SentenceEmbedder;
let worker: MemoryWorker;
let deadWorker: MemoryWorker | undefined;
let bus: EventBus;
let client: MemoryClient;
let baseUrl: string;

const rerankClaims = (observed = 0.41) => [claim('rerank_score_shift', 'top1_rerank_score', observed, 0.92)];
/** The same claims as a RecommendRequest carries them (no ledger ids, no subject). */
const asked = (claims: ReturnType<typeof claim>[]) =>
  claims.map(({ kind, metric, observed, baseline }) => ({ kind, metric, observed, baseline }));

async function caseOf(incidentId: string, until: (c: HealingCase) => boolean, timeoutMs = 60_000): Promise<HealingCase> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const c = (await client.get(`/cases/by-incident/${encodeURIComponent(incidentId)}`)) as HealingCase;
      if (until(c)) return c;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) throw new Error(`case of ${incidentId} not as expected within ${timeoutMs} ms`);
    await sleep(250);
  }
}

async function recommend(request: RecommendRequest): Promise<Recommendation> {
  return client.recommend(request, 10_000);
}

before(async () => {
  embedder = await SentenceEmbedder.load();
  const config = memoryConfigFromEnv(env);
  worker = new MemoryWorker({
    config,
    busConfig: busConfigFromEnv(env, `it-memory-${run}`),
    embedder,
    logger,
    tracer: trace.getTracer('it'),
  });
  const { port } = await worker.start();
  baseUrl = `http://127.0.0.1:${port}`;
  client = new MemoryClient({ baseUrl, token: TOKEN, timeoutMs: 10_000 });
  bus = new EventBus(busConfigFromEnv(env, `it-memory-pub-${run}`), logger);
  await bus.start(['reports', 'actions']);
});

after(async () => {
  if (bus) {
    const admin = bus.kafka.admin();
    await admin.connect();
    const mine = (await admin.listTopics()).filter((name) => name.startsWith(env.BUS_TOPIC_PREFIX));
    await admin.deleteTopics({ topics: mine }).catch(() => undefined);
    await admin.disconnect();
  }
  await bus?.stop();
  await deadWorker?.stop();
  if (worker) {
    await worker.audit.flush();
    await worker.store.drop();
    await worker.store.es.indices.delete({ index: worker.audit.index, ignore_unavailable: true });
    await worker.stop();
  }
  await embedder?.release();
});

const incidents = {
  a: `inc-a-${run}`,
  b: `inc-b-${run}`,
  c: `inc-c-${run}`,
  d: `inc-d-${run}`,
};

test('reports and actions from Kafka become cases in Elasticsearch and Qdrant, out of order and duplicated', async () => {
  const publisher = await bus.publisher();
  const t = Date.now() - 3_600_000;
  // a: the action arrives before its report
  const aReport = report(incidents.a, { at: t, claims: rerankClaims(0.41) });
  const aAction = action(incidents.a, { intent: 'rollback_reranker', tool: 'pin_reranker', status: 'succeeded', at: t + 60_000 });
  await publisher.publish('actions', aAction);
  await publisher.publish('reports', aReport);
  // b: a failed rebuild first, then the rollback that healed
  await publisher.publish('reports', report(incidents.b, { at: t + 1000, claims: rerankClaims(0.38) }));
  await publisher.publish(
    'actions',
    action(incidents.b, { intent: 'rebuild_index_incremental', tool: 'reindex', status: 'failed', at: t + 30_000 }),
  );
  await publisher.publish(
    'actions',
    action(incidents.b, { intent: 'rollback_reranker', tool: 'pin_reranker', status: 'succeeded', attempt: 2, at: t + 90_000 }),
  );
  // c: another cause altogether
  await publisher.publish(
    'reports',
    report(incidents.c, {
      at: t + 2000,
      root_cause: 'vector_index_corruption',
      affected_component: 'vector_index',
      claims: [claim('retrieval_score_shift', 'top1_retrieval_score', 0.2, 0.85)],
      affected_knowledge_ids: ['pkg/openssl', 'pkg/curl'],
      index_diff: exampleIndexDiff(),
    }),
  );
  await publisher.publish(
    'actions',
    action(incidents.c, { intent: 'rebuild_index_incremental', tool: 'reindex', status: 'succeeded', at: t + 50_000 }),
  );

  const a = await caseOf(incidents.a, (c) => c.signature !== null && c.outcome === 'recovered');
  assert.deepEqual(a.intents, ['rollback_reranker']);
  assert.equal(a.card.source_event_ids.length, 2);
  assert.equal(a.time_to_recovery_ms, t + 60_000 - aReport.window_start);
  const b = await caseOf(incidents.b, (c) => c.outcome === 'recovered' && c.actions.length === 2);
  assert.deepEqual(b.intents, ['rebuild_index_incremental', 'rollback_reranker']);
  const c = await caseOf(incidents.c, (x) => x.outcome === 'recovered' && x.signature !== null);

  // A redelivered event (same event_id) changes nothing.
  await worker.handleEvent({ kind: 'report', event: aReport });
  const again = await caseOf(incidents.a, () => true);
  assert.deepEqual(again.card.source_event_ids, a.card.source_event_ids);

  // Each case has its point in Qdrant with the filter payload, and its document in Elasticsearch.
  const points = await worker.store.qdrant.retrieve(worker.store.options.collection, { ids: [a.case_id, c.case_id], with_payload: true });
  const payloads = new Map(points.map((p) => [String(p.id), p.payload]));
  assert.equal(payloads.get(a.case_id)?.root_cause, 'reranker_drift');
  assert.equal(payloads.get(c.case_id)?.affected_component, 'vector_index');
  assert.equal(payloads.get(a.case_id)?.status, 'active');
  const doc = await worker.store.get(b.case_id);
  assert.equal(doc?.healingCase.outcome, 'recovered');
  // The index diff its report carried is kept with the case, through the Avro bus and Elasticsearch.
  const stored = await worker.store.get(c.case_id);
  assert.deepEqual(stored?.healingCase.signature?.index_diff, exampleIndexDiff());
  assert.equal(doc?.healingCase.signature?.index_diff, null, 'a report without a diff keeps none');
});

test('/recommend cites the similar cases and recommends what healed them; the call is audited', async () => {
  await worker.store.refresh();
  const answer = await recommend({
    incident_id: `inc-new-${run}`,
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    claims: asked(rerankClaims(0.4)),
  });
  assert.equal(answer.source, 'cases', answer.reason);
  assert.equal(answer.degraded, false);
  assert.equal(answer.reason, 'similar_cases');
  assert.equal(answer.strategy[0]?.intent, 'rollback_reranker');
  assert.equal(answer.strategy[0]?.tool, 'pin_reranker');
  assert.ok(!answer.strategy.some((s) => s.intent === 'rebuild_index_incremental'), 'the rebuild failed on a similar case');
  const [a, b, c] = await Promise.all([caseOf(incidents.a, () => true), caseOf(incidents.b, () => true), caseOf(incidents.c, () => true)]);
  const cited = new Set(answer.citations.map((x) => x.case_id));
  assert.ok(cited.has(a.case_id) && cited.has(b.case_id), JSON.stringify(answer.citations));
  assert.ok(!cited.has(c.case_id), 'a case of another cause is filtered out before ranking');
  assert.ok((answer.top_similarity ?? 0) >= 0.6);
  for (const citation of answer.citations) assert.equal(citation.outcome, 'recovered');

  await worker.audit.flush();
  const record = await worker.audit.get(answer.audit_id);
  assert.ok(record, 'audit record written');
  assert.equal(record.returned.reason, 'similar_cases');
  assert.ok(record.vector_candidates.some((v) => v.case_id === a.case_id));
  assert.ok(record.bm25_candidates.length > 0);
  assert.ok(record.fused.length >= 2);
  assert.match(record.query_text, /reranker drift/);

  // The asking incident's own case is never its own precedent.
  const own = await recommend({
    incident_id: incidents.a,
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    claims: asked(rerankClaims(0.41)),
  });
  assert.ok(!own.citations.some((x) => x.case_id === a.case_id));
});

test('excluded intents and dissimilar incidents fall back to the rules and say why', async () => {
  const excluded = await recommend({
    incident_id: `inc-ex-${run}`,
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    claims: asked(rerankClaims(0.4)),
    exclude_intents: ['rollback_reranker'],
  });
  assert.equal(excluded.source, 'rules');
  assert.match(excluded.reason, /^no_successful_strategy_in_similar_cases/);
  assert.ok(!excluded.strategy.some((s) => s.intent === 'rollback_reranker'));
  assert.equal(excluded.rules_version, 'rules.v1.1');

  const unlike = await recommend({
    incident_id: `inc-unlike-${run}`,
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    claims: asked([claim('knowledge_staleness', 'kf_age_days', 400, 3)]),
    affected_knowledge_ids: Array.from({ length: 30 }, (_, i) => `pkg/p${i}`),
  });
  assert.equal(unlike.source, 'rules');
  assert.match(unlike.reason, /^below_similarity_threshold; rule reranker-drift-rollback/);
  assert.ok(unlike.top_similarity !== null && unlike.top_similarity < 0.6, String(unlike.top_similarity));
  assert.equal(unlike.strategy[0]?.intent, 'rollback_reranker');
  assert.equal(unlike.degraded, false);

  const noCase = await recommend({ incident_id: `inc-tok-${run}`, root_cause: 'tokenizer_anomaly', affected_component: 'tokenizer' });
  assert.equal(noCase.source, 'rules');
  assert.match(noCase.reason, /^no_candidate_cases/);
  assert.equal(noCase.strategy[0]?.intent, 'add_query_rewrite_rule');
});

test('bad requests are 400 with a message, missing token 401, unknown case 404', async () => {
  const post = (body: unknown, token: string | null = TOKEN) =>
    fetch(`${baseUrl}/recommend`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const bad = await post({ incident_id: 'x', root_cause: 'gremlins', affected_component: 'reranker' });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /root_cause/);
  assert.equal((await post({ incident_id: 'x', root_cause: 'reranker_drift', affected_component: 'reranker' }, null)).status, 401);
  const missing = await fetch(`${baseUrl}/cases/by-incident/nope-${run}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(missing.status, 404);
  const list = (await client.get('/cases?limit=10')) as { total: number; cases: HealingCase[] };
  assert.ok(list.total >= 3);
  const metrics = await (await fetch(`${baseUrl}/metrics`)).text();
  assert.match(metrics, /memory_recommendations_total\{source="cases",degraded="false"\} [1-9]/);
  assert.match(metrics, /memory_rule_fallbacks_total\{reason="below_similarity_threshold; rule reranker-drift-rollback"\} 1/);
});

test('the CLI shows cases and what memory would recommend for an incident, with citations', async () => {
  const cli = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'apps/cli/src/main.ts', 'cases', ...args, '--url', baseUrl], {
      cwd: repoRoot(),
      env: { ...process.env, IMMUNE_API_TOKEN: TOKEN },
    });
  const b = await caseOf(incidents.b, () => true);
  const a = await caseOf(incidents.a, () => true);
  const { stdout } = await cli('recommend', '--incident', incidents.b, '--json');
  const answer = Recommendation.parse(JSON.parse(stdout));
  assert.equal(answer.incident_id, incidents.b);
  assert.equal(answer.source, 'cases');
  assert.equal(answer.strategy[0]?.intent, 'rollback_reranker');
  assert.ok(answer.citations.some((c) => c.case_id === a.case_id));
  assert.ok(!answer.citations.some((c) => c.case_id === b.case_id));
  const shown = await cli('show', incidents.b);
  assert.match(shown.stdout, new RegExp(`case +${b.case_id}`));
  assert.match(shown.stdout, /action .* rebuild_index_incremental via reindex .*: failed/);
  const listed = await cli('list', '--cause', 'vector_index_corruption');
  assert.match(listed.stdout, new RegExp(incidents.c));
  assert.doesNotMatch(listed.stdout, new RegExp(incidents.a));
  await assert.rejects(
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'apps/cli/src/main.ts', 'cases', 'show', 'no-such-case', '--url', baseUrl], {
      cwd: repoRoot(),
      env: { ...process.env, IMMUNE_API_TOKEN: TOKEN },
    }),
    (error: { code?: number; stderr?: string }) => error.code === 66 && /404/.test(error.stderr ?? ''),
  );
});

test('forgetting compacts a near-duplicate in both stores, recorded, and the superseded case is no longer cited', async () => {
  const publisher = await bus.publisher();
  const t = Date.now() - 600_000;
  await publisher.publish('reports', report(incidents.d, { at: t, claims: rerankClaims(0.43) }));
  await publisher.publish(
    'actions',
    action(incidents.d, { intent: 'rollback_reranker', tool: 'pin_reranker', status: 'succeeded', at: t + 20_000 }),
  );
  const d = await caseOf(incidents.d, (c) => c.outcome === 'recovered' && c.signature !== null);
  const a = await caseOf(incidents.a, () => true);
  assert.equal(d.signature_key, a.signature_key, 'd is a near-duplicate of a');
  await worker.store.refresh();
  const result = await worker.forgetter.sweep();
  assert.ok(result.transitions >= 2, JSON.stringify(result));
  const [aAfter, dAfter] = [await caseOf(incidents.a, () => true), await caseOf(incidents.d, () => true)];
  assert.equal(aAfter.card.status, 'superseded');
  assert.equal(aAfter.card.superseded_by, d.case_id);
  assert.ok(aAfter.card.history.some((h) => h.reason === 'compacted' && h.to === 'superseded'));
  assert.equal(dAfter.card.duplicate_count, 2);
  const [point] = await worker.store.qdrant.retrieve(worker.store.options.collection, { ids: [a.case_id], with_payload: true });
  assert.equal(point?.payload?.status, 'superseded');
  await worker.store.refresh();
  const answer = await recommend({
    incident_id: `inc-after-${run}`,
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    claims: asked(rerankClaims(0.4)),
  });
  assert.ok(!answer.citations.some((x) => x.case_id === a.case_id));
  assert.ok(answer.citations.some((x) => x.case_id === d.case_id));
  // Nothing was deleted.
  assert.ok(await worker.store.get(a.case_id));
  const second = await worker.forgetter.sweep();
  assert.equal(second.transitions, 0);
});

test('with Elasticsearch and Qdrant unreachable: rules with the degraded flag, and case writes fail (left for redelivery)', async () => {
  const config = memoryConfigFromEnv({
    ...env,
    ELASTICSEARCH_URL: 'http://127.0.0.1:9',
    QDRANT_URL: 'http://127.0.0.1:9',
    ES_INDEX_PREFIX: `it-memory-dead-${run}`,
    MEMORY_STORE_TIMEOUT_MS: '500',
  });
  deadWorker = new MemoryWorker({ config, busConfig: null, embedder, logger, tracer: trace.getTracer('it') });
  const { port } = await deadWorker.start();
  const dead = new MemoryClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN, timeoutMs: 5000 });
  const started = Date.now();
  const answer = await dead.recommend({
    incident_id: `inc-dead-${run}`,
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    claims: asked(rerankClaims()),
  });
  assert.equal(answer.source, 'rules');
  assert.equal(answer.degraded, true);
  assert.match(answer.reason, /^store_unavailable/);
  assert.equal(answer.strategy[0]?.intent, 'rollback_reranker');
  assert.ok(Date.now() - started < 3000, 'answers within the store budget');
  await assert.rejects(deadWorker.handleEvent({ kind: 'report', event: report(`inc-dead-${run}`) }));
  const health = await fetch(`http://127.0.0.1:${port}/healthz`);
  assert.equal(health.status, 200);
  const list = await fetch(`http://127.0.0.1:${port}/cases`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(list.status, 503);
});
