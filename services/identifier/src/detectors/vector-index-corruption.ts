import { newerVersionIndexed } from './knowledge-freshness.ts';
import { clamp01, type RootCauseDetector } from './root-cause-detector.ts';

/** Fewer shared candidates than this cannot show that "the rest of the index is unchanged". */
const MIN_SHARED = 5;

/**
 * Vector index corruption: with the same query text, retrieval lost (or re-scored) some of the
 * chunks the baseline answered from while every other shared candidate kept its exact score: the
 * damage is in those chunks' vectors, not in the query side. Losses explained by a newer/older
 * version (knowledge source) or by re-parsed text (parser) do not count, except an older version
 * served while the RAG's freshness lookup says the index holds the newer one. Looks at candidates before
 * reranking: set overlap, per-chunk retrieval score deltas, lost context chunks (those the baseline
 * answer cited weigh most).
 */
export const vectorIndexCorruptionDetector: RootCauseDetector = {
  cause: 'vector_index_corruption',
  component: 'vector_index',
  intents: ['rebuild_index_incremental'],
  detect({ diff, freshness }) {
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
    if (diff.query.rewritten_equal && damaged > 0 && stableOthers !== null && others >= MIN_SHARED) {
      score = (0.5 + 0.5 * clamp01((stableOthers - 0.5) / 0.45)) * Math.min(1, jaccard / 0.6);
      if (diff.chunks.text_changed.length > 0) score *= 0.3;
      // Damage only to chunks the baseline answer did not rest on cannot explain a worse answer.
      if (![...lost, ...moved].some((c) => c.cited)) score *= 0.3;
    }
    if (score === 0) return { cause: this.cause, component: this.component, score, measurements: [], knowledge_ids: [] };
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
      ],
    };
  },
};
