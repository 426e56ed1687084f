import type { GoldenProbe } from '../golden-probe.ts';

/** The part of a labelled question (e.g. the reference RAG's question set) a probe is made from. */
export interface LabelledQuestionLike {
  question: string;
  knowledge_id: string;
  kind: string;
}

/**
 * Probes made directly from labelled questions, each attributable by construction to the knowledge
 * its answer lives in. For the demo, tests and benchmarks against the reference RAG; a production
 * probe set comes from `ProbeSetBuilder` over a real query log.
 */
export function probesFromQuestions(questions: readonly LabelledQuestionLike[], idPrefix: string): GoldenProbe[] {
  return questions.map((q, index) => ({
    id: `${idPrefix}-${index}`,
    version: 1,
    query: q.question,
    expected_sources: [q.knowledge_id],
    business_value: 1,
    cluster: q.kind,
    created_at: '2026-11-01T00:00:00Z',
    retired_at: null,
  }));
}
