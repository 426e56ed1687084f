/**
 * Issue 15, item 1: knowledge edited in place. The text of the chunk that answers three probes (a
 * version number, a release date, an uploader's name) is changed directly in the online RAG's
 * Qdrant collection through Qdrant's REST API, without the reference RAG's fault API and without a
 * new knowledge version. FCS judges each answer against its own (edited) evidence and stays high,
 * so only the answer-level comparison with the baseline can see it: the edited probes must be
 * flagged `answer_disagreement` (with the altered chunk named), the untouched ones must stay clean.
 * A baseline pinned in the past, against which the online side legitimately knows newer versions,
 * must not be flagged: that is a knowledge update, not corruption.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { EventBus, busDefaults, parseBusConfig } from '@rag-immune/bus';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { RagClient, ragClientWithHeaders } from '@rag-immune/rag-contract';
import { endpoints } from '@rag-immune/test-kit/stack';
import type { ProbeResult } from '@rag-immune/contracts';
import { loadQuestions, startReferenceRagPair, type ReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { Sentinel, SentinelMetrics } from '../../src/index.ts';
import { ProbeRunner, defaultThresholds, probesFromQuestions, type GoldenProbe } from '@rag-immune/probing';

const logger = pino({ level: 'warn' });
const run = randomUUID().slice(0, 8);
const STALE_PIN = new Date('2024-06-01T00:00:00Z');

let bus: EventBus;
let fcs: FactConsistencyScorer;
const pairs: ReferenceRagPair[] = [];

before(async () => {
  bus = new EventBus(
    parseBusConfig({
      ...busDefaults('development'),
      clientId: `sentinel-edit-${run}`,
      brokers: endpoints.kafkaBrokers,
      schemaRegistryUrl: endpoints.schemaRegistryUrl,
      topicPrefix: `it-edit-${run}.`,
    }),
  );
  await bus.start(['probes']);
  fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1 });
});

after(async () => {
  await bus?.stop();
  for (const pair of pairs) await pair.close();
});

/** A sentinel over `probes` whose runAll() gives one round of ProbeResults, published on the real bus. */
async function sentinelFor(rags: ReferenceRagPair, probes: GoldenProbe[]): Promise<() => Promise<ProbeResult[]>> {
  const publisher = await bus.publisher();
  let round: ProbeResult[] = [];
  const runner = new ProbeRunner({
    online: ragClientWithHeaders(rags.onlineUrl, {}, 30_000),
    baseline: ragClientWithHeaders(rags.baselineUrl, {}, 30_000),
    fcs,
    tracer: trace.getTracer('knowledge-edit'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 30_000,
    callAttempts: 2,
    version: 'test',
  });
  const sentinel = new Sentinel(
    probes,
    runner,
    {
      publish: async (result) => {
        await publisher.publish('probes', result);
        round.push(result);
      },
    },
    new SentinelMetrics(),
    { intervalMs: 3_600_000, jitter: 0, maxConcurrent: 2 },
    logger,
  );
  return async () => {
    round = [];
    await sentinel.runAll();
    assert.equal(round.length, probes.length, 'every probe produced a result');
    return round;
  };
}

const describe = (r: ProbeResult) => `${r.probe_id}: ${r.anomaly_signals.join(',')} ${JSON.stringify(r.comparison)}`;

/** Replaces `from` by `to` in the text of the online chunk that answers `query`, through Qdrant's REST API. */
async function editAnsweringChunk(rags: ReferenceRagPair, query: string, knowledgeId: string, from: string, to: string): Promise<string> {
  const response = await new RagClient({ baseUrl: rags.onlineUrl }).query({ query });
  const chunkId = response.citations[0]?.chunk_id;
  assert.ok(chunkId, `the online RAG cites a chunk for "${query}"`);
  const collection = rags.online.index.collection;
  const qdrant = (path: string, body: unknown) =>
    fetch(`${endpoints.qdrantUrl}/collections/${collection}/points${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(endpoints.qdrantApiKey ? { 'api-key': endpoints.qdrantApiKey } : {}) },
      body: JSON.stringify(body),
    }).then(async (res) => {
      const text = await res.text();
      assert.ok(res.ok, `qdrant ${path}: ${res.status} ${text}`);
      return JSON.parse(text) as { result: { points: { id: string | number; payload: { chunk_id: string; text: string } }[] } };
    });
  const { result } = await qdrant('/scroll', {
    filter: { must: [{ key: 'knowledge_id', match: { value: knowledgeId } }] },
    limit: 1000,
    with_payload: true,
  });
  const point = result.points.find((p) => p.payload.chunk_id === chunkId);
  assert.ok(point, `chunk ${chunkId} is in ${collection}`);
  const edited = point.payload.text.split(from).join(to);
  assert.notEqual(edited, point.payload.text, `"${from}" is in the text of ${chunkId}`);
  await qdrant('/payload?wait=true', { payload: { text: edited }, points: [point.id] });
  return chunkId;
}

test('edited chunk text (version, release date, uploader) is flagged answer_disagreement; untouched probes stay clean', async () => {
  const rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages: 16,
    label: 'it-edit',
    logger,
  });
  pairs.push(rags);
  const questions = loadQuestions().filter((q) => rags.knowledgeIds.has(q.knowledge_id) && q.expected !== null);
  const byKind = (kind: string, skip: Set<string>) => questions.find((q) => q.kind === kind && !skip.has(q.knowledge_id));
  const editedIds = new Set<string>();
  const targets = [];
  for (const kind of ['latest_version', 'release_date', 'uploader']) {
    const q = byKind(kind, editedIds);
    assert.ok(q, `a ${kind} question`);
    editedIds.add(q.knowledge_id);
    targets.push(q);
  }
  const untouched = questions
    .filter((q) => !editedIds.has(q.knowledge_id))
    .filter((_, i) => i % 5 === 0)
    .slice(0, 6);
  const probes = probesFromQuestions([...targets, ...untouched], 'edit');
  const touched = new Set(probes.slice(0, targets.length).map((p) => p.id));
  const round = await sentinelFor(rags, probes);

  const clean = await round();
  assert.deepEqual(clean.filter((r) => r.anomaly).map(describe), [], 'a clean round raises nothing');

  const corrupt: Record<string, string> = {
    latest_version: '9.9.9-9',
    release_date: '1999-01-01',
    uploader: 'Mallory Example <mallory@example.org>',
  };
  const altered = new Set<string>();
  for (const q of targets)
    altered.add(await editAnsweringChunk(rags, q.question, q.knowledge_id, q.expected as string, corrupt[q.kind] as string));

  const edited = await round();
  const hits = edited.filter((r) => touched.has(r.probe_id));
  for (const r of hits) {
    assert.ok(r.anomaly_signals.includes('answer_disagreement'), `edited probe flagged: ${describe(r)}`);
    assert.ok(
      r.comparison.altered_chunks.some((id) => altered.has(id)),
      `the altered chunk is named: ${describe(r)}`,
    );
    assert.ok(['high', 'critical'].includes(r.severity), `corruption is high severity: ${describe(r)}`);
    assert.equal(r.comparison.knowledge_update, false);
  }
  console.log(
    `edited: ${hits.map((r) => `${r.probe_id} fcs ${r.online.signals?.fcs?.toFixed(2)} agreement ${r.comparison.answer_agreement?.toFixed(2)} cross ${r.comparison.online_answer_vs_baseline_fcs?.toFixed(2)}`).join('; ')}`,
  );
  assert.deepEqual(edited.filter((r) => !touched.has(r.probe_id) && r.anomaly).map(describe), [], 'untouched probes stay clean');
});

test('a baseline pinned in the past: newer online answers are knowledge updates, not disagreements', async () => {
  const rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages: 16,
    label: 'it-update',
    logger,
    baselinePinnedAt: STALE_PIN,
  });
  pairs.push(rags);
  const changed = loadQuestions()
    .filter((q) => rags.knowledgeIds.has(q.knowledge_id) && q.kind === 'latest_version')
    .filter((q) => q.expected !== null && q.expected_baseline !== null && q.expected !== q.expected_baseline)
    .slice(0, 4);
  assert.ok(changed.length >= 2, `packages that changed since the pin: ${changed.length}`);
  const results = await (await sentinelFor(rags, probesFromQuestions(changed, 'update')))();
  const differing = results.filter((r) => (r.comparison.answer_agreement ?? 1) < 1);
  assert.ok(differing.length > 0, 'the online and baseline answers differ');
  for (const r of differing) assert.equal(r.comparison.knowledge_update, true, `recognised as an update: ${describe(r)}`);
  assert.deepEqual(results.filter((r) => r.anomaly_signals.includes('answer_disagreement')).map(describe), []);
});
