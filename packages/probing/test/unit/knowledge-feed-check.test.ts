/**
 * Issue 30, item 2: online knowledge newer than the baseline's is an update only if its feed
 * published it. Run through the ProbeRunner with fake RAG ports, so the whole path (newer chunks →
 * freshness lookup → comparison → anomaly signal) is what is tested.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { RagHttpError, type KnowledgeFreshness, type QueryResponse } from '@rag-immune/rag-contract';
import { ProbeRunner, checkAgainstFeed, defaultThresholds, type GoldenProbe, type RagPort } from '../../src/index.ts';

const probe: GoldenProbe = {
  id: 'libxml2-version',
  version: 1,
  query: 'What is the latest version of libxml2?',
  expected_sources: ['changelog/libxml2'],
  business_value: 1,
  cluster: 'head',
  created_at: '2024-01-01T00:00:00Z',
  retired_at: null,
};

function answer(version: string, validFrom: string, asOf: string): QueryResponse {
  const chunk = {
    doc_id: 'changelog/libxml2',
    chunk_id: `changelog/libxml2@${version}#0`,
    knowledge_id: 'changelog/libxml2',
    version,
    source: 'debian-changelog',
    source_trust: 0.9,
    updated_at: validFrom,
    valid_from: validFrom,
    valid_until: null,
    retrieval_score: 0.8,
    text: `Package: libxml2 | Version: ${version} | Released: ${validFrom.slice(0, 10)}`,
  };
  return {
    trace_id: `t-${version}`,
    answer: `The latest version of libxml2 is ${version}.`,
    citations: [{ chunk_id: chunk.chunk_id, doc_id: chunk.doc_id, knowledge_id: chunk.knowledge_id, version }],
    chunks: [chunk],
    models: { embedder: 'e', reranker: 'r', generator: 'g' },
    timings: { total_ms: 3 },
    as_of: asOf,
  };
}

const baselineAnswer = answer('2.9.14+dfsg-1', '2024-01-10T00:00:00.000Z', '2024-06-01T00:00:00.000Z');
/** The online side serves a version that became valid after the baseline's pin: "newer". */
const onlineAnswer = answer('2.12.0+test1', '2026-11-30T00:00:00.000Z', '2026-12-01T00:00:00.000Z');

const freshness = (feed: { version: string; valid_from: string } | null): KnowledgeFreshness => ({
  knowledge_id: 'changelog/libxml2',
  source: 'debian-changelog',
  feed_provider: 'primary',
  as_of: '2026-12-01T00:00:00.000Z',
  feed,
  indexed: { version: '2.12.0+test1', valid_from: '2026-11-30T00:00:00.000Z' },
});

