/**
 * bench/embeddings: the shared SentenceEmbedder on this machine's CPU (or GPU with --provider cuda).
 * For each model variant: sentences per second and p50/p99 latency per embed() call at batch 1
 * (one query, the sentinel's and memory worker's case) and batch 32 (bulk indexing).
 * Texts: real sentences from models/embedder/recipe/eval-sentences.jsonl (Debian package descriptions,
 * 6–60 words), cycled.
 * Usage: npx tsx bench/embeddings/run.ts [--calls1 300 --calls32 20 --threads 2 --provider cpu]
 * Writes bench/embeddings/results/<timestamp>.json and prints a markdown table.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SentenceEmbedder, type ExecutionProvider } from '@rag-immune/embeddings';

const { values } = parseArgs({
  options: {
    calls1: { type: 'string', default: '300' },
    calls32: { type: 'string', default: '20' },
    threads: { type: 'string', default: '2' },
    provider: { type: 'string', default: 'cpu' },
  },
});
const modelsDir = new URL('../../models/embedder/', import.meta.url);
const texts = readFileSync(new URL('recipe/eval-sentences.jsonl', modelsDir), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as { source: string; text: string })
  .filter((row) => row.source === 'dpkg-description')
  .map((row) => row.text);

interface Row {
  variant: string;
  modelId: string;
  provider: string;
  batch: number;
  calls: number;
  sentencesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

async function measure(embedder: SentenceEmbedder, variant: string, batch: number, calls: number): Promise<Row> {
  const take = (k: number) => Array.from({ length: batch }, (_, j) => texts[(k * batch + j) % texts.length] as string);
  for (let k = 0; k < 5; k++) await embedder.embed(take(k)); // warm-up: first runs allocate arenas
  const times: number[] = [];
  for (let k = 0; k < calls; k++) {
    const chunk = take(k);
    const start = process.hrtime.bigint();
    await embedder.embed(chunk);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const total = times.reduce((a, b) => a + b, 0);
  times.sort((a, b) => a - b);
  const pct = (q: number) => Number((times[Math.min(times.length - 1, Math.floor(times.length * q))] as number).toFixed(2));
  return {
    variant,
    modelId: embedder.modelId,
    provider: embedder.executionProvider,
    batch,
    calls,
    sentencesPerSecond: Number(((batch * calls * 1000) / total).toFixed(1)),
    p50Ms: pct(0.5),
    p99Ms: pct(0.99),
  };
}

const variants: { variant: string; modelPath: string; batchSize?: number }[] = [
  { variant: 'int8, one text per run (default)', modelPath: fileURLToPath(new URL('model.int8.onnx', modelsDir)) },
  { variant: 'int8, batchSize 32 (not batch-invariant)', modelPath: fileURLToPath(new URL('model.int8.onnx', modelsDir)), batchSize: 32 },
  { variant: 'fp32, batchSize 32 (default for fp32)', modelPath: fileURLToPath(new URL('model.onnx', modelsDir)) },
];
const loadBefore = loadavg()[0] ?? 0;
const rows: Row[] = [];
for (const v of variants) {
  if (!existsSync(v.modelPath)) {
    console.error(`skipping ${v.variant}: ${v.modelPath} not there (regenerate with models/embedder/recipe/export.py)`);
    continue;
  }
  const embedder = await SentenceEmbedder.load({
    modelPath: v.modelPath,
    executionProvider: values.provider as ExecutionProvider,
    intraOpNumThreads: Number(values.threads),
    ...(v.batchSize === undefined ? {} : { batchSize: v.batchSize }),
  });
  rows.push(await measure(embedder, v.variant, 1, Number(values.calls1)));
  rows.push(await measure(embedder, v.variant, 32, Number(values.calls32)));
  await embedder.release();
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${values.threads} onnxruntime threads, 1-min load average ${loadBefore.toFixed(1)} before / ${(loadavg()[0] ?? 0).toFixed(1)} after`;
console.log(`\n${machine}\n`);
console.log('| variant | batch | sentences/s | p50 ms/call | p99 ms/call |\n| --- | --- | --- | --- | --- |');
for (const r of rows)
  console.log(`| ${r.variant} (${r.modelId}, ${r.provider}) | ${r.batch} | ${r.sentencesPerSecond} | ${r.p50Ms} | ${r.p99Ms} |`);
const dir = new URL('results/', import.meta.url);
mkdirSync(dir, { recursive: true });
writeFileSync(new URL(`${new Date().toISOString().replace(/[:.]/g, '-')}.json`, dir), JSON.stringify({ machine, rows }, null, 2) + '\n');
