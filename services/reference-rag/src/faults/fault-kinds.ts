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
