import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kMeans, seededRandom } from '../../src/catalog/kmeans.ts';
import { parseQueryLog } from '../../src/catalog/query-log.ts';
import { applyRotation, planRotation } from '../../src/catalog/probe-rotation.ts';
import { attribution, queryVariants } from '../../src/catalog/probe-set-builder.ts';
import type { GoldenProbe } from '@rag-immune/probing';

const unit = (...values: number[]) => {
  const v = Float32Array.from(values);
  const norm = Math.hypot(...values);
  return v.map((x) => x / norm);
};

test('k-means separates well-apart groups and is deterministic for a seed', () => {
  const points = [
    unit(1, 0, 0),
    unit(0.95, 0.05, 0),
    unit(0.9, 0.1, 0),
    unit(0, 1, 0),
    unit(0.05, 0.95, 0),
    unit(0, 0, 1),
    unit(0, 0.05, 0.95),
  ];
  const first = kMeans(points, 3, 7);
  const again = kMeans(points, 3, 7);
  assert.deepEqual(first.assignments, again.assignments);
  const [a, b, c, d, e, f, g] = first.assignments;
  assert.equal(a, b);
  assert.equal(b, c);
  assert.equal(d, e);
  assert.equal(f, g);
  assert.equal(new Set([a, d, f]).size, 3);
});

test('the seeded random source repeats', () => {
  const r1 = seededRandom(1);
  const r2 = seededRandom(1);
  assert.deepEqual([r1(), r1(), r1()], [r2(), r2(), r2()]);
});

test('the query log merges case, spacing and final punctuation variants and names a bad line', () => {
  const log = parseQueryLog(
    [
      '{"query":"When was openssl released?","count":3}',
      '{"query":"when was  openssl released","count":2}',
      '{"query":"other","count":1}',
    ].join('\n'),
  );
  assert.equal(log.length, 2);
  assert.equal(log[0]?.count, 5);
  assert.throws(() => parseQueryLog('{"query":"x","count":0}'), /query log line 1: count/);
});

test('query variants vary the surface, not the question', () => {
  const variants = queryVariants('When was openssl 3.0.11-1 released?', 5);
  assert.equal(variants.length, 5);
  assert.equal(variants[0], 'When was openssl 3.0.11-1 released?');
  assert.ok(variants.every((v) => v.toLowerCase().includes('openssl 3.0.11-1')));
  assert.ok(new Set(variants).size >= 4);
});

const probe = (id: string): GoldenProbe => ({
  id,
  version: 1,
  query: `q ${id}`,
  expected_sources: ['k'],
  business_value: 1,
  cluster: 'head',
  created_at: '2026-11-01T00:00:00Z',
  retired_at: null,
});

test('rotation retires the always-healthy and the always-broken, keeps the informative and the unproven', () => {
  const probes = [probe('stable'), probe('dead'), probe('useful'), probe('new')];
  const history = new Map([
    ['stable', [0.97, 0.99, 0.98, 0.96, 0.99, 0.97]],
    ['dead', [0.1, 0.2, 0.05, 0.1, 0.29, 0.2]],
    ['useful', [0.97, 0.5, 0.98, 0.96, 0.99, 0.97]],
    ['new', [0.99, 0.99]],
  ]);
  const decisions = planRotation(probes, history);
  assert.deepEqual(
    decisions.filter((d) => d.retire).map((d) => d.probe.id),
    ['stable', 'dead'],
  );
  const next = applyRotation(probes, decisions, [probe('replacement')], new Date('2026-11-29T12:00:00Z'));
  assert.equal(next.find((p) => p.id === 'stable')?.retired_at, '2026-11-29T12:00:00Z');
  assert.match(next.find((p) => p.id === 'dead')?.retired_reason ?? '', /always broken/);
  assert.equal(next.find((p) => p.id === 'useful')?.retired_at, null);
  assert.equal(next.at(-1)?.id, 'replacement');
});

test('attribution follows the citations when the RAG gives them, else the retrieval weight', () => {
  const chunk = (knowledge_id: string, retrieval_score: number) => ({ knowledge_id, retrieval_score }) as never;
  const cited = attribution({
    citations: [{ chunk_id: 'c', doc_id: 'd', knowledge_id: 'apt/xz-utils', version: '1' }],
    chunks: [chunk('apt/other', 0.9), chunk('apt/xz-utils', 0.5)],
  });
  assert.deepEqual(cited, { source: 'apt/xz-utils', share: 1 });
  const uncited = attribution({ citations: [], chunks: [chunk('a', 0.6), chunk('b', 0.2), chunk('a', 0.2)] });
  assert.equal(uncited.source, 'a');
  assert.ok(Math.abs((uncited.share ?? 0) - 0.8) < 1e-9);
  assert.deepEqual(attribution({ citations: [], chunks: [] }), { source: null, share: null });
});
