import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryStores } from '@rag-immune/es-store';
import { AliasHistory, watchAlias } from '../../src/snapshots/alias-history.ts';

test('the alias history keeps one sighting per target, first seen fixed, last seen moving, most recent first', async () => {
  const history = new AliasHistory(memoryStores(), 'unit-alias-history');
  await history.init();
  await history.observe('kb', 'kb-v1', new Date('2026-12-01T00:00:00Z'));
  await history.observe('kb', 'kb-v1', new Date('2026-12-05T00:00:00Z'));
  await history.observe('kb', 'kb-v2', new Date('2026-12-05T01:00:00Z'));
  await history.observe('other', 'other-v1', new Date('2026-12-06T00:00:00Z'));
  assert.deepEqual(await history.sightings('kb'), [
    { alias: 'kb', collection: 'kb-v2', first_seen: '2026-12-05T01:00:00.000Z', last_seen: '2026-12-05T01:00:00.000Z' },
    { alias: 'kb', collection: 'kb-v1', first_seen: '2026-12-01T00:00:00.000Z', last_seen: '2026-12-05T00:00:00.000Z' },
  ]);
});

test('the watch records the target at once and on every tick, skips a plain collection, and survives a failed read', async () => {
  const history = new AliasHistory(memoryStores(), 'unit-alias-history');
  await history.init();
  const targets: (string | null | Error)[] = ['kb-v1', new Error('qdrant down'), null, 'kb-v2'];
  const warnings: unknown[] = [];
  const stop = watchAlias(
    async () => {
      const next = targets.shift() ?? 'kb-v2';
      if (next instanceof Error) throw next;
      return next;
    },
    history,
    'kb',
    10,
    { warn: (...args: unknown[]) => void warnings.push(args) },
  );
  try {
    for (let i = 0; i < 200 && (await history.sightings('kb')).length < 2; i += 1) await new Promise((r) => setTimeout(r, 10));
  } finally {
    stop();
  }
  assert.deepEqual(
    (await history.sightings('kb')).map((s) => s.collection),
    ['kb-v2', 'kb-v1'],
  );
  assert.equal(warnings.length, 1, 'the failed read is logged, and the watch goes on');
});
