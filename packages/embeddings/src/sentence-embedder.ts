import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { WordPieceTokenizer } from './wordpiece-tokenizer.ts';

/** Committed artifacts (models/embedder/, see its MODEL_CARD.md). */
export const DEFAULT_MODEL_PATH = fileURLToPath(new URL('../../../models/embedder/model.int8.onnx', import.meta.url));
export const DEFAULT_TOKENIZER_PATH = fileURLToPath(new URL('../../../models/embedder/tokenizer.json', import.meta.url));
export const MODEL_NAME = 'all-MiniLM-L6-v2';
/** sentence-transformers' max_seq_length for this model: longer texts are cut to 256 tokens, as the original. */
export const MAX_SEQUENCE_LENGTH = 256;

export type ExecutionProvider = 'cpu' | 'cuda';

/** Structural subset of a pino logger, so callers pass theirs without this package depending on pino. */
export interface EmbedderLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface SentenceEmbedderOptions {
  modelPath?: string;
  tokenizerPath?: string;
  /** 'auto' (default): CUDA when onnxruntime-node has its CUDA provider and a GPU answers, else CPU. */
  executionProvider?: ExecutionProvider | 'auto';
  logger?: EmbedderLogger;
  /**
   * Texts per ONNX run. Default: 1 for a quantised model (its activations are quantised per run, so a text's
   * vector would depend on its batch-mates), 32 for FP32 (batch-invariant: padded rows give identical vectors).
   */
  batchSize?: number;
  /** onnxruntime intra-op threads; default: onnxruntime's (one per core). */
  intraOpNumThreads?: number;
}

export class EmbeddingInputError extends Error {
  override name = 'EmbeddingInputError';
}

/**
 * The shared sentence embedder: all-MiniLM-L6-v2 over onnxruntime-node, mean pooling over the attention
 * mask and L2 normalisation (as sentence-transformers), 384 dimensions. Deterministic: the same text gives
 * the same vector, whatever it is embedded with.
 */
export class SentenceEmbedder {
  readonly dimension: number;
  /** Stamp stored beside every vector (Qdrant payload, healing cases): e.g. 'all-MiniLM-L6-v2@int8-96f63400'. */
  readonly modelId: string;
  /** Same string as modelId, for callers typed against `{ embed, dimension, version }`. */
  readonly version: string;
  readonly modelSha256: string;
  readonly executionProvider: ExecutionProvider;
  readonly batchSize: number;

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly tokenizer: WordPieceTokenizer,
    init: { dimension: number; modelId: string; modelSha256: string; executionProvider: ExecutionProvider; batchSize: number },
  ) {
    this.dimension = init.dimension;
    this.modelId = init.modelId;
    this.version = init.modelId;
    this.modelSha256 = init.modelSha256;
    this.executionProvider = init.executionProvider;
    this.batchSize = init.batchSize;
  }

  static async load(options: SentenceEmbedderOptions = {}): Promise<SentenceEmbedder> {
    const modelPath = options.modelPath ?? DEFAULT_MODEL_PATH;
    const [modelBytes, tokenizer] = await Promise.all([
      readFile(modelPath),
      WordPieceTokenizer.fromFile(options.tokenizerPath ?? DEFAULT_TOKENIZER_PATH, { maxLength: MAX_SEQUENCE_LENGTH }),
    ]);
    const modelSha256 = createHash('sha256').update(modelBytes).digest('hex');
    const quantised = /int8|quant/i.test(basename(modelPath));
    const { session, executionProvider } = await createSession(modelBytes, options);
    if (!session.inputNames.includes('input_ids') || !session.outputNames.includes('last_hidden_state')) {
      throw new Error(`${modelPath}: expected inputs input_ids/attention_mask/token_type_ids and output last_hidden_state`);
    }
    const batchSize = options.batchSize ?? (quantised ? 1 : 32);
    if (!Number.isInteger(batchSize) || batchSize < 1)
      throw new EmbeddingInputError(`batchSize must be a positive integer, got ${batchSize}`);
    // The dimension comes from the graph itself (one tiny run), not from a constant that could drift.
    const dimension = (await runBatch(session, tokenizer, ['dimension probe']))[0]?.length ?? 0;
    const loaded = new SentenceEmbedder(session, tokenizer, {
      dimension,
      modelId: `${MODEL_NAME}@${quantised ? 'int8' : 'fp32'}-${modelSha256.slice(0, 8)}`,
      modelSha256,
      executionProvider,
      batchSize,
    });
    options.logger?.info(
      { modelId: loaded.modelId, executionProvider, modelPath, dimension: loaded.dimension, batchSize },
      `sentence embedder loaded on ${executionProvider}`,
    );
    return loaded;
  }

  /** L2-normalised embeddings, one per text, in input order. Texts longer than 256 tokens are truncated. */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (!Array.isArray(texts) || texts.length === 0) throw new EmbeddingInputError('embed needs at least one text');
    texts.forEach((text, i) => {
      if (typeof text !== 'string') throw new EmbeddingInputError(`text ${i} is not a string`);
      if (text.trim() === '') throw new EmbeddingInputError(`text ${i} is empty or blank: it has no meaning to embed`);
    });
    // Sorting by length keeps padding (wasted compute) low inside each batch; results go back in input order.
    const order = texts.map((_, i) => i).sort((x, y) => (texts[x] as string).length - (texts[y] as string).length);
    const result = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const indices = order.slice(start, start + this.batchSize);
      const vectors = await runBatch(
        this.session,
        this.tokenizer,
        indices.map((i) => texts[i] as string),
      );
      indices.forEach((index, k) => (result[index] = vectors[k] as Float32Array));
    }
    return result;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

