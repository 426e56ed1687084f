import type { SnapshotRecord } from './snapshot-record.ts';

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

/** A way back the effector keeps for a while: a snapshot archive, or a retired collection behind an alias. */
export interface RestorePoint {
  id: string;
  createdAt: number;
}

/** The restore points of one collection (or alias) that the policy lets go, oldest first. */
export function restorePointsToPrune<T extends RestorePoint>(
  points: readonly T[],
  policy: SnapshotRetentionPolicy,
  now: number,
  protectedIds: ReadonlySet<string>,
): T[] {
  const newestFirst = [...points].sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id));
  return newestFirst
    .filter((p, rank) => rank >= policy.keepLast && now - p.createdAt > policy.keepWithinDays * DAY_MS && !protectedIds.has(p.id))
    .reverse();
}

/** The recorded snapshots of one collection that the policy lets go, oldest first. */
export function snapshotsToPrune(
  records: readonly SnapshotRecord[],
  policy: SnapshotRetentionPolicy,
  now: number,
  protectedIds: ReadonlySet<string>,
): SnapshotRecord[] {
  const live = records
    .filter((r) => r.status !== 'deleted')
    .map((record) => ({ id: record.snapshot_id, createdAt: Date.parse(record.created_at), record }));
  return restorePointsToPrune(live, policy, now, protectedIds).map((p) => p.record);
}
