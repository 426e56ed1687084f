/**
 * The reference RAG as a test fixture (`@rag-immune/reference-rag/testing`): an online + frozen
 * baseline pair started in-process, its labelled questions and how answers are graded, and which
 * queries a fault touches. For integration tests, benchmarks and the demo, never for a worker.
 */
export { startReferenceRagPair, type ReferenceRagPair, type ReferenceRagPairOptions } from './reference-rag-pair.ts';
export type { ReferenceRag } from './reference-rag.ts';
export { buildQuestions, isExactAnswer, LabelledQuestion } from './questions/question-set.ts';
export { loadQuestions, grade, accuracy, percentile, QUESTIONS_PATH, type Graded } from './questions/evaluate.ts';
export { touchedByTokenizerAnomaly } from './text/query-normalizer.ts';
export { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
