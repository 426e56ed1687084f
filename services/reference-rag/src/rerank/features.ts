import type { ChunkPayload } from '../index/vector-index.ts';
import { subjectOf } from '@rag-immune/debian-knowledge';
import { contentTerms, numericTerms, terms } from '../text/terms.ts';

/** The reranker's features, in the order weights files list them. */
export const FEATURE_NAMES = ['cosine', 'subject_match', 'term_overlap', 'bm25', 'number_match', 'source_trust'] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

export interface Candidate {
  retrievalScore: number;
  payload: ChunkPayload;
}

/**
 * Feature vectors for a query against its candidates. BM25 is computed over the candidate set (the
 * documents the reranker sees) and scaled to [0, 1] by the set's maximum.
 */
export function featureVectors(query: string, candidates: Candidate[]): number[][] {
  const queryTerms = [...new Set(contentTerms(query))];
  const queryAll = new Set(terms(query));
  const queryNumbers = [...new Set(numericTerms(query))];
  const docs = candidates.map((candidate) => terms(candidate.payload.text));
  const avgLength = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, docs.length);
  const documentFrequency = new Map<string, number>();
  for (const doc of docs) for (const term of new Set(doc)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const bm25 = docs.map((doc) => {
    const tf = new Map<string, number>();
    for (const term of doc) tf.set(term, (tf.get(term) ?? 0) + 1);
    let score = 0;
    for (const term of queryTerms) {
      const f = tf.get(term) ?? 0;
      if (f === 0) continue;
      const df = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      score += (idf * f * 2.2) / (f + 1.2 * (0.25 + 0.75 * (doc.length / avgLength)));
    }
    return score;
  });
  const maxBm25 = Math.max(1e-9, ...bm25);
  return candidates.map((candidate, i) => {
    const doc = new Set(docs[i]);
    const overlap = queryTerms.length === 0 ? 0 : queryTerms.filter((term) => doc.has(term)).length / queryTerms.length;
    const numbers = queryNumbers.length === 0 ? 0 : queryNumbers.filter((term) => doc.has(term)).length / queryNumbers.length;
    const subject = queryAll.has(subjectOf(candidate.payload.knowledge_id).toLowerCase()) ? 1 : 0;
    return [candidate.retrievalScore, subject, overlap, bm25[i]! / maxBm25, numbers, candidate.payload.source_trust];
  });
}
