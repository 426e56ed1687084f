/**
 * Several samples per side against the baseline's own spread (issue 27). A RAG whose LLM samples
 * answers the same probe differently on every call, so one online sample against one baseline sample
 * fires whenever one of the two happens to be worse. With k samples a side, a one-sided exact
 * Mann–Whitney test asks whether the online scores are lower than the baseline's beyond what the
 * baseline's own samples spread, and a drop of the medians says whether it matters.
 */

/** The middle of the samples (the mean of the two middle ones for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** C(n, k) as a double (exact below 2^53, far beyond the sample counts used here). */
function choose(n: number, k: number): number {
  let result = 1;
  for (let i = 0; i < k; i++) result = (result * (n - i)) / (i + 1);
  return Math.round(result);
}

/**
 * The smallest p the exact test can give with n online and m baseline samples: 1 / C(n + m, n).
 * An alpha at or below it can never fire (k = 3 a side cannot reach 0.01; k = 5 can, 1/252).
 */
export function smallestPossibleP(n: number, m: number): number {
  return 1 / choose(n + m, n);
}

/**
 * One-sided exact Mann–Whitney p-value for "the online samples tend to be lower than the
 * baseline's": the share of all C(n + m, n) ways to draw n of the pooled samples whose rank sum is
 * at most the online samples' own. Ties get midranks and the distribution is the exact permutation
 * one given those ties, so identical samples on both sides give p = 1 and a consistent difference
 * between two constant sides gives the smallest possible p. Without ties it equals scipy's
 * `mannwhitneyu(online, baseline, alternative='less', method='exact')`.
 */
export function mannWhitneyLessP(online: readonly number[], baseline: readonly number[]): number {
  return mannWhitneyLessNull(online, baseline).p;
}

/**
 * A test's p and the exact distribution of its p over the permutation null: `nullPs` lists each
 * p the test can give with its probability (summing to 1) when the labels online/baseline are
 * exchangeable. The pooled test (pooled-test.ts) turns it into an e-value of exact expectation 1.
 */
export interface NullDistribution {
  p: number;
  nullPs: readonly { p: number; weight: number }[];
}

/** mannWhitneyLessP with the exact null distribution of its p (same counting, same ties). */
export function mannWhitneyLessNull(online: readonly number[], baseline: readonly number[]): NullDistribution {
  const n = online.length;
  const m = baseline.length;
  if (n === 0 || m === 0) throw new RangeError('mannWhitneyLessP needs at least one sample on each side');
  if ([...online, ...baseline].some((v) => !Number.isFinite(v))) throw new RangeError('mannWhitneyLessP takes finite numbers only');
  const pooled = [...online, ...baseline];
  // Doubled midranks are integers: the count below works on exact integer rank sums.
  const order = pooled.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const doubledRank = new Array<number>(pooled.length);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.value === order[start]!.value) end++;
    // Positions start..end (0-based) share the midrank ((start + 1) + (end + 1)) / 2.
    for (let i = start; i <= end; i++) doubledRank[order[i]!.index] = start + end + 2;
    start = end + 1;
  }
  const observed = doubledRank.slice(0, n).reduce((sum, r) => sum + r, 0);
  const maxSum = doubledRank.reduce((sum, r) => sum + r, 0);
  // ways[j][s]: how many j-subsets of the items seen so far have doubled rank sum s.
  const ways = Array.from({ length: n + 1 }, () => new Float64Array(maxSum + 1));
  ways[0]![0] = 1;
  for (const rank of doubledRank)
    for (let j = Math.min(n, pooled.length) - 1; j >= 0; j--) {
      const from = ways[j]!;
      const to = ways[j + 1]!;
      for (let s = maxSum - rank; s >= 0; s--) if (from[s]! !== 0) to[s + rank]! += from[s]!;
    }
  const total = choose(n + m, n);
  const nullPs: { p: number; weight: number }[] = [];
  let atMost = 0;
  let p = 1;
  for (let s = 0; s <= maxSum; s++) {
    const count = ways[n]![s]!;
    if (count === 0) continue;
    atMost += count;
    // Each attainable rank sum s gives p = P(S <= s), with probability P(S = s).
    nullPs.push({ p: Math.min(1, atMost / total), weight: count / total });
    if (s === observed) p = Math.min(1, atMost / total);
  }
  return { p, nullPs };
}

/** What the sampled test says about one score signal (FCS or IC). */
export interface SampledDrop {
  /** Median of the baseline samples minus median of the online ones (positive: online is worse). */
  drop: number;
  /** One-sided exact Mann–Whitney p that the online samples are lower. */
  p: number;
  onlineSamples: number;
  baselineSamples: number;
}

/**
 * The median drop and the test of one score over the samples each side scored; null when either
 * side has no score at all (every call failed or went unscored), as the one-sample drop is then.
 */
export function sampledDrop(online: readonly number[], baseline: readonly number[]): SampledDrop | null {
  if (online.length === 0 || baseline.length === 0) return null;
  return {
    drop: median(baseline) - median(online),
    p: mannWhitneyLessP(online, baseline),
    onlineSamples: online.length,
    baselineSamples: baseline.length,
  };
}

/** The drop fires when it is significant (p < alpha) and larger than the threshold. */
export function sampledDropFires(test: SampledDrop | null, threshold: number, alpha: number): boolean {
  return test !== null && test.p < alpha && test.drop > threshold;
}
