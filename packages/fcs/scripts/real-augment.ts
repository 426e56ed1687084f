/**
 * Adds the embedding-support features (emb_min, emb_mean) to records that real-eval.ts scored before they
 * existed, computed by the scorer's own planning and embedder (FactConsistencyScorer.embeddingFeatures: the
 * same claims, chunks and vectors as score()), so the consistency model need not be run again. Resumable.
 *
 *   OMP_NUM_THREADS=1 npx tsx packages/fcs/scripts/real-augment.ts --records bench/fcs/real/v23-dev.jsonl --out bench/fcs/real/v24-dev.jsonl
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { FactConsistencyScorer } from '../src/index.ts';
import { DEFAULT_FACTCHECK_DIR, type RealRow } from './real-eval.ts';
import { readRecords } from './real-metrics.ts';

const { values } = parseArgs({
  options: {
    records: { type: 'string' },
    out: { type: 'string' },
    data: { type: 'string', default: DEFAULT_FACTCHECK_DIR },
    'batch-size': { type: 'string', default: '8' },
  },
});
if (!values.records || !values.out) throw new Error('--records and --out are required');
const records = readRecords(values.records);
const done = new Set<string>();
if (existsSync(values.out))
  for (const line of readFileSync(values.out, 'utf8').split('\n')) {
    if (!line) continue;
    const { set, id } = JSON.parse(line) as { set: string; id: string };
    done.add(`${set}/${id}`);
  }

const rows = new Map<string, RealRow>();
for (const set of new Set(records.map((r) => r.set)))
  for (const line of readFileSync(`${values.data}/${set}.jsonl`, 'utf8').trim().split('\n')) {
    const row = JSON.parse(line) as RealRow;
    rows.set(`${set}/${row.id}`, row);
  }

const first = records[0];
const scorer = await FactConsistencyScorer.load({
  allFeatures: true,
  // Read the triples as they were scored (real-eval.ts records carry their windowing).
  ...(first?.window_tokens !== undefined ? { maxTokens: first.window_tokens } : {}),
  ...(first?.chunks_per_claim !== undefined ? { maxChunksPerClaim: first.chunks_per_claim } : {}),
  intraOpNumThreads: 1,
  cache: false,
  logger: false,
});
const pending = records.filter((r) => !done.has(`${r.set}/${r.id}`));
const batchSize = Number(values['batch-size']);
const started = performance.now();
for (let from = 0; from < pending.length; from += batchSize) {
  const batch = pending.slice(from, from + batchSize);
  for (const r of batch)
    if (r.window_tokens !== first?.window_tokens || r.chunks_per_claim !== first?.chunks_per_claim)
      throw new Error(`${r.set}/${r.id} was scored with other windows than the first record`);
  const inputs = batch.map((r) => {
    const row = rows.get(`${r.set}/${r.id}`);
    if (!row) throw new Error(`${r.set}/${r.id} is not in ${values.data}/${r.set}.jsonl`);
    return { question: row.question, evidence: row.evidence, answer: row.answer };
  });
  const support = await scorer.embeddingFeatures(inputs);
  appendFileSync(values.out, `${batch.map((r, k) => JSON.stringify({ ...r, features: { ...r.features, ...support[k] } })).join('\n')}\n`);
  process.stderr.write(
    `${Math.min(from + batchSize, pending.length)}/${pending.length} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
  );
}
