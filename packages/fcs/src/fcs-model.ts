import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import type { Logger } from 'pino';
import { pino, destination } from 'pino';
import type { EncodedPair } from './pair-tokenizer.ts';

const MODEL_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'models', 'fcs');
/** The committed artefacts: INT8 is the default runtime model (same accuracy, ~4x smaller, faster on CPU). */
export const DEFAULT_MODEL_PATH = join(MODEL_DIR, 'model.int8.onnx');
export const DEFAULT_FP32_MODEL_PATH = join(MODEL_DIR, 'model.onnx');
export const DEFAULT_TOKENIZER_PATH = join(MODEL_DIR, 'tokenizer.json');
/** The model's maximum input (it was trained and exported for pairs of at most 256 tokens). */
export const MAX_MODEL_TOKENS = 256;

export type ExecutionProviderChoice = 'auto' | 'cuda' | 'cpu';

/** What the scorer needs from a consistency model; tests substitute a deterministic fake. */
export interface ConsistencyModel {
  /** P(consistent) for each encoded pair, in input order. */
  predict(pairs: readonly EncodedPair[]): Promise<number[]>;
  readonly executionProvider: string;
  close?(): Promise<void>;
}

export interface FcsModelOptions {
  modelPath?: string;
  executionProvider?: ExecutionProviderChoice;
  /** Threads for one inference; the default 1 keeps latency predictable on a shared host. */
  intraOpNumThreads?: number;
  /**
   * Pairs per session.run; longer batches are split. Default: 2 on CPU (measured on the 2-core host,
   * batches of 8-16 cost 2-3x more per pair than batches of 1-2: bench/fcs/RESULTS.md), 16 on CUDA.
   */
  maxBatchSize?: number;
  /** Where to log the execution provider chosen; default: pino on stderr; false: silent. */
  logger?: Logger | false;
}

/**
 * The FCS ONNX model on onnxruntime-node. Tries CUDA first when asked ('auto' or 'cuda') and falls
 * back to CPU, logging which provider runs. Batches are sorted by length so padding stays small.
 */
export class FcsModel implements ConsistencyModel {
  private constructor(
    private readonly session: ort.InferenceSession,
    readonly executionProvider: string,
    private readonly consistentIndex: number,
    private readonly maxBatchSize: number,
  ) {}

  static async load(options: FcsModelOptions = {}): Promise<FcsModel> {
    const modelPath = options.modelPath ?? DEFAULT_MODEL_PATH;
    if (!existsSync(modelPath)) throw new Error(`FCS model not found: ${modelPath}`);
    const base: ort.InferenceSession.SessionOptions = {
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      intraOpNumThreads: options.intraOpNumThreads ?? 1,
      interOpNumThreads: 1,
    };
    const logger = options.logger === false ? undefined : (options.logger ?? pino({ name: 'rag-immune-fcs' }, destination(2)));
    const choice = options.executionProvider ?? 'auto';
    let session: ort.InferenceSession | undefined;
    let provider = 'cpu';
    if (choice === 'auto' && !cudaProviderInstalled()) {
      // Asking ORT for CUDA without its provider library prints a native error; skip straight to CPU.
      logger?.info('fcs: CUDA execution provider not installed, using CPU');
    } else if (choice !== 'cpu') {
      try {
        session = await ort.InferenceSession.create(modelPath, { ...base, executionProviders: ['cuda'] });
        provider = 'cuda';
      } catch (error) {
        if (choice === 'cuda') throw new Error(`CUDA execution provider unavailable: ${(error as Error).message}`);
        logger?.info({ reason: (error as Error).message.split('\n')[0] }, 'fcs: CUDA execution provider unavailable, using CPU');
      }
    }
    session ??= await ort.InferenceSession.create(modelPath, { ...base, executionProviders: ['cpu'] });
    const consistentIndex = readConsistentIndex(modelPath);
    logger?.info({ modelPath, executionProvider: provider, consistentIndex }, 'fcs: model loaded');
    return new FcsModel(session, provider, consistentIndex, options.maxBatchSize ?? (provider === 'cuda' ? 16 : 2));
  }

  async predict(pairs: readonly EncodedPair[]): Promise<number[]> {
    const order = pairs.map((_, i) => i).sort((a, b) => pairs[a]!.inputIds.length - pairs[b]!.inputIds.length);
    const out = new Array<number>(pairs.length);
    for (let from = 0; from < order.length; from += this.maxBatchSize) {
      const batch = order.slice(from, from + this.maxBatchSize);
      const probabilities = await this.run(batch.map((i) => pairs[i]!));
      batch.forEach((index, k) => (out[index] = probabilities[k]!));
    }
    return out;
  }

  /** One session.run over a padded batch, whatever its size; returns softmax(logits)[consistent]. */
  async run(batch: readonly EncodedPair[]): Promise<number[]> {
    const length = Math.max(...batch.map((p) => p.inputIds.length));
    const size = batch.length * length;
    const ids = new BigInt64Array(size);
    const mask = new BigInt64Array(size);
    const types = new BigInt64Array(size);
    batch.forEach((pair, row) => {
      pair.inputIds.forEach((id, col) => {
        ids[row * length + col] = BigInt(id);
        mask[row * length + col] = 1n;
        types[row * length + col] = BigInt(pair.tokenTypeIds[col] ?? 0);
      });
    });
    const dims = [batch.length, length];
    const result = await this.session.run({
      input_ids: new ort.Tensor('int64', ids, dims),
      attention_mask: new ort.Tensor('int64', mask, dims),
      token_type_ids: new ort.Tensor('int64', types, dims),
    });
    const logits = result.logits?.data as Float32Array | undefined;
    if (!logits) throw new Error('FCS model returned no logits');
    return batch.map((_, row) => {
      const l0 = logits[row * 2]!;
      const l1 = logits[row * 2 + 1]!;
      const p1 = 1 / (1 + Math.exp(l0 - l1));
      return this.consistentIndex === 1 ? p1 : 1 - p1;
    });
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

/** Whether onnxruntime-node ships the CUDA provider library here (npm skips it unless asked to install CUDA). */
function cudaProviderInstalled(): boolean {
  try {
    const bin = join(dirname(createRequire(import.meta.url).resolve('onnxruntime-node')), '..', 'bin');
    return readdirSync(bin).some((napi) => existsSync(join(bin, napi, process.platform, process.arch, 'libonnxruntime_providers_cuda.so')));
  } catch {
    return false;
  }
}

/** Which logit means "consistent": from config.json's id2label next to the model, else 1 (the recipe's order). */
function readConsistentIndex(modelPath: string): number {
  const configPath = join(dirname(modelPath), 'config.json');
  if (!existsSync(configPath)) return 1;
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as { id2label?: Record<string, string> };
  const entry = Object.entries(config.id2label ?? {}).find(([, label]) => label.toLowerCase() === 'consistent');
  return entry ? Number(entry[0]) : 1;
}
