import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RagHttpError, type KnowledgeFreshness } from '@rag-immune/rag-contract';
import { feedFreshness } from '../../../src/traffic/signals/feed-freshness.ts';
import { userAnswer } from './user-answer-fixture.ts';

const freshness = (version: string, validFrom: string): KnowledgeFreshness => ({
  knowledge_id: 'pkg-openssl',
  source: 'debian',
  feed_provider: 'primary',
  as_of: '2026-12-06T00:00:00.000Z',
  feed: { version, valid_from: validFrom },
  indexed: { version, valid_from: validFrom },
});

test('knowledge served at the feed version is not bad; behind or ahead of it is', async () => {
  const at = async (version: string, validFrom: string) =>
    feedFreshness({ lookup: () => Promise.resolve(freshness(version, validFrom)), cacheTtlMs: 60_000, maxLookupsPerMinute: 10 }).read(
      userAnswer(),
      { segment: 's' },
    );
  assert.equal((await at('3.0.2', '2026-11-01T00:00:00.000Z'))?.bad, false);
  const behind = await at('3.0.5', '2026-11-20T00:00:00.000Z');
  assert.equal(behind?.bad, true);
  assert.match(behind?.detail ?? '', /behind/);
  const ahead = await at('3.0.1', '2026-10-01T00:00:00.000Z');
  assert.match(ahead?.detail ?? '', /ahead of/);
});

test('lookups are cached and their rate bounded', async () => {
  let calls = 0;
  const lookup = (id: string) => {
    calls++;
    return Promise.resolve({ ...freshness('3.0.2', '2026-11-01T00:00:00.000Z'), knowledge_id: id });
  };
  const signal = feedFreshness({ lookup, cacheTtlMs: 60_000, maxLookupsPerMinute: 2, now: () => 1000 });
  for (let i = 0; i < 5; i++) await signal.read(userAnswer(), { segment: 's' });
  assert.equal(calls, 1, 'one knowledge id, looked up once');
  const readings = [];
  for (const id of ['a', 'b', 'c', 'd']) readings.push(await signal.read(userAnswer({ knowledgeId: id }), { segment: id }));
  assert.equal(calls, 2, 'the rate bound allows 2 lookups a minute');
  assert.equal(readings.filter((r) => r === null).length, 3);
});

test('a RAG without the lookup (404) is not asked again within the cache lifetime', async () => {
  let calls = 0;
  const lookup = () => {
    calls++;
    return Promise.reject(new RagHttpError(404, 'knowledgeFreshness', 'not found'));
  };
  const signal = feedFreshness({ lookup, cacheTtlMs: 60_000, maxLookupsPerMinute: 100, now: () => 1000 });
  assert.equal(await signal.read(userAnswer(), { segment: 's' }), null);
  assert.equal(await signal.read(userAnswer({ knowledgeId: 'other' }), { segment: 's' }), null);
  assert.equal(calls, 1);
});
