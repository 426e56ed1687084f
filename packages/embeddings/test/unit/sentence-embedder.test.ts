import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { EmbeddingInputError, SentenceEmbedder } from '../../src/index.ts';
import type { EmbedderLogger } from '../../src/index.ts';

interface Reference {
  dimension: number;
  items: { text: string; embedding: number[] }[];
}

const reference = JSON.parse(
  await readFile(new URL('../../../../models/embedder/reference-embeddings.json', import.meta.url), 'utf8'),
) as Reference;
const logged: string[] = [];
const logger: EmbedderLogger = { info: (_fields, message) => logged.push(message), warn: (_fields, message) => logged.push(message) };
// One onnxruntime thread: the unit tier runs two test files at once on a 2-core machine; more threads only contend.
const embedder = await SentenceEmbedder.load({ executionProvider: 'auto', logger, intraOpNumThreads: 1 });

const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
};

test('loads the committed INT8 model, says which execution provider runs, 384 dimensions', () => {
  assert.equal(embedder.dimension, 384);
  assert.equal(reference.dimension, 384);
  assert.match(embedder.modelId, /^all-MiniLM-L6-v2@int8-[0-9a-f]{8}$/);
  assert.equal(embedder.version, embedder.modelId);
  assert.ok(['cpu', 'cuda'].includes(embedder.executionProvider));
  assert.ok(logged.some((m) => m.includes(`loaded on ${embedder.executionProvider}`)));
});

test('embeddings agree with the original PyTorch sentence-transformers model (cosine >= 0.99 per text)', async (t) => {
  const vectors = await embedder.embed(reference.items.map((item) => item.text));
  const cosines = vectors.map((v, i) => dot(v, (reference.items[i] as Reference['items'][number]).embedding));
  const min = Math.min(...cosines);
  const mean = cosines.reduce((a, b) => a + b, 0) / cosines.length;
  t.diagnostic(`INT8 vs PyTorch over ${cosines.length} texts: min cosine ${min.toFixed(5)}, mean ${mean.toFixed(5)}`);
  cosines.forEach((c, i) => assert.ok(c >= 0.99, `cosine ${c} for ${reference.items[i]?.text.slice(0, 50)}`));
  for (const v of vectors) assert.ok(Math.abs(Math.sqrt(dot(v, v)) - 1) < 1e-5, 'unit length');
});

test('a text gets the same vector alone, in a batch, and on every call (deterministic)', async () => {
  const texts = reference.items.slice(0, 6).map((item) => item.text);
  const batched = await embedder.embed(texts);
  const again = await embedder.embed([...texts].reverse());
  for (const [i, text] of texts.entries()) {
    const [single] = await embedder.embed([text]);
    assert.deepEqual(single, batched[i], `alone vs batched: ${text}`);
    assert.deepEqual(again[texts.length - 1 - i], batched[i], `order of the batch: ${text}`);
  }
});

test('batchSize 32 on the INT8 model shifts vectors only slightly (why its default is one text per run)', async () => {
  const batchedEmbedder = await SentenceEmbedder.load({ executionProvider: 'cpu', batchSize: 32, intraOpNumThreads: 1 });
  try {
    const texts = ['What is the refund policy?', 'Kafka consumer lag grew past ten thousand messages on the probes topic.'];
    const batched = await batchedEmbedder.embed(texts);
    const singles = await embedder.embed(texts);
    // INT8 activations are quantised per run, so batch-mates shift a vector slightly; cosine stays near 1.
    batched.forEach((v, i) => assert.ok(dot(v, singles[i] as Float32Array) > 0.98));
  } finally {
    await batchedEmbedder.release();
  }
});

test('empty input and blank texts are refused with a clear error', async () => {
  await assert.rejects(embedder.embed([]), (e: unknown) => e instanceof EmbeddingInputError && /at least one text/.test(e.message));
  await assert.rejects(
    embedder.embed(['fine', '  ']),
    (e: unknown) => e instanceof EmbeddingInputError && /text 1 is empty or blank/.test(e.message),
  );
});

test('an explicit CPU provider is honoured', async () => {
  const cpu = await SentenceEmbedder.load({ executionProvider: 'cpu', intraOpNumThreads: 1 });
  try {
    assert.equal(cpu.executionProvider, 'cpu');
    assert.equal(cpu.modelId, embedder.modelId);
  } finally {
    await cpu.release();
  }
});

const fp32Path = fileURLToPath(new URL('../../../../models/embedder/model.onnx', import.meta.url));
test(
  'the FP32 model (when regenerated locally) reproduces PyTorch to cosine > 0.9999',
  { skip: existsSync(fp32Path) ? false : 'models/embedder/model.onnx is not committed; recipe/export.py regenerates it' },
  async (t) => {
    const fp32 = await SentenceEmbedder.load({ modelPath: fp32Path, executionProvider: 'cpu', intraOpNumThreads: 1 });
    try {
      assert.match(fp32.modelId, /^all-MiniLM-L6-v2@fp32-[0-9a-f]{8}$/);
      assert.equal(fp32.batchSize, 32);
      const vectors = await fp32.embed(reference.items.map((item) => item.text));
      const min = Math.min(...vectors.map((v, i) => dot(v, (reference.items[i] as Reference['items'][number]).embedding)));
      t.diagnostic(`FP32 vs PyTorch: min cosine ${min.toFixed(7)}`);
      assert.ok(min > 0.9999);
    } finally {
      await fp32.release();
    }
  },
);
