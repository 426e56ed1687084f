import type { UserAnswer } from '../user-answer.ts';
import { topRetrievalScore } from '../user-answer.ts';
import type { AnswerSignal, SegmentView, SignalReading } from './answer-signal.ts';

export interface RetrievalHealthOptions {
  /** A top score below this share of the segment's usual top score is "far below" (e.g. 0.8). */
  scoreDropRatio: number;
}

export type RetrievalProblemKind = 'metadata_missing' | 'nothing_retrieved' | 'usual_knowledge_missing' | 'score_drop';

/**
 * Why the retrieval of one answer looks unhealthy, or null. The score drop is checked last: the
 * drift monitor learns the usual score after the rest, and recounts its profile with it.
 */
export function retrievalProblem(
  answer: UserAnswer,
  segment: SegmentView,
  options: RetrievalHealthOptions,
): { kind: RetrievalProblemKind; detail: string } | null {
  const { trace } = answer;
  if (answer.gaps.some((g) => g.piece === 'document_metadata'))
    return { kind: 'metadata_missing', detail: 'retrieved chunks lack their versioned metadata (knowledge_id, version, updated_at, ...)' };
  if (trace.candidates.length === 0 && trace.context.length === 0) return { kind: 'nothing_retrieved', detail: 'nothing retrieved' };
  const retrieved = new Set([...trace.candidates, ...trace.context].map((c) => c.knowledge_id));
  if (segment.usualKnowledgeId !== undefined && !retrieved.has(segment.usualKnowledgeId))
    return {
      kind: 'usual_knowledge_missing',
      detail:
        segment.usualMatch === 'near'
          ? `the knowledge this rewording's words point to (${segment.usualKnowledgeId}) is not retrieved`
          : `the knowledge this query was answered from (${segment.usualKnowledgeId}) is no longer retrieved`,
    };
  const top = topRetrievalScore(trace);
  const usual = segment.usualTopScore;
  if (top !== undefined && usual !== undefined && usual > 0 && top < options.scoreDropRatio * usual)
    return { kind: 'score_drop', detail: `top score ${top.toFixed(3)} < ${options.scoreDropRatio} x usual ${usual.toFixed(3)}` };
  return null;
}

/**
 * Retrieval health without a baseline: nothing retrieved, chunks missing their versioned metadata,
 * a top score far below the segment's usual, or the knowledge the query used to be answered from
 * no longer retrieved (what overwritten or deleted vectors look like from the outside).
 */
export function retrievalHealth(options: RetrievalHealthOptions): AnswerSignal {
  return {
    name: 'retrieval_unhealthy',
    read(answer: UserAnswer, segment: SegmentView): Promise<SignalReading | null> {
      const problem = retrievalProblem(answer, segment, options);
      if (problem === null) return Promise.resolve({ signal: 'retrieval_unhealthy', bad: false });
      // The knowledge its question is answered from left the context: what a retriever does on a
      // changed index, near-deterministically for one wording (worth a spot check now).
      const decisive = problem.kind === 'usual_knowledge_missing';
      return Promise.resolve({ signal: 'retrieval_unhealthy', bad: true, ...problem, ...(decisive ? { decisive } : {}) });
    },
  };
}