async function runBatch(session: ort.InferenceSession, tokenizer: WordPieceTokenizer, texts: string[]): Promise<Float32Array[]> {
  const batch = tokenizer.encodeBatch(texts);
  const shape = [batch.batchSize, batch.sequenceLength];
  const outputs = await session.run({
    input_ids: new ort.Tensor('int64', batch.inputIds, shape),
    attention_mask: new ort.Tensor('int64', batch.attentionMask, shape),
    token_type_ids: new ort.Tensor('int64', batch.tokenTypeIds, shape),
  });
  const hidden = outputs['last_hidden_state'];
  if (hidden === undefined) throw new Error('the model returned no last_hidden_state');
  const [rows, seq, dim] = hidden.dims as [number, number, number];
  return meanPoolNormalise(hidden.data as Float32Array, batch.attentionMask, rows, seq, dim);
}

/** sentence-transformers' Pooling(mean) + Normalize: mean of the unmasked token vectors, then unit length. */
export function meanPoolNormalise(hidden: Float32Array, mask: BigInt64Array, rows: number, seq: number, dim: number): Float32Array[] {
  const vectors: Float32Array[] = [];
  for (let r = 0; r < rows; r++) {
    const sum = new Float64Array(dim);
    let count = 0;
    for (let t = 0; t < seq; t++) {
      if (mask[r * seq + t] === 0n) continue;
      count++;
      const base = (r * seq + t) * dim;
      for (let d = 0; d < dim; d++) sum[d] = (sum[d] as number) + (hidden[base + d] as number);
    }
    const mean = sum.map((v) => v / Math.max(count, 1e-9));
    const norm = Math.max(Math.sqrt(mean.reduce((acc, v) => acc + v * v, 0)), 1e-12);
    vectors.push(Float32Array.from(mean, (v) => v / norm));
  }
  return vectors;
}

async function createSession(
  model: Uint8Array,
  options: SentenceEmbedderOptions,
): Promise<{ session: ort.InferenceSession; executionProvider: ExecutionProvider }> {
  const wanted = options.executionProvider ?? 'auto';
  const base: ort.InferenceSession.SessionOptions = {
    graphOptimizationLevel: 'all',
    ...(options.intraOpNumThreads === undefined ? {} : { intraOpNumThreads: options.intraOpNumThreads }),
  };
  if (wanted !== 'cpu') {
    // The CUDA provider is not in the npm tarball (onnxruntime-node's install script fetches it; .npmrc skips
    // that), so look for its library first rather than let onnxruntime log a load failure; then try, fall back.
    try {
      if (!cudaProviderInstalled()) throw new Error('onnxruntime-node CUDA provider library not installed');
      const session = await ort.InferenceSession.create(model, { ...base, executionProviders: ['cuda'] });
      return { session, executionProvider: 'cuda' };
    } catch (error) {
      if (wanted === 'cuda') throw error;
      options.logger?.warn({ reason: error instanceof Error ? error.message : String(error) }, 'CUDA unavailable, embedding on CPU');
    }
  }
  const session = await ort.InferenceSession.create(model, { ...base, executionProviders: ['cpu'] });
  return { session, executionProvider: 'cpu' };
}

function cudaProviderInstalled(): boolean {
  if (!ort.listSupportedBackends().some((b) => b.name === 'cuda')) return false;
  // <package>/dist/index.js -> <package>/bin/napi-v6/<platform>/<arch>/libonnxruntime_providers_cuda.so
  const packageRoot = dirname(dirname(createRequire(import.meta.url).resolve('onnxruntime-node')));
  return existsSync(join(packageRoot, 'bin', 'napi-v6', process.platform, process.arch, 'libonnxruntime_providers_cuda.so'));
}
