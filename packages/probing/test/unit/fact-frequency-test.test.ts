/**
 * Issue 39, item 3: the two-sample permutation test on the key facts' frequencies of the online and
 * the baseline answers (exact for small k, by a fixed-seed sample of splits beyond).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { factFrequencyTest } from '../../src/index.ts';

const say = (version: string, n: number) =>
  Array.from({ length: n }, (_, i) => `The latest version of libxml2 is ${version}, take ${'abcdefghijklmnop'[i]}.`);

test('five answers a side stating another version: the two extreme splits of 252, p = 2/252', () => {
  const result = factFrequencyTest(say('2.9.15', 5), say('2.9.14', 5))!;
  assert.ok(Math.abs(result.p - 2 / 252) < 1e-12, String(result.p));
  assert.equal(result.distance, 2); // each version: stated by all of one side, none of the other
  assert.ok(Math.abs(result.nullPs.reduce((s, x) => s + x.weight, 0) - 1) < 1e-12);
});

test('the same facts on both sides, or none at all, are no evidence', () => {
  assert.equal(factFrequencyTest(say('2.9.14', 5), say('2.9.14', 5))!.p, 1);
  assert.equal(factFrequencyTest(['no facts here', 'none'], ['nothing', 'at all']), null);
  // A failed call (undefined) is left out; a side with no answer leaves nothing to compare.
  assert.equal(factFrequencyTest([undefined, undefined], say('1.0', 2)), null);
  assert.equal(factFrequencyTest([...say('2.9.14', 3), undefined], say('2.9.14', 3))!.onlineAnswers, 3);
});

test('sides mixing the same facts at the same rates are not told apart; a mostly other fact is', () => {
  const mixed = [...say('2.9.14', 3), ...say('2.9.15', 2)];
  assert.ok(factFrequencyTest(mixed, [...say('2.9.15', 2), ...say('2.9.14', 3)])!.p > 0.5);
  const shifted = factFrequencyTest([...say('2.9.15', 4), ...say('2.9.14', 1)], [...say('2.9.14', 4), ...say('2.9.15', 1)])!;
  assert.ok(shifted.p < 0.25, String(shifted.p));
});

test('beyond 20,000 splits the null is sampled with the observed split included, so p stays above 0', () => {
  const result = factFrequencyTest(say('2.9.15', 10), say('2.9.14', 10))!; // C(20, 10) = 184,756 splits
  assert.ok(result.p > 0 && result.p <= 3 / 4001, String(result.p));
  assert.ok(Math.abs(result.nullPs.reduce((s, x) => s + x.weight, 0) - 1) < 1e-9);
});