function runner(online: RagPort, newerKnowledgeWithoutLookup: 'update' | 'unverified' = 'update'): ProbeRunner {
  return new ProbeRunner({
    newerKnowledgeWithoutLookup,
    online,
    baseline: { query: async () => baselineAnswer },
    fcs: { score: async () => ({ status: 'scored', score: 0.9, truncated: false, evidence_snippets: [] }) },
    tracer: trace.getTracer('test'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 1000,
    callAttempts: 1,
    version: 'test',
  });
}

const onlineWith = (lookup?: RagPort['knowledgeFreshness']): RagPort => ({
  query: async () => onlineAnswer,
  ...(lookup ? { knowledgeFreshness: lookup } : {}),
});

test('a newer online version its feed never published is an anomaly, not a knowledge update', async () => {
  const looked: string[] = [];
  const result = await runner(
    onlineWith(async (id) => {
      looked.push(id);
      return freshness({ version: '2.9.14+dfsg-1', valid_from: '2024-01-10T00:00:00.000Z' });
    }),
  ).run(probe);
  assert.deepEqual(looked, ['changelog/libxml2']);
  assert.equal(result.comparison.feed_check, 'ahead_of_feed');
  assert.equal(result.comparison.knowledge_update, false);
  assert.deepEqual(result.comparison.unpublished_knowledge, [
    {
      knowledge_id: 'changelog/libxml2',
      online_version: '2.12.0+test1',
      online_valid_from: Date.parse('2026-11-30T00:00:00.000Z'),
      feed_version: '2.9.14+dfsg-1',
      feed_valid_from: Date.parse('2024-01-10T00:00:00.000Z'),
    },
  ]);
  assert.equal(result.anomaly, true);
  assert.ok(result.anomaly_signals.includes('unpublished_knowledge'), result.anomaly_signals.join(','));
  assert.equal(result.severity, 'high');
});

test('a version the feed does not know at all (no feed version for the id) is unpublished too', async () => {
  const result = await runner(onlineWith(async () => freshness(null))).run(probe);
  assert.equal(result.comparison.feed_check, 'ahead_of_feed');
  assert.equal(result.comparison.unpublished_knowledge[0]?.feed_version, null);
  assert.ok(result.anomaly_signals.includes('unpublished_knowledge'));
});

test('a newer version the feed publishes stays a legitimate update: no anomaly', async () => {
  const result = await runner(onlineWith(async () => freshness({ version: '2.12.0+test1', valid_from: '2026-11-30T00:00:00.000Z' }))).run(
    probe,
  );
  assert.equal(result.comparison.feed_check, 'published');
  assert.equal(result.comparison.knowledge_update, true);
  assert.deepEqual(result.comparison.unpublished_knowledge, []);
  assert.equal(result.anomaly, false, result.anomaly_signals.join(','));
});

test('a RAG without the lookup keeps today’s behaviour and the result says the check could not be made', async () => {
  for (const [online, status] of [
    [onlineWith(), 'lookup_not_served'],
    [
      onlineWith(async () => {
        throw new RagHttpError(404, 'knowledgeFreshness', 'not found');
      }),
      'lookup_not_served',
    ],
    [
      onlineWith(async () => {
        throw new RagHttpError(503, 'knowledgeFreshness', 'unavailable');
      }),
      'lookup_failed',
    ],
  ] as const) {
    const result = await runner(online).run(probe);
    assert.equal(result.comparison.feed_check, status);
    assert.equal(result.comparison.knowledge_update, true);
    assert.equal(result.anomaly, false, `${status}: ${result.anomaly_signals.join(',')}`);
  }
});

test('issue 42: a RAG without the lookup whose adapter declares newer knowledge unverified lists it as unpublished', async () => {
  const result = await runner(onlineWith(), 'unverified').run(probe);
  assert.equal(result.comparison.feed_check, 'baseline_not_refreshed');
  assert.equal(result.comparison.knowledge_update, false);
  assert.deepEqual(result.comparison.unpublished_knowledge, [
    {
      knowledge_id: 'changelog/libxml2',
      online_version: '2.12.0+test1',
      online_valid_from: Date.parse('2026-11-30T00:00:00.000Z'),
      feed_version: null,
      feed_valid_from: null,
    },
  ]);
  assert.equal(result.anomaly, true);
  assert.ok(result.anomaly_signals.includes('unpublished_knowledge'), result.anomaly_signals.join(','));
});

test('issue 42: unverified applies only without a lookup, and only to knowledge newer than the baseline', async () => {
  // A served lookup still decides: the feed publishes the version, so it is an update.
  const published = await runner(
    onlineWith(async () => freshness({ version: '2.12.0+test1', valid_from: '2026-11-30T00:00:00.000Z' })),
    'unverified',
  ).run(probe);
  assert.equal(published.comparison.feed_check, 'published');
  assert.equal(published.anomaly, false, published.anomaly_signals.join(','));
  // Nothing newer online: nothing to judge.
  const same = await runner({ query: async () => baselineAnswer }, 'unverified').run(probe);
  assert.equal(same.comparison.feed_check, null);
  assert.equal(same.anomaly, false, same.anomaly_signals.join(','));
});

test('nothing newer online: no lookup is made and there is nothing to check', async () => {
  let calls = 0;
  const rag: RagPort = {
    query: async () => baselineAnswer,
    knowledgeFreshness: async () => {
      calls += 1;
      return freshness(null);
    },
  };
  const result = await runner(rag).run(probe);
  assert.equal(calls, 0);
  assert.equal(result.comparison.feed_check, null);
  assert.equal(result.anomaly, false);
});

test('checkAgainstFeed looks up each knowledge id once (its newest chunk), at most the cap', async () => {
  const looked: string[] = [];
  const newer = ['a', 'b', 'c', 'd', 'e'].flatMap((id) => [
    { knowledge_id: `k/${id}`, version: '1', valid_from: 1 },
    { knowledge_id: `k/${id}`, version: '2', valid_from: 2 },
  ]);
  const check = await checkAgainstFeed(newer, async (id) => {
    looked.push(id);
    return { ...freshness({ version: '2', valid_from: new Date(2).toISOString() }), knowledge_id: id };
  });
  assert.deepEqual(looked, ['k/a', 'k/b', 'k/c', 'k/d']);
  assert.deepEqual(check, { status: 'published', unpublished: [] });
  // An older version than the feed's newest is not judged: the lookup names only the newest.
  const older = await checkAgainstFeed([{ knowledge_id: 'k/a', version: '1', valid_from: 1 }], async () =>
    freshness({ version: '2', valid_from: new Date(2).toISOString() }),
  );
  assert.deepEqual(older?.unpublished, []);
});
