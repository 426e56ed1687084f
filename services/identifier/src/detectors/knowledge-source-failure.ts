import type { KnowledgeFreshness } from '@rag-immune/rag-contract';
import type { VersionChange } from '../trace-diff/trace-diff.ts';
import { indexedAfterTrace, newerVersionIndexed } from './support/knowledge-freshness.ts';
import type { Measurement, RootCauseDetector } from './root-cause-detector.ts';
import { catalogued } from './support/detector-helpers.ts';

const DAY_MS = 86_400_000;

/**
 * Knowledge source failure: the online context holds an older version of a knowledge id than the
 * baseline's (the source stopped updating or serves an old snapshot). Looks at the knowledge
 * versions and validity of the context chunks, and the probe's knowledge-freshness lag.
 */
export const knowledgeSourceFailureDetector: RootCauseDetector = {
  ...catalogued('knowledge_source_failure'),
  readme: {
    looksAt: 'context versions, KF lag, freshness lookup',
    signature:
      "the online context holds an older version of a knowledge id than the baseline's (and the index does not hold the newer one). Claims say where the staleness lies: `feed_behind_baseline_days` (the feed publishes nothing newer: a backup feed may heal) or `index_behind_feed_days` (the feed is current, ingestion stalled: re-ingesting heals), so memory can learn which repair fits",
  },
  detect({ result, diff, freshness }) {
    // An id whose newer version the index holds is not stale: retrieval missed it (vector damage).
    const older = diff.versions.older_in_online.filter((change) => !newerVersionIndexed(change, freshness, diff.online_traced_at));
    const lag = result.comparison.kf_lag_days ?? 0;
    // Without an older version in view, a stale-knowledge lag is still freshness evidence, and the
    // only evidence when the answer itself did not change.
    const score =
      older.length > 0
        ? 0.75 + 0.15 * Math.min(1, older.length / 2) + 0.1 * (lag > 0 ? 1 : 0)
        : lag > 30
          ? diff.answer.equal_to_baseline
            ? 0.6
            : 0.2
          : 0;
    return {
      cause: this.cause,
      component: this.component,
      score,
      knowledge_ids: older.map((change) => change.knowledge_id),
      measurements: [
        ...older.flatMap((change) => [
          {
            claim_kind: 'knowledge_staleness' as const,
            subject: `${change.knowledge_id}@${change.online_version}`,
            metric: 'served_version_age_days_vs_baseline',
            observed: ((change.baseline_valid_from ?? 0) - (change.online_valid_from ?? 0)) / DAY_MS,
            baseline: 0,
          },
          ...whereStalenessLies(change, freshness?.get(change.knowledge_id), diff.online_traced_at),
        ]),
        ...(score > 0
          ? [{ claim_kind: 'knowledge_staleness' as const, subject: result.probe_id, metric: 'kf_lag_days', observed: lag, baseline: 0 }]
          : []),
      ],
    };
  },
};

/**
 * Where the staleness of one id lies, from the RAG's freshness lookup: the feed itself publishes
 * nothing newer (the source is stale: a backup feed may help), or the feed is ahead of the index
 * (ingestion stalled: only re-ingesting helps). The two look alike in a trace; the repair differs.
 */
function whereStalenessLies(change: VersionChange, freshness: KnowledgeFreshness | undefined, tracedAt: number): Measurement[] {
  // An index re-synced since the probe (the fault healed or was repaired) no longer shows where it lay.
  if (freshness?.feed == null || freshness.indexed === null || indexedAfterTrace(freshness, tracedAt)) return [];
  const knowledgeId = change.knowledge_id;
  const feedFrom = Date.parse(freshness.feed.valid_from);
  const indexedFrom = Date.parse(freshness.indexed.valid_from);
  if (feedFrom > indexedFrom) {
    return [
      {
        claim_kind: 'knowledge_staleness',
        subject: `${knowledgeId}@${freshness.indexed.version}`,
        metric: 'index_behind_feed_days',
        observed: (feedFrom - indexedFrom) / DAY_MS,
        baseline: 0,
      },
    ];
  }
  return [
    {
      claim_kind: 'knowledge_staleness',
      subject: `${knowledgeId}@${freshness.feed.version}`,
      metric: 'feed_behind_baseline_days',
      observed: ((change.baseline_valid_from ?? feedFrom) - feedFrom) / DAY_MS,
      baseline: 0,
    },
  ];
}
