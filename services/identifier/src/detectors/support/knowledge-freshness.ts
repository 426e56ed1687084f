import type { KnowledgeFreshness } from '@rag-immune/rag-contract';
import type { VersionChange } from '../../trace-diff/trace-diff.ts';

/**
 * Whether the index wrote the version the lookup reports after the online trace was made. The
 * lookup runs after the probe it explains (a repair or an undo may have re-synced the index since):
 * then it says nothing about what that probe's retrieval could find. Unknown (false) when the RAG
 * does not report `indexed_at` (contract < 1.2.0).
 */
export function indexedAfterTrace(freshness: KnowledgeFreshness | undefined, tracedAt: number): boolean {
  const indexedAt = freshness?.indexed?.indexed_at;
  return indexedAt !== undefined && Date.parse(indexedAt) > tracedAt;
}

/**
 * Whether the online index held the very version the baseline answered from when the probe ran,
 * although online retrieval brought an older one: then the "older version" in the trace is not
 * staleness (the newer chunk was there) but a chunk retrieval cannot find, i.e. damage to its
 * vector. False without the RAG's freshness lookup, and when the version was written after the trace.
 */
export function newerVersionIndexed(
  change: VersionChange,
  freshness: ReadonlyMap<string, KnowledgeFreshness> | undefined,
  tracedAt: number,
): boolean {
  const lookup = freshness?.get(change.knowledge_id);
  const indexed = lookup?.indexed;
  return indexed != null && indexed.version === change.baseline_version && !indexedAfterTrace(lookup, tracedAt);
}
