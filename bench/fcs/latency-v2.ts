/**
 * FCS v2 latency on this CPU: one model call per window (batch 1) for the shipped INT8 model next to
 * an FP32 graph of the same architecture in the same run (alternating, so background load hits both
 * alike), on the exact (claim, chunk) pairs the v2 scorer builds from real test triples; and whole
 * triples through the v1 and v2 scorers (cache off).
 *
 *   npx tsx bench/fcs/latency-v2.ts [--fp32 models/fcs/model.fp32-dequant.onnx] [--pairs 150] [--triples 30]
 *
 * The FP32 graph: models/fcs/recipe/dequantize_int8.py (the trained FP32 export is not committed).
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { ConsistencyModel, EncodedPair, FcsInput } from '../../packages/fcs/src/index.ts';
import {
  DEFAULT_MODEL_PATH,
  DEFAULT_TOKENIZER_PATH,
  FactConsistencyScorer,
  FcsModel,
  PairTokenizer,
} from '../../packages/fcs/src/index.ts';
import { sampleRows, DEFAULT_FACTCHECK_DIR } from '../../packages/fcs/scripts/real-eval.ts';

const { values } = parseArgs({
  options: {
    fp32: { type: 'string', default: 'models/fcs/model.fp32-dequant.onnx' },
    pairs: { type: 'string', default: '150' },
    triples: { type: 'string', default: '30' },
    out: { type: 'string', default: 'bench/fcs/latency-v2.json' },
  },
});

const sets = ['expertqa', 'begin', 'summedits', 'wice_oracle', 'dialfact_testsmall'];
const triples: FcsInput[] = sets.flatMap((set) =>
  sampleRows(DEFAULT_FACTCHECK_DIR, set, 'test', 12, 'latency').map((r) => ({
    question: r.question,
    evidence: r.evidence,
    answer: r.answer,
  })),
);

class Recorder implements ConsistencyModel {
  readonly executionProvider = 'record';
  pairs: EncodedPair[] = [];
  async predict(pairs: readonly EncodedPair[]): Promise<number[]> {
    this.pairs.push(...pairs);
    return pairs.map(() => 0.5);
  }
}
const tokenizer = await PairTokenizer.fromFile(DEFAULT_TOKENIZER_PATH);
const recorder = new Recorder();
await new FactConsistencyScorer({ model: recorder, tokenizer, cache: false, scorerVersion: 'v2', logger: false }).scoreMany(triples);
// Spread over the triples: every k-th window.
const step = Math.max(1, Math.floor(recorder.pairs.length / Number(values.pairs)));
const windows = recorder.pairs.filter((_, i) => i % step === 0).slice(0, Number(values.pairs));

const int8 = await FcsModel.load({ modelPath: DEFAULT_MODEL_PATH, intraOpNumThreads: 1, logger: false });
const fp32 = await FcsModel.load({ modelPath: values.fp32, intraOpNumThreads: 1, logger: false });
for (let i = 0; i < 5; i += 1) {
  await int8.run([windows[i]!]);
  await fp32.run([windows[i]!]);
}
const load = [loadavg()[0]];
const samples: Record<'int8' | 'fp32', number[]> = { int8: [], fp32: [] };
for (const pair of windows) {
  for (const [name, model] of [
    ['int8', int8],
    ['fp32', fp32],
  ] as const) {
    const t = performance.now();
    await model.run([pair]);
    samples[name].push(performance.now() - t);
  }
}
load.push(loadavg()[0]);

// Whole triples (cache off) through v1 and v2 with the INT8 model, alternating.
const perTriple: Record<'v1' | 'v2', number[]> = { v1: [], v2: [] };
const scorers = {
  v1: new FactConsistencyScorer({ model: int8, tokenizer, cache: false, scorerVersion: 'v1', logger: false }),
  v2: new FactConsistencyScorer({ model: int8, tokenizer, cache: false, scorerVersion: 'v2', logger: false }),
};
for (const triple of triples.slice(0, Number(values.triples))) {
  for (const name of ['v1', 'v2'] as const) {
    const t = performance.now();
    await scorers[name].score(triple);
    perTriple[name].push(performance.now() - t);
  }
}
load.push(loadavg()[0]);

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const p = (q: number): number => Math.round(s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]! * 10) / 10;
  return {
    n: s.length,
    p50_ms: p(0.5),
    p90_ms: p(0.9),
    p99_ms: p(0.99),
    mean_ms: Math.round((s.reduce((a, b) => a + b, 0) / s.length) * 10) / 10,
  };
};
const tokens = windows.map((w) => w.inputIds.length).sort((a, b) => a - b);
const report = {
  machine: { cpus: cpus().length, model: cpus()[0]?.model, load_average_1m: load },
  windows: {
    n: windows.length,
    tokens_p50: tokens[Math.floor(tokens.length / 2)],
    tokens_max: tokens[tokens.length - 1],
    from_triples: triples.length,
  },
  per_window_batch1: { int8: stats(samples.int8), fp32: stats(samples.fp32) },
  windows_per_triple_v2: recorder.pairs.length / triples.length,
  per_triple_cache_off: { v1: stats(perTriple.v1), v2: stats(perTriple.v2) },
};
console.log(JSON.stringify(report, null, 2));
writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
