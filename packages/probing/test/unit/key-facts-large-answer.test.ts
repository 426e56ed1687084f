import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answerAgreement, factReplaced, keyFacts, ungroundedFacts } from '../../src/signals/answer-agreement.ts';

/** The pairwise check the key facts used before (quadratic in the number of facts), kept as the oracle. */
function containedPairwise(facts: Set<string>): Set<string> {
  const all = [...facts];
  return new Set(all.filter((fact) => !all.some((other) => other !== fact && other.includes(fact) && /\d/.test(fact))));
}

const SMALL =
  'The latest version of bash (5.2.15-2) was released on Tue, 05 Mar 2024; 2 and 5.2 are part of it, uploaded by Matthias Klose.';

/** A 30 KB answer: thousands of versions, numbers and names, some inside others, one long token. */
function largeAnswer(size = 30_000): string {
  const words: string[] = [SMALL];
  for (let i = 0, length = 0; length < size; i++, length += words.at(-1)!.length + 1)
    words.push(i % 4 === 0 ? `${i}.${i % 7}.${i % 11}-${i % 5}` : i % 4 === 1 ? `Name${i}` : i % 4 === 2 ? `${i % 97}` : `word${i}`);
  words.push(`${'9'.repeat(80)}.1`);
  return words.join(' ') + '.';
}

test('a 30 KB answer gets the same key facts as the pairwise check', () => {
  const answer = largeAnswer();
  assert.ok(answer.length >= 30_000);
  const facts = keyFacts(answer);
  // No digit fact left inside another (the old pairwise definition).
  assert.deepEqual([...facts], [...containedPairwise(facts)]);
  assert.ok(facts.size > 1000, `${facts.size} facts`);
  assert.ok(!facts.has('2') && !facts.has('5.2') && facts.has('5.2.15-2'), 'facts inside longer ones are dropped');
  assert.ok(!facts.has('9'.repeat(80)) && facts.has(`${'9'.repeat(80)}.1`), 'a fact inside a long fact is dropped');
});

test('the small case keeps its verdicts; a large answer is compared and grounded', () => {
  assert.deepEqual([...keyFacts(SMALL)].sort(), ['05', '2024', '5.2.15-2', 'klose', 'mar', 'matthias', 'tue']);
  const answer = largeAnswer();
  const evidence = [answer.slice(0, 20_000), answer.slice(19_990)];
  assert.deepEqual(ungroundedFacts(answer, evidence), []);
  assert.deepEqual(ungroundedFacts(`${answer} Also 7.7.7-7.`, evidence), ['7.7.7-7']);
  assert.equal(answerAgreement(answer, answer), 1);
  assert.equal(factReplaced(answer, answer.replace('5.2.15-2', '5.2.15-3')), true);
});

// Far from a timing assertion: the pairwise checks needed about a minute on 300 KB (quadratic), the
// indexed ones well under a second; the timeout only catches a return to quadratic work.
test('a 300 KB answer and evidence are checked in near-linear time', { timeout: 20_000 }, () => {
  const answer = largeAnswer(300_000);
  assert.ok(keyFacts(answer).size > 20_000);
  assert.deepEqual(ungroundedFacts(answer, [answer]), []);
});
