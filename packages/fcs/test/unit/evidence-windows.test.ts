import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWindows, splitSentences } from '../../src/evidence-windows.ts';

// One "token" per word keeps the budgets easy to reason about.
const words = (text: string): number[] =>
  text
    .split(/\s+/)
    .filter(Boolean)
    .map((_, i) => i + 1000);

test('sentences split at end punctuation, not inside versions, decimals or abbreviations', () => {
  assert.deepEqual(splitSentences('Version 2.4.112-2 is out. It weighs 3.5 MB, e.g. Small. Really? Yes!\n\nNew block'), [
    'Version 2.4.112-2 is out.',
    'It weighs 3.5 MB, e.g. Small.',
    'Really?',
    'Yes!',
    'New block',
  ]);
  assert.deepEqual(splitSentences('   '), []);
});

test('a passage that fits is one window, exactly its text', () => {
  const plan = buildWindows([{ id: 'a', text: 'One two three. Four five.' }], words, { budgetTokens: 10, maxWindows: 8 });
  assert.equal(plan.truncated, false);
  assert.deepEqual(
    plan.windows.map((w) => [w.passageId, w.text, w.sentenceStart, w.sentenceEnd]),
    [['a', 'One two three. Four five.', 0, 1]],
  );
});

test('a long passage becomes sentence windows overlapping by one sentence, within the budget', () => {
  const text = ['S0 a b.', 'S1 c d.', 'S2 e f.', 'S3 g h.', 'S4 i j.'].join(' ');
  const plan = buildWindows([{ id: 'a', text }], words, { budgetTokens: 7, maxWindows: 8 });
  assert.deepEqual(
    plan.windows.map((w) => [w.sentenceStart, w.sentenceEnd]),
    [
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
    ],
  );
  assert.ok(plan.windows.every((w) => w.ids.length <= 7));
  assert.equal(plan.truncated, false);
});

test('windows never mix passages and keep passage order', () => {
  const plan = buildWindows(
    [
      { id: 'x', text: 'Alpha beta.' },
      { id: 'y', text: 'Gamma delta.' },
    ],
    words,
    { budgetTokens: 50, maxWindows: 8 },
  );
  assert.deepEqual(
    plan.windows.map((w) => [w.passageId, w.passageIndex, w.text]),
    [
      ['x', 0, 'Alpha beta.'],
      ['y', 1, 'Gamma delta.'],
    ],
  );
});

test('an over-long sentence is cut at the budget and the plan says so, deterministically', () => {
  const text = `${Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')}. Short one.`;
  const first = buildWindows([{ id: 'a', text }], words, { budgetTokens: 16, maxWindows: 8 });
  const second = buildWindows([{ id: 'a', text }], words, { budgetTokens: 16, maxWindows: 8 });
  assert.equal(first.truncated, true);
  assert.equal(first.windows[0]!.truncated, true);
  assert.equal(first.windows[0]!.ids.length, 16);
  assert.deepEqual(first, second);
});

test('windows beyond the cap are dropped from the end and flagged', () => {
  const passages = Array.from({ length: 10 }, (_, i) => ({ id: `p${i}`, text: `Passage ${i}.` }));
  const plan = buildWindows(passages, words, { budgetTokens: 50, maxWindows: 4 });
  assert.equal(plan.truncated, true);
  assert.deepEqual(
    plan.windows.map((w) => w.passageId),
    ['p0', 'p1', 'p2', 'p3'],
  );
});
