/**
 * The generator as a LangChain LLM over a local completion engine: it samples (temperature > 0)
 * with a new seed on every call, as a production RAG's LLM does, and returns the answer cut at the
 * first stop sequence. LangChain's callbacks (and so the OpenInference LLM span) see the prompt,
 * the answer and the invocation parameters.
 */
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { LLM, type BaseLLMParams } from '@langchain/core/language_models/llms';
import { cutAtStop, STOP_SEQUENCES } from '../prompt.ts';
import type { CompletionEngine } from './completion-engine.ts';

/** Seeds for successive calls: start, start + 1, … (mod 2^31), so no two calls of a process share one. */
export class SeedSequence {
  private n = 0;
  constructor(private readonly start: number = Math.floor(Math.random() * 2 ** 31)) {}
  next(): number {
    return (this.start + this.n++) % 2 ** 31;
  }
}

export interface SamplingLlmOptions extends BaseLLMParams {
  engine: CompletionEngine;
  temperature: number;
  topP: number;
  maxTokens: number;
  seeds: SeedSequence;
}

export class SamplingLlm extends LLM {
  private readonly engine: CompletionEngine;
  readonly temperature: number;
  readonly topP: number;
  readonly maxTokens: number;
  private readonly seeds: SeedSequence;

  constructor(options: SamplingLlmOptions) {
    super(options);
    if (!(options.temperature > 0)) throw new RangeError(`temperature must be > 0 (this generator samples), got ${options.temperature}`);
    this.engine = options.engine;
    this.temperature = options.temperature;
    this.topP = options.topP;
    this.maxTokens = options.maxTokens;
    this.seeds = options.seeds;
  }

  override _llmType(): string {
    return 'node-llama-cpp';
  }

  override invocationParams(): Record<string, unknown> {
    return { model: this.engine.modelName, temperature: this.temperature, top_p: this.topP, max_tokens: this.maxTokens };
  }

  override async _call(prompt: string, options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): Promise<string> {
    const stop = [...STOP_SEQUENCES, ...(options.stop ?? [])];
    const seed = this.seeds.next();
    const written = await this.engine.complete({
      prompt,
      temperature: this.temperature,
      topP: this.topP,
      seed,
      maxTokens: this.maxTokens,
      stop,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await runManager?.handleText(`seed ${seed}`);
    return cutAtStop(written, stop);
  }
}
