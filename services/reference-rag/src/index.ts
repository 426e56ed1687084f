/** The reference RAG itself. What tests and benchmarks use to drive it is `@rag-immune/reference-rag/testing`. */
export { createReferenceRag, DEFAULT_RERANKER_DIR } from './reference-rag.ts';
export type { ReferenceRag, ReferenceRagDeps } from './reference-rag.ts';
export { ragConfigFromEnv, InvalidConfigError } from './config.ts';
export type { RagConfig } from './config.ts';
export type { Embedder } from './embedding/embedder.ts';
export { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
export { FAULT_KINDS, FaultKind } from './faults/fault-injector.ts';
export { loadSentenceEmbedder } from './embedding/sentence-embedder.ts';
export { CachingEmbedder } from './embedding/embedder.ts';
