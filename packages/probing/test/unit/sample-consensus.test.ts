import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answersAreConsistent, factsKey, modalAnswerIndex } from '../../src/signals/sample-consensus.ts';

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
