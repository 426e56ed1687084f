import type { DetectorVerdict, RootCauseDetector } from './root-cause-detector.ts';
import { catalogued } from './support/detector-helpers.ts';

const DAY_MS = 86_400_000;

/**
 * Unpublished knowledge: the online RAG served a knowledge version newer than the baseline's that
 * its own feed never published (indexed ahead of the feed, or an id the feed does not know): a bad
 * ingest, a poisoned import, a test record that leaked. The sentinel made the check when it ran the
 * probe (the contract's freshness lookup) and recorded it in the ProbeResult; the online trace showing
 * that version newer than the baseline's strengthens it. A version that is really another document's
 * (its chunk carries other ids than in the baseline: a relabel) is wrong attribution, not this.
 */
export const unpublishedKnowledgeDetector: RootCauseDetector = {
  ...catalogued('unpublished_knowledge'),
  readme: {
    looksAt:
      "the ProbeResult's feed check (`comparison.unpublished_knowledge`, made by the sentinel with `GET /knowledge/{id}`), newer online versions in the trace",
    signature:
      "the online side served a version its feed never published (indexed ahead of the feed, or an id the feed does not know): 0.95 when the online trace shows that version newer than the baseline's, 0.85 on the lookup alone. Claims `chunk_pollution` `indexed_version_published_by_feed` = 0 (subject `<id>@<version>`) and `knowledge_staleness` `indexed_ahead_of_feed_days`. Scope: those knowledge ids; repair: re-ingest from the feed (`rebuild_index_incremental`). Misses what the sentinel's check misses (a RAG without the lookup: the first-divergence record's `feed_check` says `lookup_not_served`; versions older than the feed's newest); an id whose chunks are relabelled (another document's version under it) is left to `wrong-attribution`",
  },
  detect({ result, diff }): DetectorVerdict {
    const relabelled = new Set(result.comparison.attribution?.relabelled_knowledge_ids ?? []);
    const unpublished = (result.comparison.unpublished_knowledge ?? []).filter((u) => !relabelled.has(u.knowledge_id));
    if (unpublished.length === 0) return { cause: this.cause, component: this.component, score: 0, measurements: [], knowledge_ids: [] };
    const inTrace = new Set(diff.versions.newer_in_online.map((change) => `${change.knowledge_id}\u0000${change.online_version}`));
    const confirmed = unpublished.some((u) => inTrace.has(`${u.knowledge_id}\u0000${u.online_version}`));
    return {
      cause: this.cause,
      component: this.component,
      // The lookup alone is strong evidence; the trace showing the same version served settles it.
      score: confirmed ? 0.95 : 0.85,
      knowledge_ids: [...new Set(unpublished.map((u) => u.knowledge_id))].sort(),
      measurements: unpublished.flatMap((u) => [
        {
          claim_kind: 'chunk_pollution' as const,
          subject: `${u.knowledge_id}@${u.online_version}`,
          metric: 'indexed_version_published_by_feed',
          observed: 0,
          baseline: 1,
        },
        ...(u.feed_valid_from === null
          ? []
          : [
              {
                claim_kind: 'knowledge_staleness' as const,
                subject: u.knowledge_id,
                metric: 'indexed_ahead_of_feed_days',
                observed: (u.online_valid_from - u.feed_valid_from) / DAY_MS,
                baseline: 0,
              },
            ]),
      ]),
    };
  },
};
