/** Metrics and a small weighted logistic regression shared by real-fit.ts and real-report.ts. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { V2Features } from '../src/index.ts';
import { DEFAULT_CHUNKS_PER_CLAIM, unreadKeyFacts } from '../src/index.ts';

export interface ScoredRecord {
  id: string;
  set: string;
  split: string;
  label: number;
  score: number | null;
  model_probability: number | null;
  windows: number;
  features?: V2Features;
  question_missing?: boolean;
  /** The scorer's window size and chunks read per claim (records written before 2026-12-01 evening: 256 and 6). */
  window_tokens?: number;
  chunks_per_claim?: number;
}

/** Records of one or more JSONL files (comma-separated; runs split across processes), deduplicated by set/id. */
export function readRecords(paths: string): ScoredRecord[] {
  const byId = new Map<string, ScoredRecord>();
  for (const path of paths.split(',')) {
    if (!existsSync(path)) continue;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line) continue;
      const r = JSON.parse(line) as ScoredRecord;
      // Records written before a derived feature existed get it from their stored counts, as the scorer computes it.
      if (r.features && r.features.kf_unsupported_unread === undefined)
        r.features.kf_unsupported_unread = unreadKeyFacts(r.features, r.windows, r.chunks_per_claim ?? DEFAULT_CHUNKS_PER_CLAIM);
      byId.set(`${r.set}/${r.id}`, r);
    }
  }
  return [...byId.values()];
}

/** Mean of the recall of each class at a threshold (score >= t means "consistent"). */
export function balancedAccuracy(scores: readonly number[], labels: readonly number[], t: number): number {
  let tp = 0;
  let pos = 0;
  let tn = 0;
  let neg = 0;
  scores.forEach((s, i) => {
    if (labels[i] === 1) {
      pos += 1;
      if (s >= t) tp += 1;
    } else {
      neg += 1;
      if (s < t) tn += 1;
    }
  });
  if (pos === 0 || neg === 0) return NaN;
  return (tp / pos + tn / neg) / 2;
}

/** ROC-AUC: P(score of a positive > score of a negative), ties half. */
export function rocAuc(scores: readonly number[], labels: readonly number[]): number {
  const order = scores.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0]);
  let rankSum = 0;
  let positives = 0;
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j += 1;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k += 1)
      if (labels[order[k]![1]] === 1) {
        rankSum += rank;
        positives += 1;
      }
    i = j + 1;
  }
  const negatives = scores.length - positives;
  return positives === 0 || negatives === 0 ? NaN : (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/**
 * Weighted logistic regression by Newton's method with a small L2 penalty (not on the bias).
 * Returns [bias, ...weights].
 */
export function fitLogistic(x: readonly number[][], y: readonly number[], w: readonly number[], l2 = 1e-3): number[] {
  const d = (x[0]?.length ?? 0) + 1;
  let beta = new Array<number>(d).fill(0);
  const row = (i: number): number[] => [1, ...x[i]!];
  const totalW = w.reduce((a, b) => a + b, 0);
  for (let iter = 0; iter < 50; iter += 1) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (let i = 0; i < x.length; i += 1) {
      const xi = row(i);
      const z = xi.reduce((a, v, k) => a + v * beta[k]!, 0);
      const p = 1 / (1 + Math.exp(-z));
      const wi = w[i]! / totalW;
      for (let a = 0; a < d; a += 1) {
        grad[a]! += wi * (p - y[i]!) * xi[a]!;
        for (let b = 0; b < d; b += 1) hess[a]![b]! += wi * p * (1 - p) * xi[a]! * xi[b]!;
      }
    }
    for (let a = 1; a < d; a += 1) {
      grad[a]! += l2 * beta[a]!;
      hess[a]![a]! += l2;
    }
    const step = solve(hess, grad);
    beta = beta.map((b, k) => b - step[k]!);
    if (Math.max(...step.map(Math.abs)) < 1e-8) break;
  }
  return beta;
}

