/**
 * Writes the model inputs FCS v2 would score for each training triple (claims x ranked evidence chunks,
 * question in front of short claims), so models/fcs/recipe/train_real.py fine-tunes on exactly what the
 * runtime feeds the model. Real data: the `dev` splits only, and of those only the `train` part
 * (devPart in real-eval.ts); the `fit` part is kept for fitting the combination and its threshold.
 *
 *   npx tsx packages/fcs/scripts/training-pairs.ts --out models/fcs/ckpt/real-pairs.jsonl \
 *     [--snli 2500] [--synthetic 1500] [--max-claims 4] [--max-chunks 3]
 *
 * One JSONL record per triple: { id, set, label, pairs: [[ [input_ids, token_type_ids], ... per chunk ], ... per claim ] }.
 */
import { createWriteStream, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FactConsistencyScorer } from '../src/index.ts';
import type { FcsInput } from '../src/index.ts';
import { DEFAULT_FACTCHECK_DIR, devPart, sampleRows } from './real-eval.ts';

/** wice_oracle, not wice: the same dev claims with the annotators' chunks, so positives are truly supported by the window. */
export const TRAINING_SETS = ['wice_oracle', 'expertqa', 'summedits', 'begin', 'snli'];

interface TrainingTriple extends FcsInput {
  id: string;
  set: string;
  label: number;
}

function syntheticTriples(path: string, max: number): TrainingTriple[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(0, max)
    .map((line, i) => {
      const row = JSON.parse(line) as { question: string; evidence: string[]; answer: string; label: number };
      return {
        id: `synthetic-${i}`,
        set: 'synthetic',
        question: row.question,
        evidence: row.evidence,
        answer: row.answer,
        label: row.label,
      };
    });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: 'models/fcs/ckpt/real-pairs.jsonl' },
      data: { type: 'string', default: DEFAULT_FACTCHECK_DIR },
      snli: { type: 'string', default: '2500' },
      synthetic: { type: 'string', default: '1500' },
      'synthetic-path': { type: 'string', default: 'models/fcs/data/train.jsonl' },
      'max-claims': { type: 'string', default: '4' },
      'max-chunks': { type: 'string', default: '3' },
    },
  });
  const scorer = await FactConsistencyScorer.load({
    scorerVersion: 'v2',
    maxClaims: Number(values['max-claims']),
    maxChunksPerClaim: Number(values['max-chunks']),
    intraOpNumThreads: 1,
    cache: false,
    logger: false,
  });
  const triples: TrainingTriple[] = [];
  for (const set of TRAINING_SETS) {
    const cap = set === 'snli' ? Number(values.snli) : Number.MAX_SAFE_INTEGER;
    const rows = sampleRows(values.data, set, 'dev', Number.MAX_SAFE_INTEGER, 'fcs-train').filter((r) => devPart(r.id) === 'train');
    for (const r of rows.slice(0, cap))
      triples.push({ id: r.id, set, question: r.question, evidence: r.evidence, answer: r.answer, label: r.label });
  }
  triples.push(...syntheticTriples(values['synthetic-path'], Number(values.synthetic)));
  const out = createWriteStream(values.out);
  const counts = new Map<string, { triples: number; pairs: number }>();
  for (const t of triples) {
    const { pairs } = scorer.claimChunkPairs(t);
    if (pairs.length === 0) continue;
    out.write(
      `${JSON.stringify({ id: t.id, set: t.set, label: t.label, pairs: pairs.map((chunks) => chunks.map((p) => [p.inputIds, p.tokenTypeIds])) })}\n`,
    );
    const c = counts.get(t.set) ?? { triples: 0, pairs: 0 };
    c.triples += 1;
    c.pairs += pairs.reduce((n, chunks) => n + chunks.length, 0);
    counts.set(t.set, c);
  }
  out.end();
  for (const [set, c] of counts) process.stderr.write(`${set}: ${c.triples} triples, ${c.pairs} pairs\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
