/**
 * Per-set balanced accuracy (with a bootstrap 95 % interval) and ROC-AUC of one or more scored runs on
 * the real test splits, compared on the triples every run scored. Where real-report.ts compares the
 * historical systems on the first 200 triples per set, this reads any sample size, so the figures can
 * come from whole test splits (or 1,000 triples of the larger ones), and shows how wide they still are.
 *
 *   npx tsx packages/fcs/scripts/real-table.ts --run v2.3=bench/fcs/real/v23-test-1000.jsonl \
 *     [--run v2.2=bench/fcs/real/v22-test-1000.jsonl@bench/fcs/real/combination-v2.2.json] [--bootstrap 2000] \
 *     [--out bench/fcs/real/table-1000.json]   (also writes the .md beside it)
 *
 * Each run is scored with its combination (default models/fcs/combination-v2.json) at that combination's
 * threshold; "model" is the model's min-over-claims probability at 0.5. The first run's probability also
 * gets a reliability table.
 */
import { parseArgs } from 'node:util';
import { combineV2, loadV2Combination, type V2Combination } from '../src/index.ts';
import {
  ANCHORS,
  balancedAccuracy,
  HELD_OUT_ALL,
  MACRO_TEST,
  macroSummary,
  readRecords,
  reliability,
  reliabilityTable,
  writeReport,
  rocAuc,
  type ScoredRecord,
} from './real-metrics.ts';

const { values } = parseArgs({
  options: {
    run: { type: 'string', multiple: true },
    bootstrap: { type: 'string', default: '2000' },
    out: { type: 'string', default: 'bench/fcs/real/table.json' },
  },
});
if (!values.run?.length) throw new Error('give at least one --run name=records.jsonl[@combination.json]');

interface Run {
  name: string;
  records: Map<string, ScoredRecord>;
  combination: V2Combination;
}
const runs: Run[] = values.run.map((spec) => {
  const match = /^([\w.-]+)=([^@]+)(?:@(.+))?$/.exec(spec);
  if (!match) throw new Error(`--run must be name=records.jsonl[@combination.json], got ${spec}`);
  const records = readRecords(match[2]!).filter((r) => r.features);
  if (records.length === 0) throw new Error(`--run ${match[1]}: no scored records in ${match[2]}`);
  return {
    name: match[1]!,
    records: new Map(records.map((r) => [`${r.set}/${r.id}`, r])),
    combination: loadV2Combination(match[3]),
  };
});
const keys = [...runs[0]!.records.keys()].filter((k) => runs.every((run) => run.records.has(k)));
const sets = [...MACRO_TEST, 'wice_oracle', ...HELD_OUT_ALL].filter((set) => keys.some((k) => k.startsWith(`${set}/`)));

/** A seeded generator (mulberry32), so the intervals are the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Percentile bootstrap of the balanced accuracy, resampling triples within the set. */
function bootstrapInterval(scores: readonly number[], labels: readonly number[], t: number, rounds: number): [number, number] {
  const next = random(11);
  const draws: number[] = [];
  for (let b = 0; b < rounds; b += 1) {
    const s: number[] = [];
    const y: number[] = [];
    for (let i = 0; i < scores.length; i += 1) {
      const k = Math.floor(next() * scores.length);
      s.push(scores[k]!);
      y.push(labels[k]!);
    }
    const ba = balancedAccuracy(s, y, t);
    if (!Number.isNaN(ba)) draws.push(ba);
  }
  draws.sort((a, b) => a - b);
  return [draws[Math.floor(0.025 * draws.length)]!, draws[Math.floor(0.975 * draws.length)]!];
}

interface Cell {
  ba: number;
  auc: number;
  ci: [number, number];
  model_ba: number;
  model_auc: number;
}
const table: Record<string, { n: number; runs: Record<string, Cell> }> = {};
const rounds = Number(values.bootstrap);
for (const set of sets) {
  const ks = keys.filter((k) => k.startsWith(`${set}/`));
  table[set] = { n: ks.length, runs: {} };
  for (const run of runs) {
    const rows = ks.map((k) => run.records.get(k)!);
    const labels = rows.map((r) => r.label);
    const scores = rows.map((r) => combineV2(r.features!, run.combination));
    const model = rows.map((r) => r.features!.model_min!);
    table[set].runs[run.name] = {
      ba: 100 * balancedAccuracy(scores, labels, run.combination.threshold),
      auc: 100 * rocAuc(scores, labels),
      ci: bootstrapInterval(scores, labels, run.combination.threshold, rounds).map((x) => 100 * x) as [number, number],
      model_ba: 100 * balancedAccuracy(model, labels, 0.5),
      model_auc: 100 * rocAuc(model, labels),
    };
  }
}
const macro = (names: readonly string[], run: string, metric: 'ba' | 'auc' | 'model_ba' | 'model_auc'): number => {
  const present = names.filter((n) => table[n]);
  return present.reduce((a, n) => a + table[n]!.runs[run]![metric], 0) / Math.max(1, present.length);
};

// Reliability of the first run's probability on the pooled test triples.
const first = runs[0]!;
const calibration = reliability(
  keys.map((k) => combineV2(first.records.get(k)!.features!, first.combination)),
  keys.map((k) => first.records.get(k)!.label),
);

const f = (x: number): string => (Number.isNaN(x) ? 'n/a' : x.toFixed(1));
const lines: string[] = [];
lines.push(
  `| set | n | ${runs.map((r) => `${r.name} model BA / AUC | **${r.name} combined BA [95 % CI] / AUC**`).join(' | ')} | anchors MiniCheck-DeBERTa-L / AlignScore |`,
);
lines.push(`|---|---:|${runs.map(() => '---:|---:|').join('')}---:|`);
for (const set of sets) {
  const note = HELD_OUT_ALL.includes(set) ? ' (all, held out)' : set === 'wice_oracle' ? ' (same claims as wice)' : '';
  const cells = runs.map((run) => {
    const c = table[set]!.runs[run.name]!;
    return `${f(c.model_ba)} / ${f(c.model_auc)} | **${f(c.ba)}** [${f(c.ci[0])}-${f(c.ci[1])}] / ${f(c.auc)}`;
  });
  lines.push(`| ${set}${note} | ${table[set]!.n} | ${cells.join(' | ')} | ${ANCHORS[set] ?? ''} |`);
}
for (const [label, names] of [
  ['macro, test splits (wice once)', MACRO_TEST],
  ['macro, test splits + held-out sets', [...MACRO_TEST, ...HELD_OUT_ALL]],
] as const) {
  const cells = runs.map(
    (run) =>
      `${f(macro(names, run.name, 'model_ba'))} / ${f(macro(names, run.name, 'model_auc'))} | **${f(macro(names, run.name, 'ba'))}** / ${f(macro(names, run.name, 'auc'))}`,
  );
  lines.push(`| **${label}** | | ${cells.join(' | ')} | |`);
}
lines.push('');
lines.push(...reliabilityTable(`Reliability of ${first.name}'s probability`, calibration, keys.length));
const markdown = lines.join('\n');
writeReport(
  values.out,
  {
    triples: keys.length,
    runs: runs.map((r) => ({ name: r.name, combination: r.combination })),
    bootstrap_rounds: rounds,
    per_set: table,
    ...macroSummary(
      runs.map((r) => r.name),
      macro,
    ),
    reliability: calibration.bins,
    ece: calibration.ece,
  },
  markdown,
);
