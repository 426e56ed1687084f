/**
 * What a multi-sample detector would have said on bench/langchain-rag's clean runs
 * (results/latest-runs.jsonl): each probe's results in windows of k consecutive runs, and in each
 * window online FCS against baseline FCS by a one-sided exact Mann–Whitney test (the baseline's own
 * samples are the spread sampling noise has), firing only when p < alpha and the median FCS drop is
 * over the present fcs_drop threshold. Beside it, the present per-result signals and a k-of-k vote
 * over them. Clean runs only: it measures false alarms, not whether faults are still caught.
 * Usage: npx tsx bench/langchain-rag/analyse.ts [--k 5 --alpha 0.01 --drop 0.15]
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { k: { type: 'string', default: '5' }, alpha: { type: 'string', default: '0.01' }, drop: { type: 'string', default: '0.15' } },
});
const k = Number(values.k);
const alpha = Number(values.alpha);
const minDrop = Number(values.drop);

interface Row {
  probe_id: string;
  anomaly: boolean;
  online_fcs: number | null;
  baseline_fcs: number | null;
}

/** P(U <= observed) under H0 for "online tends lower", exact over every split of the pooled samples (midranks for ties). */
export function mannWhitneyLowerP(online: readonly number[], baseline: readonly number[]): number {
  const pooled = [...online, ...baseline];
  const sorted = [...pooled].sort((a, b) => a - b);
  const rank = (v: number) => {
    const first = sorted.indexOf(v);
    const last = sorted.lastIndexOf(v);
    return (first + last) / 2 + 1;
  };
  const ranks = pooled.map(rank);
  const n = online.length;
  const u = (chosen: number[]) => chosen.reduce((sum, i) => sum + ranks[i]!, 0) - (n * (n + 1)) / 2;
  const observed = u(online.map((_, i) => i));
  let atMost = 0;
  let total = 0;
  const pick = (start: number, chosen: number[]) => {
    if (chosen.length === n) {
      total += 1;
      if (u(chosen) <= observed + 1e-9) atMost += 1;
      return;
    }
    for (let i = start; i <= pooled.length - (n - chosen.length); i++) pick(i + 1, [...chosen, i]);
  };
  pick(0, []);
  return atMost / total;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

// With k samples a side the exact test's p is never below 1 / C(2k, k): an alpha under it could never fire.
const floor = 1 / [...Array(k).keys()].reduce((c, i) => (c * (2 * k - i)) / (i + 1), 1);
if (floor >= alpha) {
  console.error(`k=${k} cannot reach p < ${alpha} (smallest possible p ${floor.toFixed(4)}): use a larger k`);
  process.exit(64);
}

const rows: Row[] = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'results', 'latest-runs.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Row);
const scored = rows.filter((r) => r.online_fcs !== null && r.baseline_fcs !== null);
const byProbe = new Map<string, Row[]>();
for (const row of rows) byProbe.set(row.probe_id, [...(byProbe.get(row.probe_id) ?? []), row]);

let windows = 0;
let testFires = 0;
let voteFires = 0;
let anyFires = 0;
for (const runs of byProbe.values()) {
  for (let start = 0; start + k <= runs.length; start += k) {
    const window = runs.slice(start, start + k).filter((r) => r.online_fcs !== null && r.baseline_fcs !== null);
    if (window.length < k) continue;
    windows += 1;
    const online = window.map((r) => r.online_fcs!);
    const baseline = window.map((r) => r.baseline_fcs!);
    if (mannWhitneyLowerP(online, baseline) < alpha && median(baseline) - median(online) > minDrop) testFires += 1;
    if (window.every((r) => r.anomaly)) voteFires += 1;
    if (window.some((r) => r.anomaly)) anyFires += 1;
  }
}
console.log(
  JSON.stringify(
    {
      results: rows.length,
      per_result_anomalous_rate: +(rows.filter((r) => r.anomaly).length / Math.max(1, rows.length)).toFixed(4),
      // Sampling noise is symmetric: the baseline's FCS falls below the online one's as often as the reverse.
      online_fcs_below_baseline_by_drop: +(
        scored.filter((r) => r.baseline_fcs! - r.online_fcs! > minDrop).length / Math.max(1, scored.length)
      ).toFixed(4),
      baseline_fcs_below_online_by_drop: +(
        scored.filter((r) => r.online_fcs! - r.baseline_fcs! > minDrop).length / Math.max(1, scored.length)
      ).toFixed(4),
      windows_of_k: { k, windows },
      any_result_in_window_anomalous: +(anyFires / Math.max(1, windows)).toFixed(4),
      all_k_results_anomalous: +(voteFires / Math.max(1, windows)).toFixed(4),
      mann_whitney_fcs: { alpha, min_median_drop: minDrop, fired: testFires, rate: +(testFires / Math.max(1, windows)).toFixed(4) },
      smallest_possible_p: +floor.toFixed(4),
    },
    null,
    2,
  ),
);
