/**
 * The production faults a RAG with a fault admin API (the reference RAG) can have injected: named
 * here, beside the client of that API, so the CLI, the test kit and the RAG share one list.
 */
export const FAULT_KINDS = [
  'vector-index-corruption',
  'reranker-drift',
  'knowledge-source-failure',
  'parser-bug',
  'generator-inconsistency',
  'tokenizer-anomaly',
] as const;

/**
 * Faults injected only to evaluate the identifier: no detector was designed for them, so the right
 * answer is `unknown` (or the right component), never one of the six causes. Not offered by the CLI.
 */
export const EVALUATION_FAULT_KINDS = ['embedding-model-swap'] as const;
