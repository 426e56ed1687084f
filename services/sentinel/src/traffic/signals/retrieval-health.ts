import type { UserAnswer } from '../user-answer.ts';
import { topRetrievalScore } from '../user-answer.ts';
import type { AnswerSignal, SegmentView, SignalReading } from './answer-signal.ts';

export interface RetrievalHealthOptions {
  /** A top score below this share of the segment's usual top score is "far below" (e.g. 0.8). */
  scoreDropRatio: number;
}

/** Why the retrieval of one answer looks unhealthy, or null; exported for the profile's retrospective count. */
export function retrievalProblem(answer: UserAnswer, segment: SegmentView, options: RetrievalHealthOptions): string | null {
  const { trace } = answer;
  if (trace.candidates.length === 0 && trace.context.length === 0) return 'nothing retrieved';
  if (answer.gaps.some((g) => g.piece === 'document_metadata'))
    return 'retrieved chunks lack their versioned metadata (knowledge_id, version, updated_at, ...)';
  const top = topRetrievalScore(trace);
  if (
    top !== undefined &&
    segment.usualTopScore !== undefined &&
    segment.usualTopScore > 0 &&
    top < options.scoreDropRatio * segment.usualTopScore
  )
    return `top score ${top.toFixed(3)} < ${options.scoreDropRatio} x usual ${segment.usualTopScore.toFixed(3)}`;
  const retrieved = new Set([...trace.candidates, ...trace.context].map((c) => c.knowledge_id));
  if (segment.usualKnowledgeId !== undefined && !retrieved.has(segment.usualKnowledgeId))
    return `the knowledge this query was answered from (${segment.usualKnowledgeId}) is no longer retrieved`;
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
    read(answer: UserAnswer, segment: SegmentView): Promise<SignalReading> {
      const problem = retrievalProblem(answer, segment, options);
      return Promise.resolve({ signal: 'retrieval_unhealthy', bad: problem !== null, ...(problem === null ? {} : { detail: problem }) });
    },
  };
}
