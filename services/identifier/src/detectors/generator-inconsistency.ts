import { bool, catalogued, type RootCauseDetector } from './root-cause-detector.ts';

/**
 * Generator inconsistency: the generator got exactly the baseline's context (same chunks, same
 * text) and answered differently, stating facts its own cited chunks do not contain. Looks at the
 * context layer and at the answer against its own context and against the baseline's answer.
 */
export const generatorInconsistencyDetector: RootCauseDetector = {
  ...catalogued('generator_inconsistency'),
  detect({ result, diff }) {
    const { context, answer } = diff;
    const unfaithful = answer.online_unsupported.length > 0 && answer.baseline_unsupported.length === 0;
    const score = context.identical ? 0.2 * bool(!answer.equal_to_baseline) + 0.75 * bool(unfaithful) : 0;
    if (score === 0) return { cause: this.cause, component: this.component, score, measurements: [], knowledge_ids: [] };
    return {
      cause: this.cause,
      component: this.component,
      score,
      knowledge_ids: [],
      measurements: [
        { claim_kind: 'retrieved_set_change', subject: result.probe_id, metric: 'context_identical', observed: 1, baseline: 1 },
        {
          claim_kind: 'answer_fact_mismatch',
          subject: result.probe_id,
          metric: 'answer_facts_unsupported_by_own_context',
          observed: answer.online_unsupported.length,
          baseline: answer.baseline_unsupported.length,
        },
        {
          claim_kind: 'answer_fact_mismatch',
          subject: result.probe_id,
          metric: 'answer_equal_to_baseline',
          observed: bool(answer.equal_to_baseline),
          baseline: 1,
        },
      ],
    };
  },
};
