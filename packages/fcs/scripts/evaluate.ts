/**
 * Evaluates the FCS runtime the sentinel uses (model + key-fact check, combined) on labelled triples,
 * next to the model alone and the key-fact check alone, overall and per perturbation kind.
 *
 *   nice -n 0 npx tsx packages/fcs/scripts/evaluate.ts [--data models/fcs/data/test.jsonl] [--model models/fcs/model.int8.onnx]
 *        [--threshold 0.5] [--limit N] [--out report.json]
 *
 * Positive class for precision/recall/F1: "inconsistent" (what the sentinel alerts on); F1 of
 * "consistent" and macro-F1 are printed too. Per kind: the fraction judged correctly (for perturbed
 * kinds that is the recall of inconsistency; for copy/paraphrase the recall of consistency).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { combineScore, DEFAULT_MODEL_PATH, FactConsistencyScorer } from '../src/index.ts';

interface Row {
  question: string;
  evidence: string[] | string;
  answer: string;
  label: number;
  kind?: string;
}

const { values } = parseArgs({
  options: {
    data: {
      type: 'string',
      default: join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'models', 'fcs', 'data', 'test.jsonl'),
    },
    // A smaller variant (e.g. models/fcs/variants/l4-s128) needs its own token budget.
    tokenizer: {
      type: 'string',
      default: join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'models', 'fcs', 'tokenizer.json'),
    },
    // Default: 256 for v1; v2 reads windows as its combination was fitted (combination-v2.json windowing).
    'max-tokens': { type: 'string' },
    threads: { type: 'string', default: '1' },
    model: { type: 'string', default: DEFAULT_MODEL_PATH },
    threshold: { type: 'string', default: '0.5' },
    limit: { type: 'string' },
    'batch-size': { type: 'string', default: '32' },
    out: { type: 'string' },
    scorer: { type: 'string', default: 'v1' },
  },
});
const threshold = Number(values.threshold);
const rows = readFileSync(values.data, 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Row)
  .slice(0, values.limit === undefined ? undefined : Number(values.limit));

const maxTokens = values['max-tokens'] !== undefined ? Number(values['max-tokens']) : values.scorer === 'v2' ? undefined : 256;
const scorer = await FactConsistencyScorer.load({
  // The synthetic-set figures in bench/fcs/RESULTS.md are v1's; real-eval.ts evaluates both.
  scorerVersion: values.scorer === 'v2' ? 'v2' : 'v1',
  modelPath: values.model,
  tokenizerPath: values.tokenizer,
  ...(maxTokens !== undefined ? { maxTokens } : {}),
  intraOpNumThreads: Number(values.threads),
  threshold,
  cache: false,
});
const batchSize = Number(values['batch-size']);
const combined: number[] = [];
const modelOnly: number[] = [];
const rulesOnly: number[] = [];
const started = performance.now();
for (let from = 0; from < rows.length; from += batchSize) {
  const batch = rows.slice(from, from + batchSize);
  const results = await scorer.scoreMany(batch.map(({ question, evidence, answer }) => ({ question, evidence, answer })));
  for (const r of results) {
    combined.push(r.score ?? 0);
    modelOnly.push(r.model_probability ?? 0);
    // The key-fact check alone: the same combination around an uninformative model (p = 0.5).
    rulesOnly.push(combineScore(0.5, r.key_fact_findings));
  }
  process.stderr.write(`\r${Math.min(from + batchSize, rows.length)}/${rows.length} triples`);
}
const seconds = (performance.now() - started) / 1000;
process.stderr.write(`\n`);

const labels = rows.map((r) => r.label === 1);

function metrics(scores: number[], t: number) {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  scores.forEach((s, i) => {
    const predictedInconsistent = s < t;
    const inconsistent = !labels[i];
    if (predictedInconsistent && inconsistent) tp += 1;
    else if (predictedInconsistent) fp += 1;
    else if (inconsistent) fn += 1;
    else tn += 1;
  });
  const f1 = (a: number, b: number, c: number): number => (a === 0 ? 0 : (2 * a) / (2 * a + b + c));
  const f1Inconsistent = f1(tp, fp, fn);
  const f1Consistent = f1(tn, fn, fp);
  return {
    n: scores.length,
    accuracy: (tp + tn) / scores.length,
    precision_inconsistent: tp / Math.max(1, tp + fp),
    recall_inconsistent: tp / Math.max(1, tp + fn),
    f1_inconsistent: f1Inconsistent,
    f1_consistent: f1Consistent,
    macro_f1: (f1Inconsistent + f1Consistent) / 2,
    roc_auc: rocAuc(scores),
  };
}

/** P(score of a consistent triple > score of an inconsistent one), ties counting half. */
function rocAuc(scores: number[]): number {
  const order = scores.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0]);
  let rankSum = 0;
  let positives = 0;
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j += 1;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k += 1)
      if (labels[order[k]![1]]) {
        rankSum += rank;
        positives += 1;
      }
    i = j + 1;
  }
  const negatives = scores.length - positives;
  return positives === 0 || negatives === 0 ? NaN : (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

function perKind(scores: number[], t: number): Record<string, { n: number; correct: number }> {
  const out: Record<string, { n: number; correct: number }> = {};
  rows.forEach((r, i) => {
    const k = (out[r.kind ?? 'all'] ??= { n: 0, correct: 0 });
    k.n += 1;
    if (scores[i]! >= t === labels[i]) k.correct += 1;
  });
  return out;
}

const systems: Record<'combined' | 'model' | 'key_facts', number[]> = { combined, model: modelOnly, key_facts: rulesOnly };
const names = Object.keys(systems) as (keyof typeof systems)[];
const report = {
  data: values.data,
  model: values.model,
  execution_provider: scorer.executionProvider,
  threshold,
  max_tokens: maxTokens ?? scorer.windowing.max_tokens,
  triples: rows.length,
  seconds: Math.round(seconds * 10) / 10,
  overall: Object.fromEntries(names.map((name) => [name, metrics(systems[name], threshold)])) as Record<
    keyof typeof systems,
    ReturnType<typeof metrics>
  >,
  per_kind: Object.fromEntries(names.map((name) => [name, perKind(systems[name], threshold)])) as Record<
    keyof typeof systems,
    ReturnType<typeof perKind>
  >,
};

const pct = (x: number): string => (Number.isNaN(x) ? '  n/a' : (100 * x).toFixed(1).padStart(5));
console.log(`FCS evaluation: ${rows.length} triples from ${values.data}`);
console.log(
  `model ${values.model} on ${scorer.executionProvider}, max tokens ${maxTokens ?? scorer.windowing.max_tokens}, threshold ${threshold}, ${report.seconds} s\n`,
);
console.log('system      accuracy  P(incons)  R(incons)  F1(incons)  F1(cons)  macro-F1  ROC-AUC');
for (const [name, m] of Object.entries(report.overall)) {
  console.log(
    `${name.padEnd(10)}  ${pct(m.accuracy)}     ${pct(m.precision_inconsistent)}      ${pct(m.recall_inconsistent)}      ${pct(m.f1_inconsistent)}      ${pct(m.f1_consistent)}    ${pct(m.macro_f1)}    ${pct(m.roc_auc)}`,
  );
}
console.log('\nper kind: % judged correctly (recall of the right label)');
console.log(`kind            label    n   combined  model  key_facts`);
for (const kind of Object.keys(report.per_kind.combined).sort()) {
  const c = report.per_kind.combined[kind]!;
  const label = rows.find((r) => (r.kind ?? 'all') === kind)!.label === 1 ? 'cons' : 'incons';
  const cell = (name: keyof typeof systems): string => pct(report.per_kind[name][kind]!.correct / c.n);
  console.log(
    `${kind.padEnd(14)}  ${label.padEnd(6)} ${String(c.n).padStart(4)}   ${cell('combined')}   ${cell('model')}    ${cell('key_facts')}`,
  );
}
if (values.out) writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
