/**
 * Real Elasticsearch, started by the stack (`npm run stack -- up`): the queries the evidence
 * store relies on, through the same @elastic/elasticsearch client the workers use.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { loadStackConfig, stackEndpoints } from '../../src/index.ts';

interface EvidenceDoc {
  service: string;
  kind: string;
  message: string;
  observedAt: string;
  latencyMs: number;
}

interface EvidenceAggs {
  by_kind: { buckets: Array<{ key: string; doc_count: number }> };
  per_day: {
    buckets: Array<{ key_as_string: string; doc_count: number; avg_latency: { value: number | null } }>;
  };
}

const config = loadStackConfig();
const { elasticsearchUrl } = stackEndpoints(config);
const client = new Client({ node: elasticsearchUrl, requestTimeout: 10_000, maxRetries: 0 });
// Unique per run, so reruns and parallel runs never see each other's documents.
const index = `it-evidence-${randomUUID()}`;

const docs: Record<string, EvidenceDoc> = {
  e1: {
    service: 'retriever',
    kind: 'timeout',
    message: 'retrieval timeout while querying the vector index, timeout again',
    observedAt: '2024-05-01T10:00:00Z',
    latencyMs: 900,
  },
  e2: { service: 'retriever', kind: 'timeout', message: 'retrieval slow', observedAt: '2024-05-01T11:30:00Z', latencyMs: 700 },
  e3: {
    service: 'retriever',
    kind: 'error',
    message: 'reranker crashed with a timeout',
    observedAt: '2024-05-02T09:00:00Z',
    latencyMs: 100,
  },
  e4: {
    service: 'generator',
    kind: 'timeout',
    message: 'retrieval timeout in the generator',
    observedAt: '2024-05-02T12:00:00Z',
    latencyMs: 300,
  },
  e5: { service: 'retriever', kind: 'error', message: 'empty context window', observedAt: '2024-05-03T08:00:00Z', latencyMs: 50 },
};

before(async () => {
  const reachable = await client.ping().catch(() => false);
  assert.ok(reachable, `no Elasticsearch at ${elasticsearchUrl}; start the stack first: npm run stack -- up`);
  await client.indices.create({
    index,
    // One shard: BM25 statistics cover every document, so relevance order is deterministic.
    settings: { number_of_shards: 1, number_of_replicas: 0 },
    mappings: {
      properties: {
        service: { type: 'keyword' },
        kind: { type: 'keyword' },
        message: { type: 'text' },
        observedAt: { type: 'date' },
        latencyMs: { type: 'double' },
      },
    },
  });
  const bulk = await client.bulk({
    operations: Object.entries(docs).flatMap(([id, doc]) => [{ index: { _index: index, _id: id } }, doc]),
  });
  assert.equal(bulk.errors, false, JSON.stringify(bulk.items));
  await client.indices.refresh({ index });
});

after(async () => {
  await client.indices.delete({ index, ignore_unavailable: true }).catch(() => undefined);
  await client.close();
});

test('ping() and info() reach the configured version', async () => {
  assert.equal(await client.ping(), true);
  const info = await client.info();
  assert.equal(info.version.number, config.elasticsearch.version);
  const health = await client.cluster.health({ index });
  assert.ok(['green', 'yellow'].includes(health.status), `cluster health ${health.status}`);
});

test('documents are indexed and retrievable by id', async () => {
  const count = await client.count({ index });
  assert.equal(count.count, Object.keys(docs).length);
  const e3 = await client.get<EvidenceDoc>({ index, id: 'e3' });
  assert.deepEqual(e3._source, docs['e3']);
});

test('bool query: match ranks by BM25, term filter and must_not restrict', async () => {
  const result = await client.search<EvidenceDoc>({
    index,
    query: {
      bool: {
        must: [{ match: { message: 'retrieval timeout' } }],
        filter: [{ term: { service: 'retriever' } }],
        must_not: [{ term: { kind: 'none' } }],
      },
    },
  });
  const ids = result.hits.hits.map((hit) => hit._id);
  assert.deepEqual([...ids].sort(), ['e1', 'e2', 'e3'], 'e4 is filtered out by service, e5 does not match');
  // e1 holds both terms ("timeout" twice); single-term hits score lower.
  assert.equal(ids[0], 'e1');
  const scores = result.hits.hits.map((hit) => hit._score ?? 0);
  assert.ok(
    scores.every((score, i) => i === 0 || score <= (scores[i - 1] ?? 0)),
    `scores not descending: ${scores}`,
  );
  assert.ok((scores[0] ?? 0) > (scores[1] ?? 0), 'two matching terms must outscore one');
});

test('term filter with sort on a date and a number', async () => {
  const byTime = await client.search<EvidenceDoc>({
    index,
    query: { bool: { filter: [{ term: { kind: 'timeout' } }], must_not: [{ term: { service: 'generator' } }] } },
    sort: [{ observedAt: { order: 'desc' } }],
  });
  assert.deepEqual(
    byTime.hits.hits.map((hit) => hit._id),
    ['e2', 'e1'],
  );

  const byLatency = await client.search<EvidenceDoc>({
    index,
    query: { match_all: {} },
    sort: [{ latencyMs: 'asc' }, { observedAt: 'asc' }],
    size: 3,
  });
  assert.deepEqual(
    byLatency.hits.hits.map((hit) => hit._id),
    ['e5', 'e3', 'e4'],
  );
});

test('terms and date_histogram aggregations with an avg sub-aggregation', async () => {
  const result = await client.search<EvidenceDoc, EvidenceAggs>({
    index,
    size: 0,
    aggs: {
      by_kind: { terms: { field: 'kind' } },
      per_day: {
        date_histogram: { field: 'observedAt', calendar_interval: 'day', time_zone: 'UTC' },
        aggs: { avg_latency: { avg: { field: 'latencyMs' } } },
      },
    },
  });
  const aggs = result.aggregations;
  assert.ok(aggs);
  assert.deepEqual(
    aggs.by_kind.buckets.map((b) => [b.key, b.doc_count]),
    [
      ['timeout', 3],
      ['error', 2],
    ],
  );
  assert.deepEqual(
    aggs.per_day.buckets.map((b) => [b.key_as_string.slice(0, 10), b.doc_count, b.avg_latency.value]),
    [
      ['2024-05-01', 2, 800],
      ['2024-05-02', 2, 200],
      ['2024-05-03', 1, 50],
    ],
  );
});
