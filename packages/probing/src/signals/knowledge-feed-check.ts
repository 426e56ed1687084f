/**
 * Knowledge no feed published (issue 30, item 2). Online evidence newer than the pinned baseline's
 * is normally a legitimate update; but a bad ingest, a poisoned import or a leaked test record is
 * "newer" too. Before such a version is accepted as an update it is checked against the feed that
 * should have published it, through the contract's optional freshness lookup (GET /knowledge/{id}):
 * a version indexed ahead of the feed, or of an id the feed does not know, is an anomaly.
 */
import type { FeedCheckStatus, UnpublishedKnowledge } from '@rag-immune/contracts';
import { RagHttpError, type KnowledgeFreshness } from '@rag-immune/rag-contract';

/** An online chunk whose knowledge is newer than what the baseline knows (the reason for `knowledge_update`). */
export interface NewerChunk {
  knowledge_id: string;
  version: string;
  /** ms since epoch */
  valid_from: number;
}

/**
 * Newer online knowledge when the RAG serves no lookup: `update` (taken as a legitimate update, the
 * contract's default) or `unverified` (its adapter declares that every intended change comes with a
 * baseline refresh, so a version the baseline lacks is listed as unpublished: `baseline_not_refreshed`).
 */
export type NewerKnowledgeWithoutLookup = 'update' | 'unverified';

/** The RAG's freshness lookup of one knowledge id; throws RagHttpError 404 where the RAG does not serve it. */
export type FreshnessLookup = (knowledgeId: string) => Promise<KnowledgeFreshness>;

export interface FeedCheck {
  status: FeedCheckStatus;
  unpublished: UnpublishedKnowledge[];
}

/** Ids looked up per probe run: a probe's context names a few, and each lookup is a call to the RAG. */
export const MAX_FEED_LOOKUPS = 4;

/**
 * Checks each newer online knowledge id (its newest chunk) against the feed. Null when there is
 * nothing newer to check. Without a lookup the newer knowledge stays an update, as before, and the
 * status says the check could not be made. A version older than the feed's newest is not judged:
 * the lookup names only the newest version, so it cannot tell whether the feed ever published it.
 */
export async function checkAgainstFeed(
  newer: readonly NewerChunk[],
  lookup: FreshnessLookup | undefined,
  maxLookups = MAX_FEED_LOOKUPS,
  withoutLookup: NewerKnowledgeWithoutLookup = 'update',
): Promise<FeedCheck | null> {
  if (newer.length === 0) return null;
  const newest = new Map<string, NewerChunk>();
  for (const chunk of newer) {
    const seen = newest.get(chunk.knowledge_id);
    if (seen === undefined || chunk.valid_from > seen.valid_from) newest.set(chunk.knowledge_id, chunk);
  }
  if (lookup === undefined) {
    if (withoutLookup === 'update') return { status: 'lookup_not_served', unpublished: [] };
    // The RAG's knowledge changes only with a baseline refresh: a version the baseline lacks was never
    // refreshed into it, so it is listed as unpublished (no feed to name: feed_version stays null).
    return {
      status: 'baseline_not_refreshed',
      unpublished: [...newest.values()].map((chunk) => ({
        knowledge_id: chunk.knowledge_id,
        online_version: chunk.version,
        online_valid_from: chunk.valid_from,
        feed_version: null,
        feed_valid_from: null,
      })),
    };
  }
  const outcomes = await Promise.all(
    [...newest.values()].slice(0, maxLookups).map(async (chunk) => {
      try {
        return { chunk, freshness: await lookup(chunk.knowledge_id) };
      } catch (error) {
        return { chunk, error: error instanceof RagHttpError && error.status === 404 ? ('not_served' as const) : ('failed' as const) };
      }
    }),
  );
  const unpublished: UnpublishedKnowledge[] = [];
  for (const outcome of outcomes) {
    if (outcome.freshness === undefined) continue;
    const { chunk, freshness } = outcome;
    if (aheadOfFeed(chunk, freshness))
      unpublished.push({
        knowledge_id: chunk.knowledge_id,
        online_version: chunk.version,
        online_valid_from: chunk.valid_from,
        feed_version: freshness.feed?.version ?? null,
        feed_valid_from: freshness.feed === null ? null : Date.parse(freshness.feed.valid_from),
      });
  }
  const status: FeedCheckStatus =
    unpublished.length > 0
      ? 'ahead_of_feed'
      : outcomes.some((o) => o.error === 'failed')
        ? 'lookup_failed'
        : outcomes.some((o) => o.error === 'not_served')
          ? 'lookup_not_served'
          : 'published';
  return { status, unpublished };
}

/** The feed does not know the id, or publishes an other version no later than this one: indexed ahead of it. */
export function aheadOfFeed(chunk: NewerChunk, freshness: KnowledgeFreshness): boolean {
  if (freshness.feed === null) return true;
  if (freshness.feed.version === chunk.version) return false;
  return chunk.valid_from >= Date.parse(freshness.feed.valid_from);
}
