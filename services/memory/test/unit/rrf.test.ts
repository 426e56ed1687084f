import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reciprocalRankFusion } from '../../src/recommend/rrf.ts';

test('each list adds 1/(k + rank) per id', () => {
  const fused = reciprocalRankFusion(
    [
      ['a', 'b'],
      ['b', 'c'],
    ],
    60,
  );
  const score = Object.fromEntries(fused.map((f) => [f.id, f.score]));
  assert.equal(score.a, 1 / 61);
  assert.equal(score.b, 1 / 62 + 1 / 61);
  assert.equal(score.c, 1 / 62);
  assert.deepEqual(
    fused.map((f) => f.id),
    ['b', 'a', 'c'],
  );
});

test('an id found by both channels beats one ranked first by only one', () => {
  const fused = reciprocalRankFusion(
    [
      ['x', 'y', 'z'],
      ['q', 'r', 'z'],
    ],
    60,
  );
  assert.equal(fused[0]?.id, 'z');
});

test('an id repeated in one list counts once, at its best rank; ties break by id', () => {
  const fused = reciprocalRankFusion([['a', 'a', 'b'], []], 60);
  assert.equal(fused.find((f) => f.id === 'a')?.score, 1 / 61);
  assert.deepEqual(
    reciprocalRankFusion([['n'], ['m']]).map((f) => f.id),
    ['m', 'n'],
  );
});

test('a smaller k sharpens the preference for the top ranks', () => {
  const soft = reciprocalRankFusion([['a', 'b']], 60);
  const sharp = reciprocalRankFusion([['a', 'b']], 1);
  const ratio = (list: { score: number }[]) => (list[0]?.score ?? 0) / (list[1]?.score ?? 1);
  assert.ok(ratio(sharp) > ratio(soft));
  assert.throws(() => reciprocalRankFusion([['a']], 0), /positive/);
});
