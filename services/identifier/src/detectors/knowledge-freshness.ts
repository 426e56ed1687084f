import type { KnowledgeFreshness } from '@rag-immune/rag-contract';
import type { VersionChange } from '../trace-diff/trace-diff.ts';

/**
 * Whether the online index holds the very version the baseline answered from, although online
 * retrieval brought an older one: then the "older version" in the trace is not staleness (the newer
 * chunk is there) but a chunk retrieval cannot find, i.e. damage to its vector. Unknown (false)
 * without the RAG's freshness lookup.
 */
export function newerVersionIndexed(change: VersionChange, freshness: ReadonlyMap<string, KnowledgeFreshness> | undefined): boolean {
  const indexed = freshness?.get(change.knowledge_id)?.indexed;
  return indexed != null && indexed.version === change.baseline_version;
}
