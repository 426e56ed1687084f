/**
 * The FCS model stored with int8 weights vs the same integers stored as uint8 (models/recipe/u8_weights.py),
 * scored on this machine over the first 40 triples of six real sets. On a CPU with VNNI both files give the
 * same products; on an AVX2-only CPU the int8 file saturates, and this says by how much the scores move.
 *
 *   git show 3d001f4:models/fcs/model.int8.onnx > /tmp/fcs-int8.onnx
 *   npx tsx bench/fcs/u8-weights-compare.ts /tmp/fcs-int8.onnx models/fcs/model.int8.onnx
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { FactConsistencyScorer } from '@rag-immune/fcs';

const [before, after] = process.argv.slice(2);
if (!before || !after) throw new Error('usage: u8-weights-compare.ts <int8-weights.onnx> <uint8-weights.onnx>');
const sets = ['wice', 'summedits', 'begin', 'snli', 'q2', 'expertqa'];
const triples = sets.flatMap((set) =>
  readFileSync(new URL(`../../../shared/data/factcheck/${set}.jsonl`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .slice(0, 40)
    .map((line) => JSON.parse(line) as { question?: string; evidence: string; answer: string }),
);
const load = (modelPath: string) => FactConsistencyScorer.load({ modelPath, cache: false, intraOpNumThreads: 1, logger: false });
const [a, b] = [await load(before), await load(after)];
let max = 0;
let sum = 0;
let flips = 0;
for (const t of triples) {
  const input = { question: t.question ?? '', evidence: t.evidence, answer: t.answer };
  const [x, y] = [(await a.score(input)).score ?? 0, (await b.score(input)).score ?? 0];
  max = Math.max(max, Math.abs(x - y));
  sum += Math.abs(x - y);
  if (x >= 0.5 !== y >= 0.5) flips += 1;
}
console.log(
  JSON.stringify({
    cpu: cpus()[0]?.model,
    triples: triples.length,
    max_abs_diff: max,
    mean_abs_diff: sum / triples.length,
    flips_at_0_5: flips,
  }),
);
