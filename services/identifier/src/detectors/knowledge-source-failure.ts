import type { RootCauseDetector } from './root-cause-detector.ts';

const DAY_MS = 86_400_000;

/**
 * Knowledge source failure: the online context holds an older version of a knowledge id than the
 * baseline's (the source stopped updating or serves an old snapshot). Looks at the knowledge
 * versions and validity of the context chunks, and the probe's knowledge-freshness lag.
 */
export const knowledgeSourceFailureDetector: RootCauseDetector = {
  cause: 'knowledge_source_failure',
  component: 'knowledge_source',
  intents: ['switch_backup_source', 'refresh_knowledge_source'],
  detect({ result, diff }) {
    const older = diff.versions.older_in_online;
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
        ...older.map((change) => ({
          claim_kind: 'knowledge_staleness' as const,
          subject: `${change.knowledge_id}@${change.online_version}`,
          metric: 'served_version_age_days_vs_baseline',
          observed: ((change.baseline_valid_from ?? 0) - (change.online_valid_from ?? 0)) / DAY_MS,
          baseline: 0,
        })),
        ...(score > 0
          ? [{ claim_kind: 'knowledge_staleness' as const, subject: result.probe_id, metric: 'kf_lag_days', observed: lag, baseline: 0 }]
          : []),
      ],
    };
  },
};
