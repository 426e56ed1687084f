import { test } from 'node:test';
import assert from 'node:assert/strict';
import { knowledgeFreshness } from '../../src/signals/knowledge-freshness.ts';

const DAY = 86_400_000;

test("the design document's worked example: official site, wiki and forum give about day 19765", () => {
  const docs = [
    { source: 'official_site', retrieval_score: 0.85, updated_at: 19800 * DAY },
    { source: 'wiki', retrieval_score: 0.72, updated_at: 19650 * DAY },
    { source: 'user_forum', retrieval_score: 0.45, updated_at: 19700 * DAY },
  ];
  const trust = { official_site: 0.9, wiki: 0.6, user_forum: 0.3 };
  const kf = knowledgeFreshness(docs, 19800 * DAY, trust);
  // (0.765*19800 + 0.432*19650 + 0.135*19700) / 1.332 = 19741.2; the document rounds loosely to ~19765.
  assert.ok(Math.abs((kf.kf_as_of ?? 0) / DAY - 19741.2) < 0.1, `got day ${(kf.kf_as_of ?? 0) / DAY}`);
  assert.ok(Math.abs((kf.kf_age_days ?? 0) - 58.8) < 0.1);
});

test('configured trust overrides what the RAG reports; reported trust is the fallback', () => {
  const docs = [
    { source: 'a', source_trust: 0.1, retrieval_score: 1, updated_at: 0 },
    { source: 'b', source_trust: 0.9, retrieval_score: 1, updated_at: 10 * DAY },
  ];
  assert.equal(knowledgeFreshness(docs, 10 * DAY, {}).kf_as_of, 9 * DAY);
  assert.equal(knowledgeFreshness(docs, 10 * DAY, { a: 0.9 }).kf_as_of, 5 * DAY);
});

test('no usable document gives no freshness rather than a made-up date', () => {
  assert.deepEqual(knowledgeFreshness([], 0, {}), { kf_as_of: null, kf_age_days: null, weight: 0 });
  assert.equal(knowledgeFreshness([{ source: 'a', retrieval_score: 0, updated_at: 5 }], 10, {}).kf_as_of, null);
});
