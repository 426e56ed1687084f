import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { ScoreCache, scoreCacheKey } from '../../src/score-cache.ts';

test('case, punctuation and spacing differences give the same key', () => {
  const key = scoreCacheKey('Who maintains kicad-doc-de?', 'It is maintained by Debian Electronics Team.', ['p1', 'p2']);
  assert.equal(scoreCacheKey('who maintains KICAD-DOC-DE', '  it is maintained by debian electronics team!! ', ['p1', 'p2']), key);
  assert.equal(scoreCacheKey('Who maintains kicad-doc-de?', 'It is maintained, by Debian Electronics Team', ['p1', 'p2']), key);
});

test('different key facts, negation or evidence give different keys', () => {
  const key = scoreCacheKey('How big?', 'The download is 19604184 bytes.', ['p1']);
  assert.notEqual(scoreCacheKey('How big?', 'The download is 19604185 bytes.', ['p1']), key);
  assert.notEqual(scoreCacheKey('How big?', 'The download is 19604184 kB.', ['p1']), key);
  assert.notEqual(scoreCacheKey('How big?', 'The download is not 19604184 bytes.', ['p1']), key);
  assert.notEqual(scoreCacheKey('How big?', 'The download is 19604184 bytes.', ['p2']), key);
  assert.notEqual(scoreCacheKey('How big?', 'The download is 19604184 bytes.', ['p1', 'p2']), key);
});

test('hits, misses and the hit ratio are exported on the injected registry', async () => {
  const registry = new Registry();
  const cache = new ScoreCache<{ score: number }>({ registry });
  assert.equal(cache.get('a'), undefined);
  cache.set('a', { score: 0.9 });
  assert.deepEqual(cache.get('a'), { score: 0.9 });
  assert.deepEqual(cache.get('a'), { score: 0.9 });
  assert.equal(cache.hitRatio(), 2 / 3);
  const text = await registry.metrics();
  assert.match(text, /rag_immune_fcs_cache_hits_total 2/);
  assert.match(text, /rag_immune_fcs_cache_misses_total 1/);
  assert.match(text, /rag_immune_fcs_cache_hit_ratio 0\.666/);
});

test('entries expire after the TTL', async () => {
  const cache = new ScoreCache<{ score: number }>({ ttlMs: 30 });
  cache.set('a', { score: 1 });
  assert.ok(cache.get('a'));
  await sleep(60);
  assert.equal(cache.get('a'), undefined);
});
