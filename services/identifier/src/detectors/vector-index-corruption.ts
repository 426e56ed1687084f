import { attributeFreshnessLag, type FreshnessLagAttribution } from './support/freshness-lag.ts';
import { newerVersionIndexed } from './support/knowledge-freshness.ts';
import type { RootCauseDetector } from './root-cause-detector.ts';
import { catalogued, clamp01, verdict } from './support/detector-helpers.ts';

/** Fewer shared candidates than this cannot show that "the rest of the index is unchanged". */
const MIN_SHARED = 5;
/**
 * Share of the other shared candidates keeping their exact score: at or below the floor the index as a
 * whole moved (the query side changed); from STABLE_FULL up, the damage is confined to some vectors.
 * Wide damage (a zeroed or perturbed fraction of the index) leaves 0.7-0.8 of the rest stable.
 */
const STABLE_FLOOR = 0.2;
const STABLE_FULL = 0.6;

/**
 * Vector index corruption: with the same query text, retrieval lost (or re-scored) some of the
 * chunks the baseline answered from while every other shared candidate kept its exact score: the
 * damage is in those chunks' vectors, not in the query side. Losses explained by a newer/older
 * version (knowledge source) or by re-parsed text (parser) do not count, except an older version
 * served while the RAG's freshness lookup says the index holds the newer one. Looks at candidates before
 * reranking: set overlap, per-chunk retrieval score deltas, lost context chunks (those the baseline
 * answer cited weigh most). A probe flagged for freshness alone is judged by whether the damaged
 * chunks' lost relevance is what moved its freshness, cited or not.
 */
export const vectorIndexCorruptionDetector: RootCauseDetector = {
  ...catalogued('vector_index_corruption'),
  readme: {
    looksAt: 'candidates before rerank, freshness lookup',
    signature:
      "same query text; baseline context chunks lost or re-scored while the other shared candidates keep their exact scores (the damage is in some vectors, not the query side); losses explained by version changes or re-parsed text don't count, except an older version served while the index holds the newer one (a chunk retrieval cannot find). Only an index whose other candidates nearly all moved (≤ 0.2 stable: the query side) counts against it; wide damage leaves 0.7-0.8 stable. Damage to chunks the baseline answer did not cite explains a worse answer poorly (×0.3), but it does explain a probe flagged for stale knowledge alone when giving the damaged chunks their baseline retrieval scores back removes at least half of the freshness lag (`src/detectors/support/freshness-lag.ts`; claim `kf_lag_days_with_damaged_scores_restored`): freshness is relevance-weighted, so a zeroed vector drops its chunk's update time out of it",
  },
  detect({ result, diff, freshness }) {
    const explained = new Set([
      // Unless the index holds the newer version retrieval missed: then the loss is the vector's.
      ...diff.versions.older_in_online.filter((c) => !newerVersionIndexed(c, freshness, diff.online_traced_at)).map((c) => c.knowledge_id),
      ...diff.versions.newer_in_online.map((c) => c.knowledge_id),
    ]);
    const reparsed = new Set(diff.chunks.text_changed.map((c) => c.chunk_id));
    const lost = diff.candidates.lost_context_chunks.filter((c) => !explained.has(c.knowledge_id));
    const moved = diff.candidates.moved_context_chunks.filter((c) => !reparsed.has(c.chunk_id) && !explained.has(c.knowledge_id));
    const damaged = lost.length + moved.length;
    const { shared, shared_score_stable_fraction: stableAll, jaccard } = diff.candidates;
    // Stability of the rest of the index: shared candidates other than the damaged ones.
    const others = shared - diff.candidates.moved_context_chunks.length;
    const stableOthers = stableAll === null || others <= 0 ? null : Math.min(1, (stableAll * shared) / others);
    let score = 0;
    let lagAttribution: FreshnessLagAttribution | null = null;
    if (diff.query.rewritten_equal && damaged > 0 && stableOthers !== null && others >= MIN_SHARED) {
      // A query-side change (another embedder) moves nearly every score; damage to many vectors moves
      // many, but leaves most of the rest: only a nearly all-moved index counts against the vectors.
      score = (0.5 + 0.5 * clamp01((stableOthers - STABLE_FLOOR) / (STABLE_FULL - STABLE_FLOOR))) * Math.min(1, jaccard / 0.6);
      if (diff.chunks.text_changed.length > 0) score *= 0.3;
      const freshnessOnly = result.anomaly_signals.length > 0 && result.anomaly_signals.every((signal) => signal === 'kf_stale');
      if (freshnessOnly) lagAttribution = attributeFreshnessLag(result, [...lost, ...moved]);
      // Damage only to chunks the baseline answer did not rest on cannot explain a worse answer; it does
      // explain a freshness-only anomaly when their lost relevance is what moved the freshness.
      if (![...lost, ...moved].some((c) => c.cited) && !lagAttribution?.explained) score *= 0.3;
    }
    if (score === 0) return verdict(this, score);
    return {
      cause: this.cause,
      component: this.component,
      score,
      knowledge_ids: [...new Set([...lost, ...moved].map((c) => c.knowledge_id))],
      measurements: [
        ...lost.map((c) => ({
          claim_kind: 'retrieved_set_change' as const,
          subject: c.chunk_id,
          metric: 'retrieved_before_rerank',
          observed: 0,
          baseline: 1,
        })),
        ...moved.map((c) => ({
          claim_kind: 'retrieval_score_shift' as const,
          subject: c.chunk_id,
          metric: 'retrieval_score',
          observed: c.online_score,
          baseline: c.baseline_score,
        })),
        {
          claim_kind: 'retrieval_score_shift' as const,
          subject: 'vector_index',
          metric: 'other_candidates_score_stable_fraction',
          observed: stableOthers ?? 0,
          baseline: 1,
        },
        {
          claim_kind: 'retrieved_set_change' as const,
          subject: 'vector_index',
          metric: 'candidate_jaccard',
          observed: jaccard,
          baseline: 1,
        },
        ...(lagAttribution?.explained
          ? [
              {
                claim_kind: 'retrieval_score_shift' as const,
                subject: result.probe_id,
                metric: 'kf_lag_days_with_damaged_scores_restored',
                observed: lagAttribution.lag_days_restored,
                baseline: lagAttribution.lag_days,
              },
            ]
          : []),
      ],
    };
  },
};
