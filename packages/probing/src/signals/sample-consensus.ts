/**
 * Self-consistency over several sampled answers of one side (issue 27): which key facts the side
 * states most often, and whether most of its samples agree on them. A sampling LLM's single answer
 * says little; the facts it returns most often say what the side "knows".
 */
import { keyFacts } from './answer-agreement.ts';
import { mannWhitneyLessP } from './sample-test.ts';

/** The key facts of an answer as one comparable key ('' for an answer without any). */
export function factsKey(answer: string): string {
  return [...keyFacts(answer)].sort().join('\u0000');
}

/**
 * How many answers state each set of key facts, most frequent first (first seen first on ties). A
 * missing answer (a failed call) states nothing and agrees with no other sample.
 */
function factCounts(answers: readonly (string | undefined)[]): { key: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const answer of answers) if (answer !== undefined) counts.set(factsKey(answer), (counts.get(factsKey(answer)) ?? 0) + 1);
  return [...counts].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count);
}

/** The index of the first answer stating the most frequent key facts (0 for a single answer). */
export function modalAnswerIndex(answers: readonly (string | undefined)[]): number {
  if (answers.length === 0) throw new RangeError('modalAnswerIndex needs at least one answer');
  const modal = factCounts(answers)[0];
  return modal === undefined ? 0 : answers.findIndex((answer) => answer !== undefined && factsKey(answer) === modal.key);
}

/**
 * More than half of the answers state the same key facts. A baseline whose samples do not is no
 * reference for the online side's facts: its own answers disagree with each other.
 */
export function answersAreConsistent(answers: readonly (string | undefined)[]): boolean {
  return (factCounts(answers)[0]?.count ?? 0) * 2 > answers.length;
}

/**
 * How far the online samples state the baseline's most frequent key facts less often than the
 * baseline's own samples do: the one-sided exact test on "states them" (1) or not (0) per sample
 * (Mann–Whitney on 0/1 with its exact tie handling, i.e. Fisher's exact test). Two sides that sample
 * the same answers differ in their modal facts by chance; an online side that lost them (a fault)
 * states them in (nearly) none of its samples while the baseline states them in (nearly) all.
 */
export function baselineFactsLossP(online: readonly (string | undefined)[], baseline: readonly (string | undefined)[]): number {
  const modal = factCounts(baseline)[0]?.key;
  const states = (answers: readonly (string | undefined)[]) =>
    answers.map((answer) => (answer !== undefined && modal !== undefined && factsKey(answer) === modal ? 1 : 0));
  return mannWhitneyLessP(states(online), states(baseline));
}

/**
 * Sampled mode's empty-answer signal. A sampling LLM sometimes returns nothing for one sample
 * (Gemma 3 270M on the LangChain RAG: a clean run's representative sample was empty and raised
 * `empty_answer` at high severity, 2026-12-07), so one empty sample says nothing. The online side
 * answers empty beyond chance when the one-sided exact test of "answered" (1) or not (0) per sample
 * gives p < alpha, or when every online sample is empty and no baseline sample is (with few samples
 * the test cannot reach alpha, and that split is what a generator that stopped answering gives).
 * Failed calls are no answers at all and are left out.
 */
export function onlineAnswersEmpty(
  online: readonly (string | undefined)[],
  baseline: readonly (string | undefined)[],
  alpha: number,
): boolean {
  const answered = (answers: readonly (string | undefined)[]) => answers.flatMap((a) => (a === undefined ? [] : [a.trim() === '' ? 0 : 1]));
  const o = answered(online);
  const b = answered(baseline);
  if (o.length === 0 || b.length === 0) return false;
  if (o.every((x) => x === 0) && b.every((x) => x === 1)) return true;
  return mannWhitneyLessP(o, b) < alpha;
}
