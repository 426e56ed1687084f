import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RagClient } from '@rag-immune/rag-contract';
import { isExactAnswer, LabelledQuestion } from './question-set.ts';

export const QUESTIONS_PATH = fileURLToPath(new URL('../../data/questions.jsonl', import.meta.url));

export function loadQuestions(path = QUESTIONS_PATH): LabelledQuestion[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => LabelledQuestion.parse(JSON.parse(line)));
}

export interface Graded {
  question: LabelledQuestion;
  answer: string;
  correct: boolean;
  latencyMs: number;
}

/**
 * Asks every question through the contract client and grades exact answers. `against` picks the
 * expectation: `current` (as of the question's as_of) or `baseline` (as of the baseline pin).
 */
export async function grade(
  client: RagClient,
  questions: LabelledQuestion[],
  against: 'current' | 'baseline' = 'current',
): Promise<Graded[]> {
  const out: Graded[] = [];
  for (const question of questions) {
    const expected = against === 'current' ? question.expected : question.expected_baseline;
    const started = performance.now();
    const response = await client.query({ query: question.question, ...(against === 'current' ? { as_of: question.as_of } : {}) });
    const latencyMs = performance.now() - started;
    out.push({
      question,
      answer: response.answer,
      correct: expected !== null && !response.abstained && isExactAnswer(response.answer, expected),
      latencyMs,
    });
  }
  return out;
}

export const accuracy = (graded: Graded[]): number => (graded.length === 0 ? NaN : graded.filter((g) => g.correct).length / graded.length);

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
