/** What the LangChain LLM needs from a local model runtime: one completion, sampled with the given seed. */
export interface CompletionRequest {
  prompt: string;
  temperature: number;
  topP: number;
  seed: number;
  maxTokens: number;
  /** The engine should stop at these; the caller still cuts at them (a trigger can be missed). */
  stop: readonly string[];
  signal?: AbortSignal;
}

export interface CompletionEngine {
  /** The model's name as the RAG reports it (its file, version and quantisation). */
  readonly modelName: string;
  complete(request: CompletionRequest): Promise<string>;
  close(): Promise<void>;
}

/** The model file is not there: scripts/install-gemma.sh installs it; nothing is downloaded at run time. */
export class ModelNotInstalledError extends Error {
  constructor(readonly modelPath: string) {
    super(`no model at ${modelPath}: run scripts/install-gemma.sh (it prints the path for LLM_MODEL_PATH)`);
    this.name = 'ModelNotInstalledError';
  }
}
