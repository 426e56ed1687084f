/**
 * Per-set balanced accuracy and ROC-AUC on the real test splits for v1 (model alone, combined), v2 (the
 * v1 model applied per claim, lexical alone, the v2.0 combination and the shipped v2.2 one) and v2.1 (the
 * model fine-tuned on the real dev sets, model alone and with its refitted combination: a candidate, not
 * shipped), next to the published anchors, plus a reliability table of the v2.2 probability, on the first
 * 200 test triples per set. Only triples scored by every system are compared. This is the historical
 * comparison; v2.3 (shipped now) against v2.2 on up to 1,000 triples per set: real-table.ts.
 *
 *   npx tsx packages/fcs/scripts/real-report.ts [--v1 bench/fcs/real/v1-test.jsonl] [--v2 bench/fcs/real/v2-test.jsonl] [--v21 bench/fcs/real/v21-test.jsonl]
 *     [--dev bench/fcs/real/v2-dev.jsonl] [--combination bench/fcs/real/combination-v2.2.json] [--v20-combination bench/fcs/real/combination-v2.0.json] [--v21-combination bench/fcs/real/combination-v2.1-candidate.json]
 *     [--out bench/fcs/real/report.json]
 */
import { parseArgs } from 'node:util';
import { combineV2, loadV2Combination } from '../src/index.ts';
import type { ScoredRecord } from './real-metrics.ts';
import {
  ANCHORS,
  balancedAccuracy,
  bestMacroThreshold,
  HELD_OUT_ALL,
  MACRO_TEST,
  macroSummary,
  readRecords,
  reliability,
  reliabilityTable,
  writeReport,
  rocAuc,
} from './real-metrics.ts';

const { values } = parseArgs({
  options: {
    v1: { type: 'string', default: 'bench/fcs/real/v1-test.jsonl' },
    v2: { type: 'string', default: 'bench/fcs/real/v2-test.jsonl,bench/fcs/real/v2-test-b.jsonl' },
    dev: { type: 'string', default: 'bench/fcs/real/v2-dev.jsonl,bench/fcs/real/v2-dev-summedits.jsonl' },
    // v2.2: the v1 model applied per claim with 256-token windows, and its combination (shipped until v2.3,
    // whose 128-token windows these records were not scored with: real-table.ts compares v2.3).
    combination: { type: 'string', default: 'bench/fcs/real/combination-v2.2.json' },
    // The combination shipped before (v2.0): lex_cov and model_min, fitted on the first dev sample.
    'v20-combination': { type: 'string', default: 'bench/fcs/real/combination-v2.0.json' },
    // The candidate not shipped (v2.1): the model fine-tuned on the dev 'train' part, its combination fitted on the 'fit' part.
    v21: { type: 'string', default: 'bench/fcs/real/v21-test.jsonl' },
    'v21-combination': { type: 'string', default: 'bench/fcs/real/combination-v2.1-candidate.json' },
    out: { type: 'string', default: 'bench/fcs/real/report.json' },
  },
});

const combination = loadV2Combination(values.combination);
const combination20 = loadV2Combination(values['v20-combination']);
const v1 = new Map(readRecords(values.v1).map((r) => [`${r.set}/${r.id}`, r]));
const v2 = new Map(readRecords(values.v2).map((r) => [`${r.set}/${r.id}`, r]));
const combination21 = loadV2Combination(values['v21-combination']);
const v21 = new Map(readRecords(values.v21).map((r) => [`${r.set}/${r.id}`, r]));
// Only triples every system scored, so each column reads the same rows.
const keys = [...v2.keys()].filter((k) => v1.has(k) && v21.has(k));
const sets = [...new Set(keys.map((k) => v2.get(k)!.set))];

// The lexical rule's threshold is chosen on dev, like everything else.
const dev = readRecords(values.dev).filter((r) => r.features);
const lexThreshold = dev.length
  ? bestMacroThreshold(
      dev.map((r) => r.features!.lex_cov!),
      dev.map((r) => r.label),
      dev.map((r) => r.set),
    )
  : 0.5;

type System = { name: string; threshold: number; score: (a: ScoredRecord, b: ScoredRecord, c: ScoredRecord) => number };
const systems: System[] = [
  { name: 'v1_model', threshold: 0.5, score: (a) => a.model_probability ?? 0 },
  { name: 'v1_combined', threshold: 0.5, score: (a) => a.score ?? 0 },
  { name: 'v2_model', threshold: 0.5, score: (_, b) => b.features!.model_min! },
  { name: 'lexical', threshold: lexThreshold, score: (_, b) => b.features!.lex_cov! },
  { name: 'v20_combined', threshold: combination20.threshold, score: (_, b) => combineV2(b.features!, combination20) },
  { name: 'v2_combined', threshold: combination.threshold, score: (_, b) => combineV2(b.features!, combination) },
  { name: 'v21_model', threshold: 0.5, score: (_, __, c) => c.features!.model_min! },
  { name: 'v21_combined', threshold: combination21.threshold, score: (_, __, c) => combineV2(c.features!, combination21) },
];

