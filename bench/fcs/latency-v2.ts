/**
 * FCS v2 latency on this CPU: one model call per window (batch 1) for the shipped INT8 model next to
 * an FP32 graph of the same architecture in the same run (alternating, so background load hits both
 * alike), on the exact (claim, chunk) pairs the v2 scorer builds from real test triples; and whole
 * triples through the v1 and v2 scorers (cache off).
 *
 *   npx tsx bench/fcs/latency-v2.ts [--int8 models/fcs/model.int8.onnx] [--fp32 models/fcs/model.fp32-dequant.onnx] \
 *     [--previous PATH  (an earlier INT8 graph, timed in the same run)] [--pairs 150] [--triples 30] \
 *     [--max-tokens N --chunks-per-claim N  (default: the shipped combination's windowing)] [--max-windows 32]
 *
 * The FP32 graph: models/fcs/recipe/dequantize_int8.py (the trained FP32 export is not committed).
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { ConsistencyModel, EncodedPair, FcsInput } from '@rag-immune/fcs';
import { DEFAULT_MODEL_PATH, DEFAULT_TOKENIZER_PATH, FactConsistencyScorer, FcsModel, PairTokenizer } from '@rag-immune/fcs';
import { sampleRows, DEFAULT_FACTCHECK_DIR } from '@rag-immune/fcs/real-eval';
import { SentenceEmbedder } from '@rag-immune/embeddings';

const { values } = parseArgs({
  options: {
    int8: { type: 'string', default: DEFAULT_MODEL_PATH },
    fp32: { type: 'string', default: 'models/fcs/model.fp32-dequant.onnx' },
    previous: { type: 'string' },
    pairs: { type: 'string', default: '150' },
    triples: { type: 'string', default: '30' },
    out: { type: 'string', default: 'bench/fcs/latency-v2.json' },
    // Default: the windowing the shipped combination was fitted with (models/fcs/combination-v2.json).
    'max-tokens': { type: 'string' },
    'chunks-per-claim': { type: 'string' },
    'max-windows': { type: 'string', default: '32' },
  },
});
// The v2 scorer's window size and evidence budget (shorter windows: cheaper calls, more of them).
const windowing = {
  ...(values['max-tokens'] ? { maxTokens: Number(values['max-tokens']) } : {}),
  ...(values['chunks-per-claim'] ? { maxChunksPerClaim: Number(values['chunks-per-claim']) } : {}),
  maxWindows: Number(values['max-windows']),
};

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
// The shipped combination may read the sentence embedder's claim support (emb_min): v2's whole-triple time includes it.
const embedder = await SentenceEmbedder.load({ intraOpNumThreads: 1 });
const planner = new FactConsistencyScorer({
  model: recorder,
  tokenizer,
  cache: false,
  scorerVersion: 'v2',
  logger: false,
  embedder,
  ...windowing,
});
await planner.scoreMany(triples);
// Spread over the triples: every k-th window.
const step = Math.max(1, Math.floor(recorder.pairs.length / Number(values.pairs)));
const windows = recorder.pairs.filter((_, i) => i % step === 0).slice(0, Number(values.pairs));

const int8 = await FcsModel.load({ modelPath: values.int8, intraOpNumThreads: 1, logger: false });
const graphs: [string, FcsModel][] = [
  ['int8', int8],
  ['fp32', await FcsModel.load({ modelPath: values.fp32, intraOpNumThreads: 1, logger: false })],
  ...(values.previous
    ? [['previous_int8', await FcsModel.load({ modelPath: values.previous, intraOpNumThreads: 1, logger: false })] as [string, FcsModel]]
    : []),
];
for (let i = 0; i < 5; i += 1) for (const [, model] of graphs) await model.run([windows[i]!]);
const load = [loadavg()[0]];
// Batch 1, the graphs alternating window by window so load changes hit them alike.
const samples: Record<string, number[]> = Object.fromEntries(graphs.map(([name]) => [name, []]));
for (const pair of windows) {
  for (const [name, model] of graphs) {
    const t = performance.now();
    await model.run([pair]);
    samples[name]!.push(performance.now() - t);
  }
}
load.push(loadavg()[0]);

// Throughput: every window through predict(), batched (and length-sorted) as the scorer sends them.
const throughput: Record<string, number> = {};
for (const [name, model] of graphs) {
  const t = performance.now();
  await model.predict(windows);
  throughput[name] = Math.round((windows.length / ((performance.now() - t) / 1000)) * 10) / 10;
}
load.push(loadavg()[0]);

// Whole triples (cache off) through v1 and v2 with the INT8 model, alternating.
const perTriple: Record<'v1' | 'v2', number[]> = { v1: [], v2: [] };
const scorers = {
  v1: new FactConsistencyScorer({ model: int8, tokenizer, cache: false, scorerVersion: 'v1', logger: false }),
  v2: new FactConsistencyScorer({ model: int8, tokenizer, cache: false, scorerVersion: 'v2', logger: false, embedder, ...windowing }),
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
  windowing: planner.windowing,
  windows: {
    n: windows.length,
    tokens_p50: tokens[Math.floor(tokens.length / 2)],
    tokens_max: tokens[tokens.length - 1],
    from_triples: triples.length,
  },
  graphs: { int8: values.int8, fp32: values.fp32, ...(values.previous ? { previous_int8: values.previous } : {}) },
  per_window_batch1: Object.fromEntries(Object.entries(samples).map(([name, xs]) => [name, stats(xs)])),
  windows_per_second_batched: throughput,
  windows_per_triple_v2: recorder.pairs.length / triples.length,
  per_triple_cache_off: { v1: stats(perTriple.v1), v2: stats(perTriple.v2) },
};
console.log(JSON.stringify(report, null, 2));
writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
