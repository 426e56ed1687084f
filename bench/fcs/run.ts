/**
 * FCS benchmarks: INT8 against FP32 of the same model, side by side in one run, on this machine's CPU.
 *
 *   nice -n 0 npx tsx bench/fcs/run.ts [--int8 models/fcs/model.int8.onnx] [--fp32 models/fcs/model.onnx]
 *        [--n 300] [--out bench/fcs/results.json]
 *
 * Measures: one model call at batch 1 (real test pairs, at most 256 tokens, and the 256-token worst
 * case), throughput at batch 16, a whole triple with 5 passages through the scorer (windows, key
 * facts, model; cache off), model size, and the score cache's hit ratio on a replayed probe stream.
 * The two models are measured in alternating rounds so background load hits both alike.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import type { EncodedPair } from '@rag-immune/fcs';
import { SentenceEmbedder } from '@rag-immune/embeddings';
import {
  DEFAULT_FP32_MODEL_PATH,
  DEFAULT_MODEL_PATH,
  DEFAULT_TOKENIZER_PATH,
  FactConsistencyScorer,
  FcsModel,
  PairTokenizer,
  ScoreCache,
} from '@rag-immune/fcs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: {
    int8: { type: 'string', default: DEFAULT_MODEL_PATH },
    fp32: { type: 'string', default: DEFAULT_FP32_MODEL_PATH },
    n: { type: 'string', default: '300' },
    out: { type: 'string', default: join(root, 'bench', 'fcs', 'results.json') },
  },
});
const n = Number(values.n);

interface Row {
  question: string;
  evidence: string[];
  answer: string;
}
const rows = readFileSync(join(root, 'models', 'fcs', 'data', 'test.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Row);
const tokenizer = await PairTokenizer.fromFile(DEFAULT_TOKENIZER_PATH);
// The pairs exactly as the model sees them in training and evaluation (question+answer, evidence joined).
const pairs = rows.map((r) => tokenizer.encodePair(`${r.question} ${r.answer}`, r.evidence.join(' '), 256));
const worst = tokenizer.encodePair(rows[0]!.question, Array.from({ length: 300 }, (_, i) => rows[i]!.answer).join(' '), 256);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const r = (x: number): number => Math.round(x * 100) / 100;
  return {
    n: samples.length,
    p50_ms: r(percentile(sorted, 50)),
    p90_ms: r(percentile(sorted, 90)),
    p99_ms: r(percentile(sorted, 99)),
    mean_ms: r(samples.reduce((a, b) => a + b, 0) / samples.length),
  };
}
async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

// Triples with 5 passages: the triple's own evidence plus passages of other triples as distractors.
const fivePassageTriples = Array.from({ length: 64 }, (_, i) => {
  const row = rows[(i * 37) % rows.length]!;
  const evidence = [...row.evidence];
  for (let k = 1; evidence.length < 5; k += 1)
    evidence.push(...rows[(i * 37 + k * 101) % rows.length]!.evidence.slice(0, 5 - evidence.length));
  return { question: row.question, evidence, answer: row.answer };
});

const variants = { int8: values.int8, fp32: values.fp32 };
const models: Record<string, FcsModel> = {};
const scorers: Record<string, FactConsistencyScorer> = {};
// The shipped v2 combination may read the sentence embedder's claim support (emb_min).
const embedder = await SentenceEmbedder.load({ intraOpNumThreads: 1 });
for (const [name, path] of Object.entries(variants)) {
  models[name] = await FcsModel.load({ modelPath: path, intraOpNumThreads: 1 });
  scorers[name] = new FactConsistencyScorer({ model: models[name], tokenizer, cache: false, embedder });
}
const loadBefore = loadavg();
const samples: Record<
  string,
  { batch1: number[]; batch1Worst: number[]; batch16: number[]; sorted64: number[]; runtime64: number[]; triple5: number[] }
> = {};
for (const name of Object.keys(variants))
  samples[name] = { batch1: [], batch1Worst: [], batch16: [], sorted64: [], runtime64: [], triple5: [] };

// Warm-up (first runs allocate and JIT the graph).
for (const name of Object.keys(variants)) for (let i = 0; i < 10; i += 1) await models[name]!.predict([pairs[i]!]);

const rounds = 10;
for (let round = 0; round < rounds; round += 1) {
  for (const name of round % 2 === 0 ? ['int8', 'fp32'] : ['fp32', 'int8']) {
    const model = models[name]!;
    const s = samples[name]!;
    for (let i = 0; i < n / rounds; i += 1) {
      const pair = pairs[(round * 7919 + i * 31) % pairs.length]!;
      s.batch1.push(await time(() => model.predict([pair])));
    }
    for (let i = 0; i < Math.max(2, n / rounds / 10); i += 1) s.batch1Worst.push(await time(() => model.predict([worst])));
    // Throughput over 64 pairs sorted by length (little padding): 4 calls of 16, and the runtime default (2 on CPU).
    const pool: EncodedPair[] = Array.from({ length: 64 }, (_, k) => pairs[(round * 1009 + k * 13) % pairs.length]!).sort(
      (a, b) => a.inputIds.length - b.inputIds.length,
    );
    s.sorted64.push(
      await time(async () => {
        for (let k = 0; k < 64; k += 16) await model.run(pool.slice(k, k + 16));
      }),
    );
    s.runtime64.push(await time(() => model.predict(pool)));
    // One batch of 16 random pairs as they come (padded to the longest).
    const batch: EncodedPair[] = Array.from({ length: 16 }, (_, k) => pairs[(round * 2003 + k * 17) % pairs.length]!);
    s.batch16.push(await time(() => model.run(batch)));
    for (let i = 0; i < Math.max(2, n / rounds / 6); i += 1) {
      const triple = fivePassageTriples[(round * 5 + i) % fivePassageTriples.length]!;
      s.triple5.push(await time(() => scorers[name]!.score(triple)));
    }
    process.stderr.write(`\rround ${round + 1}/${rounds} ${name}   `);
  }
}
process.stderr.write('\n');
const loadAfter = loadavg();

/**
 * The probe stream: the sentinel replays a fixed set of golden probes every round; the RAG regenerates
 * each answer, usually word for word, sometimes with different case or punctuation, sometimes with a
 * different fact; now and then a passage is re-indexed under a new id. Seeded, so the stream is the same
 * every run. Replayed through the real scorer (INT8) with its cache; a raw-text key is counted alongside.
 */
