import type { UserAnswer } from '../user-answer.ts';

/** What the clean profile knows of the answer's segment (empty while it is still being learned). */
export interface SegmentView {
  segment: string;
  /** Median top retrieval score of the segment's clean answers. */
  usualTopScore?: number;
  /** The knowledge id this query's cluster was answered from when it was first seen healthy. */
  usualKnowledgeId?: string;
  /** How that is known: the query's own cluster (`exact`), or a rewording's words pointing to it (`near`). */
  usualMatch?: 'exact' | 'near';
}

export interface SignalReading {
  signal: string;
  bad: boolean;
  /** Which of the signal's checks fired, where it has several. */
  kind?: string;
  /**
   * Near-deterministic evidence that what the segment serves changed (clean answers show it about
   * once in a hundred or less): worth a spot check of the segment now, not after a dozen answers.
   */
  decisive?: boolean;
  /** Why, for logs: ids and figures only, never user text. */
  detail?: string;
}

/**
 * One per-answer signal that needs no baseline RAG. null: not measured for this answer (sampled
 * out, not applicable), which is neither good nor bad.
 */
export interface AnswerSignal {
  readonly name: string;
  read(answer: UserAnswer, segment: SegmentView): Promise<SignalReading | null>;
  /** A signal that learns hears what the segment's shadow replay decided: rejected (the baseline agrees: clean)... */
  segmentCleared?(segment: string): void;
  /** ...or confirmed (what it saw is a fault's, not to be learned). */
  segmentConfirmed?(segment: string): void;
}
