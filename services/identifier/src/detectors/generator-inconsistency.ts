import type { RootCauseDetector } from './root-cause-detector.ts';
import { bool, catalogued, clamp01, verdict } from './support/detector-helpers.ts';

/**
 * Generator inconsistency: the generator got exactly the baseline's context (same chunks, same
 * text) and answered differently, stating facts its own cited chunks do not contain, or running
 * another build than the baseline's (another model or prompt, as its trace names it). Looks at the
 * context layer, at the answer against its own context and against the baseline's answer, and at
 * the reported generator version: same input, another answer, another build is the generator's
 * doing, as the reranker drift detector reads a reranker that ordered the same input otherwise.
 */
export const generatorInconsistencyDetector: RootCauseDetector = {
  ...catalogued('generator_inconsistency'),
  readme: {
    looksAt: 'context, answer vs own context',
    signature: 'identical context, a different answer stating facts its cited chunk does not contain',
  },
  detect({ result, diff }) {
    const { context, answer, models } = diff;
    const unfaithful = answer.online_unsupported.length > 0 && answer.baseline_unsupported.length === 0;
    const differs = !answer.equal_to_baseline;
    // A build change alone is no fault (a sampled answer differs anyway): only with a differing answer on
    // the same context, in a probe the sentinel already found degraded.
    const versionChanged = models.changed.includes('generator');
    const score = context.identical ? clamp01(0.2 * bool(differs) + 0.75 * bool(unfaithful) + 0.5 * bool(versionChanged && differs)) : 0;
    if (score === 0) return verdict(this, score);
    return verdict(this, score, [
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
      ...(versionChanged
        ? [
            {
              claim_kind: 'component_version_change' as const,
              subject: `generator:${models.baseline.generator}->${models.online.generator}`,
              metric: 'generator_version_changed',
              observed: 1,
              baseline: 0,
            },
          ]
        : []),
    ]);
  },
};
