/**
 * What the sampled answers say, compared as distributions (issue 39, item 3). FCS judges an answer
 * against its own evidence, so an online RAG that faithfully repeats a wrong context (knowledge no
 * feed published) keeps its FCS; what changes is which facts its answers state. With k answers a
 * side, each answer's key facts (versions, dates, numbers, names: keyFacts) are counted per side and
 * the two sides' fact frequencies compared by a permutation test: the statistic is the total
 * difference in how often each fact is stated, and its null distribution is that of every split of
 * the pooled answers into two groups of the same sizes (exact up to MAX_EXACT_SPLITS splits, else a
 * fixed-seed sample of them with the observed split included, which keeps the p valid).
 */
import { keyFacts } from './answer-agreement.ts';
import type { NullDistribution } from './sample-test.ts';
import { seededRandom } from '../random.ts';

/** Above this many splits, the null distribution is sampled (k = 7 a side is 3,432 splits, exact). */
const MAX_EXACT_SPLITS = 20_000;
const SAMPLED_SPLITS = 4_000;

export interface FactFrequencyTest extends NullDistribution {
  /** Sum over facts of |share of online answers stating it - share of baseline answers stating it|. */
  distance: number;
  onlineAnswers: number;
  baselineAnswers: number;
}

/**
 * Two-sided permutation test of "the online answers state other facts, or the same facts at other
 * frequencies, than the baseline's". A missing answer (failed call) is left out; null when either
 * side has no answer or no answer on either side states any fact (nothing to compare).
 */
export function factFrequencyTest(
  online: readonly (string | undefined)[],
  baseline: readonly (string | undefined)[],
): FactFrequencyTest | null {
  const factsOf = (answers: readonly (string | undefined)[]) => answers.flatMap((a) => (a === undefined ? [] : [[...keyFacts(a)]]));
  const onlineFacts = factsOf(online);
  const baselineFacts = factsOf(baseline);
  const n = onlineFacts.length;
  const m = baselineFacts.length;
  if (n === 0 || m === 0) return null;
  const pooled = [...onlineFacts, ...baselineFacts];
  const vocabulary = [...new Set(pooled.flat())];
  if (vocabulary.length === 0) return null;
  const index = new Map(vocabulary.map((fact, i) => [fact, i]));
  const rows = pooled.map((facts) => facts.map((fact) => index.get(fact)!));
  const totals = new Array<number>(vocabulary.length).fill(0);
  for (const row of rows) for (const f of row) totals[f]! += 1;

  /** The distance of one split, given which pooled answers form the "online" group. */
  const distance = (group: readonly number[]): number => {
    const inGroup = new Array<number>(vocabulary.length).fill(0);
    for (const i of group) for (const f of rows[i]!) inGroup[f]! += 1;
    let sum = 0;
    for (let f = 0; f < vocabulary.length; f++) sum += Math.abs(inGroup[f]! / n - (totals[f]! - inGroup[f]!) / m);
    return sum;
  };
  const observed = distance(Array.from({ length: n }, (_, i) => i));
  const splits = splitCount(n + m, n) <= MAX_EXACT_SPLITS ? everySplit(n + m, n) : sampledSplits(n + m, n, SAMPLED_SPLITS);
  const distances = splits.map(distance);
  if (splits.length !== splitCount(n + m, n)) distances.push(observed); // a sampled null includes the observed split
  // Distances equal up to rounding are one value: floating sums of the same shares differ in the last bits.
  const key = (d: number) => Math.round(d * 1e9);
  const counts = new Map<number, number>();
  for (const d of distances) counts.set(key(d), (counts.get(key(d)) ?? 0) + 1);
  const values = [...counts.keys()].sort((a, b) => b - a);
  const nullPs: { p: number; weight: number }[] = [];
  let atLeast = 0;
  let p = 1;
  for (const value of values) {
    atLeast += counts.get(value)!;
    nullPs.push({ p: atLeast / distances.length, weight: counts.get(value)! / distances.length });
    if (value === key(observed)) p = atLeast / distances.length;
  }
  return { p, nullPs, distance: observed, onlineAnswers: n, baselineAnswers: m };
}

function splitCount(total: number, size: number): number {
  let result = 1;
  for (let i = 0; i < size; i++) result = (result * (total - i)) / (i + 1);
  return Math.round(result);
}

/** Every size-subset of 0..total-1, in lexicographic order (the first is the observed split). */
function everySplit(total: number, size: number): number[][] {
  const out: number[][] = [];
  const current: number[] = [];
  const walk = (from: number) => {
    if (current.length === size) {
      out.push([...current]);
      return;
    }
    for (let i = from; i <= total - (size - current.length); i++) {
      current.push(i);
      walk(i + 1);
      current.pop();
    }
  };
  walk(0);
  return out;
}

/** Random size-subsets from a fixed seed: independent of the answers, so the sampled p stays valid. */
function sampledSplits(total: number, size: number, count: number): number[][] {
  const random = seededRandom(0x9e3779b9);
  const out: number[][] = [];
  const items = Array.from({ length: total }, (_, i) => i);
  for (let c = 0; c < count; c++) {
    for (let i = 0; i < size; i++) {
      const j = i + Math.floor(random() * (total - i));
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    out.push(items.slice(0, size));
  }
  return out;
}
