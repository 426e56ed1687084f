import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  answersAreConsistent,
  baselineFactsLossP,
  factsKey,
  modalAnswerIndex,
  onlineAnswersEmpty,
} from '../../src/signals/sample-consensus.ts';

const v = (version: string, wording = 'is') => `The latest version of acl ${wording} ${version}.`;

test('the modal answer is the first stating the most frequent key facts, however worded', () => {
  assert.equal(factsKey(v('2.3.1-3')), factsKey(v('2.3.1-3', 'would be')));
  assert.equal(modalAnswerIndex([v('9.9.9'), v('2.3.1-3'), v('2.3.1-3', 'was'), v('1.0.0')]), 1);
  // Ties go to the facts seen first.
  assert.equal(modalAnswerIndex([v('9.9.9'), v('2.3.1-3'), v('9.9.9', 'was'), v('2.3.1-3')]), 0);
  assert.equal(modalAnswerIndex([v('2.3.1-3')]), 0);
  assert.throws(() => modalAnswerIndex([]), /at least one answer/);
});

test('answers are consistent when more than half state the same key facts', () => {
  assert.equal(answersAreConsistent([v('2.3.1-3'), v('2.3.1-3', 'was'), v('9.9.9')]), true);
  assert.equal(answersAreConsistent([v('2.3.1-3'), v('2.3.1-3'), v('9.9.9'), v('1.0.0')]), false);
  assert.equal(answersAreConsistent([v('1'), v('2'), v('3'), v('4'), v('5')]), false);
  // A failed call states no facts: it counts as a sample that agrees with nothing stated.
  assert.equal(answersAreConsistent([v('2.3.1-3'), undefined, undefined]), false);
  assert.equal(answersAreConsistent([]), false);
});

test("the online samples' loss of the baseline's facts: an exact test, quiet within chance", () => {
  const same = [v('2.3.1-3'), v('2.3.1-3'), v('2.3.1-3'), v('2.3.1-3'), v('2.3.1-3')];
  const other = [v('9.9.9'), v('9.9.9'), v('1.0.0'), v('9.9.9'), v('1.0.0')];
  // Every baseline sample states them, no online one: the smallest p, 1 / C(10, 5).
  assert.ok(Math.abs(baselineFactsLossP(other, same) - 1 / 252) < 1e-12);
  assert.equal(baselineFactsLossP(same, same), 1);
  // 2 of 5 online against 4 of 5 in the baseline: the modal facts differ, by chance (p well above 0.01).
  const p = baselineFactsLossP([v('2.3.1-3'), v('9.9.9'), v('9.9.9'), v('9.9.9'), v('2.3.1-3')], [v('9.9.9'), ...same.slice(1)]);
  assert.ok(p > 0.2 && p < 0.3, String(p));
  // A failed online call states nothing.
  assert.ok(Math.abs(baselineFactsLossP([undefined, ...other.slice(1)], same) - 1 / 252) < 1e-12);
});

test('the online side answers empty beyond chance, or on every sample while the baseline never does', () => {
  const a = v('2.3.1-3');
  assert.equal(onlineAnswersEmpty(['', ' ', a, a, a], [a, a, a, a, a], 0.005), false, 'two empty samples of five are sampling');
  assert.equal(onlineAnswersEmpty(['', '', '', '', ''], [a, a, a, a, a], 0.005), true);
  // Three samples a side cannot reach p < 0.005 (smallest 0.05): all empty against none still fires, two of three does not.
  assert.equal(onlineAnswersEmpty(['', '', ''], [a, a, a], 0.005), true);
  assert.equal(onlineAnswersEmpty(['', '', a], [a, a, a], 0.005), false);
  // Both sides empty is no online fault; failed calls are no answers; a side with none decides nothing.
  assert.equal(onlineAnswersEmpty(['', '', ''], ['', '', ''], 0.005), false);
  assert.equal(onlineAnswersEmpty(['', undefined, ''], [a, a, a], 0.005), true);
  assert.equal(onlineAnswersEmpty([undefined, undefined], [a, a], 0.005), false);
  // Enough samples: 9 empty of 10 against 0 of 10 is beyond chance though not every sample.
  assert.equal(onlineAnswersEmpty([...Array(9).fill(''), a], Array(10).fill(a), 0.005), true);
});
