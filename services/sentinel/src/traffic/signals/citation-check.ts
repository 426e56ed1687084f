import type { UserAnswer } from '../user-answer.ts';
import type { AnswerSignal, SignalReading } from './answer-signal.ts';

/**
 * Citations that name no retrieved source: the answer cites a chunk that was neither a candidate
 * nor in the context. Not measured when the answer cites nothing (or the RAG records no citations).
 */
export function citationCheck(): AnswerSignal {
  return {
    name: 'citation_unretrieved',
    read(answer: UserAnswer): Promise<SignalReading | null> {
      const cited = answer.cited_chunk_ids ?? [];
      if (cited.length === 0) return Promise.resolve(null);
      const retrieved = new Set([...answer.trace.candidates, ...answer.trace.context].map((c) => c.chunk_id));
      const unknown = cited.filter((id) => !retrieved.has(id));
      return Promise.resolve({
        signal: 'citation_unretrieved',
        bad: unknown.length > 0,
        ...(unknown.length > 0 ? { detail: `${unknown.length}/${cited.length} cited chunks were not retrieved` } : {}),
      });
    },
  };
}
