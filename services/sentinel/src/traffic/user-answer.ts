import type { Trace } from '@rag-immune/rag-contract';
import type { TraceGap } from '@rag-immune/traces';

/**
 * One user's traced answer as the watcher reads it: the contract Trace the trace mappers made of
 * its spans (query and answer already redacted by the intake), the gaps they reported, and the
 * chunk ids the answer cites as the RAG recorded them (before the mapper keeps only context chunks).
 */
export interface UserAnswer {
  trace_id: string;
  /** When the intake stored the trace's last span, ms since epoch. */
  received_at: number;
  trace: Trace;
  gaps: readonly TraceGap[];
  /** Undefined when no span records citations. */
  cited_chunk_ids: readonly string[] | undefined;
  /**
   * Where the spans make no contract Trace because retrieval failed (nothing retrieved, chunks
   * without versioned metadata), the trace is judged with an empty retrieval, and this names the
   * knowledge id the first retrieved document carried, if any.
   */
  retrieved_knowledge?: string | undefined;
}

/** The knowledge id the answer was mostly drawn from: its first context chunk's, else its top candidate's. */
export function topKnowledgeId(answer: UserAnswer): string | undefined {
  return answer.trace.context[0]?.knowledge_id ?? answer.trace.candidates[0]?.knowledge_id ?? answer.retrieved_knowledge;
}

/** Every knowledge id the answer's retrieval returned (candidates and context). */
export function retrievedKnowledgeIds(answer: UserAnswer): string[] {
  const ids = new Set([...answer.trace.candidates, ...answer.trace.context].map((c) => c.knowledge_id));
  if (answer.retrieved_knowledge !== undefined) ids.add(answer.retrieved_knowledge);
  return [...ids];
}

/** The best retrieval score among the candidates (or the context where no candidate is listed). */
export function topRetrievalScore(trace: Trace): number | undefined {
  const scores = (trace.candidates.length > 0 ? trace.candidates : trace.context).map((c) => c.retrieval_score);
  return scores.length === 0 ? undefined : Math.max(...scores);
}
