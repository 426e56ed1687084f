import type { Trace } from '@rag-immune/rag-contract';
import type { UserAnswer } from '../../../src/traffic/user-answer.ts';

/** A healthy traced answer drawn from `knowledgeId`, with overrides. */
export function userAnswer(
  overrides: Partial<Trace> & { knowledgeId?: string; score?: number; cited?: string[]; gaps?: UserAnswer['gaps'] } = {},
): UserAnswer {
  const { knowledgeId = 'pkg-openssl', score = 0.8, cited, gaps = [], ...traceOverrides } = overrides;
  const chunk = {
    chunk_id: `${knowledgeId}#0`,
    doc_id: knowledgeId,
    knowledge_id: knowledgeId,
    version: '3.0.2',
    source: 'debian',
    source_trust: 1,
    updated_at: '2026-11-01T00:00:00.000Z',
    valid_from: '2026-11-01T00:00:00.000Z',
    valid_until: null,
    retrieval_score: score,
    text: `${knowledgeId} is at version 3.0.2 in the archive.`,
  };
  const trace: Trace = {
    trace_id: 'a'.repeat(32),
    created_at: '2026-12-06T00:00:00.000Z',
    query: 'which version of openssl is packaged?',
    as_of: '2026-12-06T00:00:00.000Z',
    candidates: [{ chunk_id: chunk.chunk_id, knowledge_id: knowledgeId, version: '3.0.2', retrieval_score: score, rank: 1 }],
    reranked: [],
    context: [chunk],
    answer: `${knowledgeId} is at version 3.0.2.`,
    citations: [],
    models: { embedder: 'e', reranker: 'r', generator: 'g' },
    timings: { total_ms: 10 },
    ...traceOverrides,
  };
  return { trace_id: trace.trace_id, received_at: 0, trace, gaps, cited_chunk_ids: cited };
}
