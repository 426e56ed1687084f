import type { RootCauseDetector } from './root-cause-detector.ts';
import { bool, catalogued, verdict } from './support/detector-helpers.ts';

/**
 * Reranker drift: reranking got exactly the baseline's input (same candidates, same retrieval
 * scores) and still ordered it differently; a changed reranker version strengthens it. Looks at the
 * candidates before reranking, the reranked order, rerank scores and the reported reranker version.
 */
export const rerankerDriftDetector: RootCauseDetector = {
  ...catalogued('reranker_drift'),
  readme: {
    looksAt: 'candidates, reranked order, reranker version',
    signature:
      "identical rerank input (ids and retrieval scores) ordered differently, rerank scores moved, version changed. With another fault changing the input at the same time (damaged vectors, stale knowledge), a changed reranker version that also reorders the chunks both reranked lists share (`rerank_shared_order_changed`) still fits (0.75); the same reorder without a version change proves nothing (the reference reranker's features are relative to its input set)",
  },
  detect({ result, diff }) {
    const { rerank, models } = diff;
    const versionChanged = models.changed.includes('reranker');
    const scoresMoved = (rerank.mean_abs_rerank_delta ?? 0) > 1e-3;
    // A different query text also reorders the same candidates: that is the query layer, not the reranker.
    const sameQuery = diff.query.rewritten_equal ? 1 : 0.3;
    // Another fault changing retrieval at the same time (damaged vectors, stale knowledge) changes the
    // reranker's input, but a changed reranker version that also reorders the chunks both lists share
    // is still the reranker's doing. Without a version change a reorder of the shared chunks proves
    // nothing: the reranker's features are relative to the set it is given.
    const reorderedShared = !rerank.input_identical && versionChanged && diff.query.rewritten_equal && rerank.shared_order_changed;
    const score = rerank.input_identical
      ? sameQuery * (0.45 * bool(rerank.order_changed) + 0.3 * bool(versionChanged) + 0.25 * bool(scoresMoved))
      : 0.3 * bool(versionChanged) + 0.45 * bool(reorderedShared);
    if (score === 0) return verdict(this, score);
    return verdict(this, score, [
      {
        claim_kind: 'retrieved_set_change',
        subject: result.probe_id,
        metric: 'rerank_input_identical',
        observed: bool(rerank.input_identical),
        baseline: 1,
      },
      {
        claim_kind: 'rerank_score_shift',
        subject: result.probe_id,
        metric: 'rerank_order_changed',
        observed: bool(rerank.order_changed),
        baseline: 0,
      },
      ...(reorderedShared
        ? [
            {
              claim_kind: 'rerank_score_shift' as const,
              subject: result.probe_id,
              metric: 'rerank_shared_order_changed',
              observed: 1,
              baseline: 0,
            },
          ]
        : []),
      {
        claim_kind: 'rerank_score_shift',
        subject: result.probe_id,
        metric: 'mean_abs_rerank_score_delta',
        observed: rerank.mean_abs_rerank_delta ?? 0,
        baseline: 0,
      },
      ...(versionChanged
        ? [
            {
              claim_kind: 'component_version_change' as const,
              subject: `reranker:${models.baseline.reranker}->${models.online.reranker}`,
              metric: 'reranker_version_changed',
              observed: 1,
              baseline: 0,
            },
          ]
        : []),
    ]);
  },
};
