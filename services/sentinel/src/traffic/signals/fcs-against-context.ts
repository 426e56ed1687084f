import type { FactConsistencyPort } from '@rag-immune/probing';
import type { UserAnswer } from '../user-answer.ts';
import type { AnswerSignal, SignalReading } from './answer-signal.ts';

export interface FcsAgainstContextOptions {
  fcs: FactConsistencyPort;
  /** An answer scoring below this against its own context is bad. */
  minScore: number;
  /** Share of answers scored (the scorer is the watcher's most expensive step), 0..1. */
  share: number;
  random?: () => number;
}

/**
 * FCS of the answer against the context it was generated from: an answer its own evidence does not
 * support. Scored on a configurable share of answers; an abstention or an empty context is not scored.
 */
export function fcsAgainstContext(options: FcsAgainstContextOptions): AnswerSignal {
  const random = options.random ?? Math.random;
  return {
    name: 'fcs_low',
    async read(answer: UserAnswer): Promise<SignalReading | null> {
      const { trace } = answer;
      if (trace.abstained === true || trace.context.length === 0 || trace.answer.trim() === '') return null;
      if (random() >= options.share) return null;
      const verdict = await options.fcs.score({
        question: trace.query,
        evidence: trace.context.map((c) => ({ id: c.chunk_id, text: c.text })),
        answer: trace.answer,
      });
      if (verdict.status !== 'scored' || verdict.score === null) return null;
      return {
        signal: 'fcs_low',
        bad: verdict.score < options.minScore,
        detail: `fcs ${verdict.score.toFixed(3)} (min ${options.minScore})`,
      };
    },
  };
}