async function probeStream() {
  let seed = 42;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const probes = Array.from({ length: 100 }, (_, i) => ({ ...rows[(i * 29) % rows.length]!, version: 1, index: i }));
  const registry = new Registry();
  const scorer = new FactConsistencyScorer({ model: models.int8!, tokenizer, cache: new ScoreCache({ registry }), embedder });
  const raw = new Set<string>();
  let rawHits = 0;
  const latencies: number[] = [];
  const roundsOfProbes = 12;
  for (let round = 0; round < roundsOfProbes; round += 1) {
    for (const probe of probes) {
      const roll = random();
      let answer = probe.answer;
      if (roll < 0.2) answer = `${answer.charAt(0).toLowerCase()}${answer.slice(1).replace(/\.$/, '')}`;
      else if (roll < 0.3) answer = `${answer.replace(/ is /, ' is, ').replace(/\.$/, '')}!`;
      else if (roll < 0.4) answer = answer.replace(/\d/, (d) => String((Number(d) + 1 + round) % 10));
      if (random() < 0.03) probe.version += 1;
      const evidence = probe.evidence.map((text, k) => ({ id: `doc-${probe.index}-${k}#v${probe.version}`, text }));
      latencies.push(await time(() => scorer.score({ question: probe.question, evidence, answer })));
      const rawKey = JSON.stringify([probe.question, answer, evidence.map((e) => e.id)]);
      if (raw.has(rawKey)) rawHits += 1;
      else raw.add(rawKey);
    }
  }
  const stats = scorer.cache!.stats();
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  const exported = /rag_immune_fcs_cache_hit_ratio ([\d.]+)/.exec(await registry.metrics())?.[1];
  return {
    probes: probes.length,
    rounds: roundsOfProbes,
    lookups: stats.hits + stats.misses,
    hit_ratio: r(stats.hitRatio),
    exported_gauge: Number(exported),
    raw_text_key_hit_ratio: r(rawHits / (stats.hits + stats.misses)),
    latency_per_probe: summary(latencies),
  };
}

const cache = await probeStream();
const size = (path: string): number => statSync(path).size;
const throughput = (perCall: number, calls: number[]): number =>
  Math.round((10 * perCall * calls.length * 1000) / calls.reduce((a, b) => a + b, 0)) / 10;
const report = {
  measured_at: new Date().toISOString(),
  machine: {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    load_average_before: loadBefore,
    load_average_after: loadAfter,
  },
  onnxruntime: { execution_provider: models.int8!.executionProvider, intra_op_threads: 1 },
  models: Object.fromEntries(
    Object.entries(variants).map(([name, path]) => [
      name,
      {
        path,
        size_bytes: size(path),
        batch1_call: summary(samples[name]!.batch1),
        batch1_call_256_tokens: summary(samples[name]!.batch1Worst),
        batch16_length_sorted_pairs_per_s: throughput(64, samples[name]!.sorted64),
        batch16_random_pairs_per_s: throughput(16, samples[name]!.batch16),
        batch16_random_call: summary(samples[name]!.batch16),
        runtime_default_batch_pairs_per_s: throughput(64, samples[name]!.runtime64),
        batch1_pairs_per_s: Math.round(10000 / summary(samples[name]!.batch1).mean_ms) / 10,
        triple_5_passages: summary(samples[name]!.triple5),
      },
    ]),
  ),
  test_pair_tokens: (() => {
    const lengths = pairs.map((p) => p.inputIds.length).sort((a, b) => a - b);
    return { p50: percentile(lengths, 50), p99: percentile(lengths, 99), max: lengths.at(-1) };
  })(),
  cache,
};
writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`);
console.log(JSON.stringify(report, null, 2));
