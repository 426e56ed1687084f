/**
 * The production faults the reference RAG can inject. Its own module, exported as
 * `@rag-immune/reference-rag/fault-kinds`, so the CLI can name them without loading the RAG.
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