const table: Record<string, Record<string, { n: number; balanced_accuracy: number; auc: number }>> = {};
for (const set of sets) {
  const ks = keys.filter((k) => v2.get(k)!.set === set);
  const labels = ks.map((k) => v2.get(k)!.label);
  table[set] = {};
  for (const s of systems) {
    const scores = ks.map((k) => s.score(v1.get(k)!, v2.get(k)!, v21.get(k)!));
    table[set][s.name] = {
      n: ks.length,
      balanced_accuracy: 100 * balancedAccuracy(scores, labels, s.threshold),
      auc: 100 * rocAuc(scores, labels),
    };
  }
}
const macro = (names: string[], system: string, metric: 'balanced_accuracy' | 'auc'): number => {
  const present = names.filter((n) => table[n]);
  return present.reduce((a, n) => a + table[n]![system]![metric], 0) / Math.max(1, present.length);
};

// Reliability of the shipped (v2.2) probability on the pooled test triples (each set as sampled).
const calibration = reliability(
  keys.map((k) => combineV2(v2.get(k)!.features!, combination)),
  keys.map((k) => v2.get(k)!.label),
);

const f = (x: number): string => (Number.isNaN(x) ? 'n/a' : x.toFixed(1));
const lines: string[] = [];
lines.push(
  `| set | n | v1 model BA / AUC | v1 combined BA / AUC | v2 model BA / AUC | lexical BA / AUC | v2.0 combined BA / AUC | **v2.2 combined (shipped) BA / AUC** | v2.1 model BA / AUC | v2.1 combined BA / AUC | anchors MiniCheck-DeBERTa-L / AlignScore |`,
);
lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const order = [...MACRO_TEST, 'wice_oracle', ...HELD_OUT_ALL].filter((s) => table[s]);
for (const set of order) {
  const t = table[set]!;
  const cell = (name: string): string => `${f(t[name]!.balanced_accuracy)} / ${f(t[name]!.auc)}`;
  const anchor = ANCHORS[set] ?? '';
  const note = HELD_OUT_ALL.includes(set) ? ' (all, held out)' : set === 'wice_oracle' ? ' (same claims as wice)' : '';
  lines.push(
    `| ${set}${note} | ${t.v2_combined!.n} | ${cell('v1_model')} | ${cell('v1_combined')} | ${cell('v2_model')} | ${cell('lexical')} | ${cell('v20_combined')} | **${cell('v2_combined')}** | ${cell('v21_model')} | ${cell('v21_combined')} | ${anchor} |`,
  );
}
for (const [label, names] of [
  ['macro, test splits (wice once)', MACRO_TEST],
  ['macro, test splits + held-out sets', [...MACRO_TEST, ...HELD_OUT_ALL]],
] as const) {
  const cell = (name: string): string => `${f(macro([...names], name, 'balanced_accuracy'))} / ${f(macro([...names], name, 'auc'))}`;
  lines.push(
    `| **${label}** | | ${cell('v1_model')} | ${cell('v1_combined')} | ${cell('v2_model')} | ${cell('lexical')} | ${cell('v20_combined')} | **${cell('v2_combined')}** | ${cell('v21_model')} | ${cell('v21_combined')} | |`,
  );
}
lines.push('');
lines.push(
  `Question context on the DEV splits (v2.0 model alone, BA / AUC at 0.5; the scorer prefixes the question to short claims only):`,
);
lines.push('| set | short claims only (shipped) | always | never |');
lines.push('|---|---:|---:|---:|');
for (const set of [...new Set(dev.map((r) => r.set))].sort()) {
  const rows = dev.filter((r) => r.set === set && r.question_missing === false && r.features!.model_q_min !== undefined);
  if (rows.length === 0) continue;
  const y = rows.map((r) => r.label);
  const cell = (name: 'model_min' | 'model_q_min' | 'model_noq_min'): string => {
    const p = rows.map((r) => r.features![name]!);
    return `${f(100 * balancedAccuracy(p, y, 0.5))} / ${f(100 * rocAuc(p, y))}`;
  };
  lines.push(`| ${set} (n=${rows.length}) | ${cell('model_min')} | ${cell('model_q_min')} | ${cell('model_noq_min')} |`);
}
lines.push('');
lines.push(...reliabilityTable('Reliability of the shipped v2.2 probability', calibration, keys.length));
const markdown = lines.join('\n');
writeReport(
  values.out,
  {
    triples: keys.length,
    lexical_threshold_from_dev: lexThreshold,
    combination_shipped: combination,
    combination_v20: combination20,
    combination_v21: combination21,
    per_set: table,
    ...macroSummary(
      systems.map((s) => s.name),
      (sets, system, metric) => macro([...sets], system, metric === 'ba' ? 'balanced_accuracy' : 'auc'),
    ),
    reliability: calibration.bins,
    ece: calibration.ece,
  },
  markdown,
);