function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((r, i) => [...r, b[i]!]);
  for (let c = 0; c < n; c += 1) {
    let pivot = c;
    for (let r = c + 1; r < n; r += 1) if (Math.abs(m[r]![c]!) > Math.abs(m[pivot]![c]!)) pivot = r;
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    const div = m[c]![c]! || 1e-12;
    for (let k = c; k <= n; k += 1) m[c]![k]! /= div;
    for (let r = 0; r < n; r += 1) {
      if (r === c) continue;
      const f = m[r]![c]!;
      for (let k = c; k <= n; k += 1) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((r) => r[n]!);
}

/** Per set weights summing to 1 per set, so every set counts the same whatever its size. */
export function perSetWeights(sets: readonly string[]): number[] {
  const counts = new Map<string, number>();
  for (const s of sets) counts.set(s, (counts.get(s) ?? 0) + 1);
  return sets.map((s) => 1 / counts.get(s)!);
}

/** The threshold maximising the mean over sets of balanced accuracy (candidates: a 0.01 grid). */
export function bestMacroThreshold(scores: readonly number[], labels: readonly number[], sets: readonly string[]): number {
  let best = 0.5;
  let bestValue = -1;
  for (let t = 0.05; t <= 0.951; t += 0.01) {
    const value = macroBalancedAccuracy(scores, labels, sets, t);
    if (value > bestValue + 1e-12) {
      bestValue = value;
      best = Math.round(t * 100) / 100;
    }
  }
  return best;
}

export function macroBalancedAccuracy(scores: readonly number[], labels: readonly number[], sets: readonly string[], t: number): number {
  const names = [...new Set(sets)];
  const values = names.map((name) => {
    const idx = sets.map((s, i) => (s === name ? i : -1)).filter((i) => i >= 0);
    return balancedAccuracy(
      idx.map((i) => scores[i]!),
      idx.map((i) => labels[i]!),
      t,
    );
  });
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export interface ReliabilityBin {
  from: number;
  to: number;
  n: number;
  mean_p: number | null;
  observed: number | null;
}

/** Ten equal-width bins of predicted P(consistent) against the observed share, and the expected calibration error. */
export function reliability(probabilities: readonly number[], labels: readonly number[]): { bins: ReliabilityBin[]; ece: number } {
  const sums = Array.from({ length: 10 }, () => ({ n: 0, sumP: 0, positives: 0 }));
  probabilities.forEach((p, i) => {
    const bin = sums[Math.min(9, Math.floor(p * 10))]!;
    bin.n += 1;
    bin.sumP += p;
    bin.positives += labels[i]!;
  });
  const ece = sums.reduce((a, b) => a + (b.n === 0 ? 0 : (b.n / probabilities.length) * Math.abs(b.sumP / b.n - b.positives / b.n)), 0);
  const bins = sums.map((b, i) => ({
    from: i / 10,
    to: (i + 1) / 10,
    n: b.n,
    mean_p: b.n ? b.sumP / b.n : null,
    observed: b.n ? b.positives / b.n : null,
  }));
  return { bins, ece };
}

/** The reliability table as markdown lines, under a caption. */
export function reliabilityTable(caption: string, table: { bins: ReliabilityBin[]; ece: number }, n: number): string[] {
  return [
    `${caption} (pooled test triples, n = ${n}; ECE ${table.ece.toFixed(3)}):`,
    '| p bin | n | mean p | observed P(consistent) |',
    '|---|---:|---:|---:|',
    ...table.bins
      .filter((b) => b.n > 0)
      .map((b) => `| ${b.from.toFixed(1)}-${b.to.toFixed(1)} | ${b.n} | ${b.mean_p!.toFixed(3)} | ${b.observed!.toFixed(3)} |`),
  ];
}

/** The test splits the macro reads: wice_oracle repeats wice's claims with short evidence, so it is reported but not counted. */
export const MACRO_TEST = ['wice', 'summedits', 'begin', 'expertqa', 'dialfact_testsmall', 'snli'];
/** Sets without dev/test splits, never tuned on: extra held-out sets. */
export const HELD_OUT_ALL = ['faithdial_audit', 'q2'];

/** Macro BA and AUC of each system over the test splits, and over them plus the held-out sets. */
export function macroSummary(
  systems: readonly string[],
  macro: (sets: readonly string[], system: string, metric: 'ba' | 'auc') => number,
): Record<'macro_test' | 'macro_test_and_held_out', Record<string, { ba: number; auc: number }>> {
  const over = (sets: readonly string[]) =>
    Object.fromEntries(systems.map((s) => [s, { ba: macro(sets, s, 'ba'), auc: macro(sets, s, 'auc') }]));
  return { macro_test: over(MACRO_TEST), macro_test_and_held_out: over([...MACRO_TEST, ...HELD_OUT_ALL]) };
}

/** Published balanced accuracies on the same test splits (LLM-AggreFact; README of the data), as "MiniCheck-DeBERTa-L / AlignScore". */
export const ANCHORS: Record<string, string> = { wice: '69.4 / 66.0', expertqa: '58.9 / 58.3' };

/** Prints the markdown and writes it beside the JSON report (`x.json` and `x.md`). */
export function writeReport(out: string, report: object, markdown: string): void {
  console.log(markdown);
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(out.replace(/\.json$/, '.md'), `${markdown}\n`);
}
