import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mannWhitneyLessP, median, sampledDrop, sampledDropFires, smallestPossibleP } from '../../src/signals/sample-test.ts';

const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} != ${expected}`);

/**
 * Known values of the exact null distribution of U without ties (the standard tables; scipy's
 * mannwhitneyu(..., alternative='less', method='exact') gives the same): for n = m = 5 the counts
 * of the 252 splits with U = 0, 1, 2, 3, 4 are 1, 1, 2, 3, 5.
 */
test('without ties the p-value is the exact Mann–Whitney table value', () => {
  const baseline = [5, 6, 8, 9, 10];
  close(mannWhitneyLessP([0, 1, 2, 3, 4], baseline), 1 / 252); // U = 0
  close(mannWhitneyLessP([0, 1, 2, 3, 5.5], baseline), 2 / 252); // U = 1
  close(mannWhitneyLessP([1, 2, 3, 4, 7], baseline), 4 / 252); // U = 2
  close(mannWhitneyLessP([1, 2, 3, 5.5, 7], baseline), 7 / 252); // U = 3
  close(mannWhitneyLessP([1, 2, 3, 7, 7.5], baseline), 12 / 252); // U = 4: 0.0476, the tables' 0.048
  // n = m = 3, online all below: 1 / C(6, 3) = 0.05; n = 2, m = 3 with U = 1: 2 / C(5, 2) = 0.2.
  close(mannWhitneyLessP([0.1, 0.2, 0.3], [0.4, 0.5, 0.6]), 1 / 20);
  close(mannWhitneyLessP([1, 3], [2, 4, 5]), 2 / 10);
  // Online all above: every split has U at most the observed one.
  close(mannWhitneyLessP([6, 7, 8], [1, 2, 3]), 1);
});

test('ties take midranks and the exact permutation distribution given them (hand-derived)', () => {
  // Pooled 0, 1, 1, 2 -> midranks 1, 2.5, 2.5, 4; online rank sum 3.5; of the 6 pairs,
  // {0, 1} and {0, 1'} reach at most 3.5: p = 2/6.
  close(mannWhitneyLessP([0, 1], [1, 2]), 1 / 3);
  // Every sample equal: every split has the same rank sum, p = 1 (equal samples never fire).
  close(mannWhitneyLessP([0.7, 0.7, 0.7, 0.7, 0.7], [0.7, 0.7, 0.7, 0.7, 0.7]), 1);
  // A deterministic RAG: constant sides that differ consistently reach the smallest p, 1 / C(10, 5).
  close(mannWhitneyLessP([0.5, 0.5, 0.5, 0.5, 0.5], [0.9, 0.9, 0.9, 0.9, 0.9]), 1 / 252);
});

/** Every split of the pooled samples, counted one by one: an independent check of the counting. */
function bruteForceP(online: number[], baseline: number[]): number {
  const pooled = [...online, ...baseline];
  const sorted = [...pooled].sort((a, b) => a - b);
  const rank = (v: number) => (sorted.indexOf(v) + sorted.lastIndexOf(v)) / 2 + 1;
  const ranks = pooled.map(rank);
  const sum = (indexes: number[]) => indexes.reduce((s, i) => s + ranks[i]!, 0);
  const observed = sum(online.map((_, i) => i));
  let atMost = 0;
  let total = 0;
  const pick = (start: number, chosen: number[]) => {
    if (chosen.length === online.length) {
      total += 1;
      if (sum(chosen) <= observed + 1e-9) atMost += 1;
      return;
    }
    for (let i = start; i <= pooled.length - (online.length - chosen.length); i++) pick(i + 1, [...chosen, i]);
  };
  pick(0, []);
  return atMost / total;
}

test('agrees with counting every split, ties and unequal sizes included', () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let trial = 0; trial < 60; trial++) {
    const n = 1 + (trial % 6);
    const m = 1 + ((trial * 5) % 7);
    // Few distinct values, so ties are common.
    const draw = () => Math.floor(random() * 5) / 4;
    const online = Array.from({ length: n }, draw);
    const baseline = Array.from({ length: m }, draw);
    close(mannWhitneyLessP(online, baseline), bruteForceP(online, baseline));
  }
});

test('the smallest possible p tells which sample counts can reach an alpha', () => {
  close(smallestPossibleP(5, 5), 1 / 252);
  close(smallestPossibleP(3, 3), 1 / 20);
  assert.ok(smallestPossibleP(4, 4) > 0.01); // 1/70: k = 4 cannot fire at alpha 0.01
});

test('bad input is a clear error', () => {
  assert.throws(() => mannWhitneyLessP([], [1]), /at least one sample/);
  assert.throws(() => mannWhitneyLessP([Number.NaN], [1]), /finite/);
});

test('the sampled drop fires only when significant and past the threshold', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.equal(sampledDrop([], [0.9]), null);
  const consistent = sampledDrop([0.5, 0.5, 0.5, 0.5, 0.5], [0.9, 0.9, 0.9, 0.9, 0.9]);
  close(consistent!.drop, 0.4);
  assert.equal(sampledDropFires(consistent, 0.15, 0.01), true);
  // Significant but small: under the drop threshold, no fire.
  assert.equal(sampledDropFires(sampledDrop([0.8, 0.8, 0.8, 0.8, 0.8], [0.9, 0.9, 0.9, 0.9, 0.9]), 0.15, 0.01), false);
  // A large median drop the baseline's own spread explains: no fire.
  const noisy = sampledDrop([0.1, 0.9, 0.2, 0.8, 0.3], [0.9, 0.1, 0.85, 0.2, 0.7]);
  assert.ok(noisy!.drop > 0.15);
  assert.equal(sampledDropFires(noisy, 0.15, 0.01), false);
  // Three samples a side never reach 0.01, however far apart.
  assert.equal(sampledDropFires(sampledDrop([0, 0, 0], [1, 1, 1]), 0.15, 0.01), false);
});
