/**
 * Gemma 3 270M (GGUF) on node-llama-cpp's prebuilt CPU binaries. One context sequence, so calls
 * are queued: a second sequence would halve each call's context and the 2 cores are shared anyway.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { getLlama, LlamaCompletion, LlamaLogLevel, type LlamaContext, type LlamaModel } from 'node-llama-cpp';
import { ModelNotInstalledError, type CompletionEngine, type CompletionRequest } from './completion-engine.ts';

export interface LlamaCppEngineOptions {
  modelPath: string;
  contextSize: number;
  threads: number;
  /** false: CPU only (the default; deterministic install). 'auto' lets node-llama-cpp use a GPU it finds. */
  gpu: false | 'auto';
}

export class LlamaCppEngine implements CompletionEngine {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly modelName: string,
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
  ) {}

  static async load(options: LlamaCppEngineOptions): Promise<LlamaCppEngine> {
    if (!existsSync(options.modelPath)) throw new ModelNotInstalledError(options.modelPath);
    // build 'never': the binaries come inside the npm package; nothing is compiled or fetched here.
    const llama = await getLlama({ gpu: options.gpu, build: 'never', logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: options.modelPath });
    const context = await model.createContext({
      contextSize: options.contextSize,
      sequences: 1,
      threads: options.threads,
    });
    return new LlamaCppEngine(basename(options.modelPath, '.gguf'), model, context);
  }

  complete(request: CompletionRequest): Promise<string> {
    const run = this.queue.then(() => this.generate(request));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async generate(request: CompletionRequest): Promise<string> {
    request.signal?.throwIfAborted();
    const sequence = this.context.getSequence();
    try {
      const completion = new LlamaCompletion({ contextSequence: sequence });
      return await completion.generateCompletion(request.prompt, {
        temperature: request.temperature,
        topP: request.topP,
        seed: request.seed,
        maxTokens: request.maxTokens,
        customStopTriggers: [...request.stop],
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } finally {
      sequence.dispose();
    }
  }

  async close(): Promise<void> {
    await this.queue;
    await this.context.dispose();
    await this.model.dispose();
  }
}
