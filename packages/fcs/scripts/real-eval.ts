/**
 * Scores the human-labelled factual-consistency sets (/work/shared/data/factcheck, see its README) with
 * the FCS runtime, one JSONL record per triple, resumable (triples already in --out are skipped), so a
 * long run on the shared 2-core machine can be stopped and continued.
 *
 *   OMP_NUM_THREADS=1 nice -n 19 npx tsx packages/fcs/scripts/real-eval.ts --scorer v1|v2 --split test|dev \
 *     [--sets wice,summedits,...] [--max-per-set 400] [--seed fcs-real] [--data DIR] [--model PATH] \
 *     [--part fit|train|all  (dev only; default fit, the part no model trained on: devPart)] \
 *     [--max-tokens 256 --chunks-per-claim 6 --max-windows 32  (window size and evidence budget, for trade-offs)] --out bench/fcs/real/v1-test.jsonl
 *
 * Sampling: per (set, split), rows are ordered by sha1(seed:id) and the first --max-per-set are kept, so
 * every scorer sees exactly the same triples. Sets without dev/test splits (split "all": faithdial_audit,
 * q2) are read only with --split test: they are never used for tuning and serve as extra held-out sets.
 * Metrics: real-report.ts.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FactConsistencyScorer } from '../src/index.ts';
import type { FcsResult } from '../src/index.ts';

export interface RealRow {
  id: string;
  source: string;
  split: string;
  question: string;
  evidence: string;
  answer: string;
  label: number;
}

export const DEFAULT_FACTCHECK_DIR = process.env.FACTCHECK_DIR ?? '/work/shared/data/factcheck';
export const TEST_SETS = ['wice', 'wice_oracle', 'summedits', 'begin', 'expertqa', 'dialfact_testsmall', 'snli', 'faithdial_audit', 'q2'];
export const DEV_SETS = ['wice', 'summedits', 'begin', 'expertqa', 'snli'];

/**
 * The dev splits are cut in two by a fixed hash of the id: `train` (about 80 %) fine-tunes the model
 * (training-pairs.ts), `fit` (about 20 %) fits the combination and its threshold (real-fit.ts), so the
 * combination never weighs a model on triples it was trained on.
 */
export function devPart(id: string): 'train' | 'fit' {
  // wice_oracle-N is the claim wice-N with shorter evidence: both must fall on the same side.
  const claim = id.replace(/^wice_oracle-/, 'wice-');
  return Number.parseInt(createHash('sha1').update(`fcs-dev-part:${claim}`).digest('hex').slice(0, 2), 16) < 52 ? 'fit' : 'train';
}

/** The rows of one set and split (split "all" rows count as test), in seeded hash order, capped. */
export function sampleRows(dir: string, set: string, split: 'dev' | 'test', max: number, seed: string): RealRow[] {
  const rows = readFileSync(`${dir}/${set}.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RealRow)
    .filter((r) => r.split === split || (split === 'test' && r.split === 'all'));
  const key = (r: RealRow): string => createHash('sha1').update(`${seed}:${r.id}`).digest('hex');
  return rows
    .map((r) => [key(r), r] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .slice(0, max)
    .map(([, r]) => r);
}

function positiveInteger(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${flag} must be a positive integer, got ${value}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      scorer: { type: 'string', default: 'v2' },
      split: { type: 'string', default: 'test' },
      sets: { type: 'string' },
      'max-per-set': { type: 'string', default: '400' },
      seed: { type: 'string', default: 'fcs-real' },
      data: { type: 'string', default: DEFAULT_FACTCHECK_DIR },
      model: { type: 'string' },
      'batch-size': { type: 'string', default: '4' },
      'all-features': { type: 'boolean' },
      // dev only: 'fit' (default) keeps the triples the model was not trained on (devPart), 'all' every dev triple.
      part: { type: 'string', default: 'fit' },
      // The scorer's own defaults unless given: shorter windows trade accuracy for per-window latency.
      'max-tokens': { type: 'string' },
      'chunks-per-claim': { type: 'string' },
      'max-windows': { type: 'string' },
      out: { type: 'string' },
    },
  });
  const split = values.split === 'dev' ? 'dev' : 'test';
  if (!['fit', 'train', 'all'].includes(values.part)) throw new Error(`--part must be fit, train or all, got ${values.part}`);
  const sets = values.sets ? values.sets.split(',') : split === 'dev' ? DEV_SETS : TEST_SETS;
  const out = values.out ?? `bench/fcs/real/${values.scorer}-${split}.jsonl`;
  const done = new Set<string>();
  if (existsSync(out)) {
    for (const line of readFileSync(out, 'utf8').split('\n')) if (line) done.add((JSON.parse(line) as { id: string }).id);
  }
  const scorer = await FactConsistencyScorer.load({
    scorerVersion: values.scorer === 'v1' ? 'v1' : 'v2',
    // Dev: every feature (fitting, the question ablation); test: those the scorer computes anyway
    // (model with the question in context, lexical, key facts) — half the model calls on question sets.
    allFeatures: values.scorer !== 'v1' && (values['all-features'] ?? split === 'dev'),
    ...(values.model ? { modelPath: values.model } : {}),
    ...(values['max-tokens'] ? { maxTokens: positiveInteger('max-tokens', values['max-tokens']) } : {}),
    ...(values['chunks-per-claim'] ? { maxChunksPerClaim: positiveInteger('chunks-per-claim', values['chunks-per-claim']) } : {}),
    ...(values['max-windows'] ? { maxWindows: positiveInteger('max-windows', values['max-windows']) } : {}),
    intraOpNumThreads: 1,
    cache: false,
    logger: false,
  });
  const batchSize = Number(values['batch-size']);
  for (const set of sets) {
    const inPart = (r: RealRow): boolean => split !== 'dev' || values.part === 'all' || devPart(r.id) === values.part;
    const rows = sampleRows(values.data, set, split, Number.MAX_SAFE_INTEGER, values.seed)
      .filter(inPart)
      .slice(0, Number(values['max-per-set']))
      .filter((r) => !done.has(r.id));
    const started = performance.now();
    for (let from = 0; from < rows.length; from += batchSize) {
      const batch = rows.slice(from, from + batchSize);
      const results: FcsResult[] = await scorer.scoreMany(batch.map(({ question, evidence, answer }) => ({ question, evidence, answer })));
      const lines = results.map((r, k) => {
        const row = batch[k]!;
        return JSON.stringify({
          id: row.id,
          set,
          split,
          label: row.label,
          score: r.score,
          model_probability: r.model_probability,
          windows: r.windows,
          features: r.features,
          question_missing: r.question_missing,
          // How the features were read: real-fit.ts writes the combination's windowing from these.
          window_tokens: scorer.windowing.max_tokens,
          chunks_per_claim: scorer.windowing.chunks_per_claim,
        });
      });
      appendFileSync(out, `${lines.join('\n')}\n`);
      const seconds = (performance.now() - started) / 1000;
      process.stderr.write(`${set} ${split}: ${Math.min(from + batchSize, rows.length)}/${rows.length} (${seconds.toFixed(0)} s)\n`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
