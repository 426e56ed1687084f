import type { SnapshotRecord } from './snapshot-store.ts';

/**
 * How many collection snapshots the effector keeps. Every repair that writes to Qdrant takes a full
 * snapshot of the RAG's collection first; without pruning they fill the Qdrant node's disk, and then the
 * next snapshot fails and no repair can run (no repair without a snapshot). A snapshot is kept while
 * any rule keeps it (restic's keep-last / keep-within): it is one of the newest `keepLast` of its
 * collection, or younger than `keepWithinDays`, or it protects an action still in flight.
 */
export interface SnapshotRetentionPolicy {
  keepLast: number;
  keepWithinDays: number;
}

const DAY_MS = 86_400_000;

/** The recorded snapshots of one collection that the policy lets go, oldest first. */
export function snapshotsToPrune(
  records: readonly SnapshotRecord[],
  policy: SnapshotRetentionPolicy,
  now: number,
  protectedIds: ReadonlySet<string>,
): SnapshotRecord[] {
  const live = records
    .filter((r) => r.status !== 'deleted')
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.snapshot_id.localeCompare(a.snapshot_id));
  return live
    .filter(
      (r, rank) =>
        rank >= policy.keepLast && now - Date.parse(r.created_at) > policy.keepWithinDays * DAY_MS && !protectedIds.has(r.snapshot_id),
    )
    .reverse();
}
