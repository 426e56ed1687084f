import { setTimeout as sleep } from 'node:timers/promises';
import { date, integer, keyword, type DocumentStore, type DocumentStores } from '@rag-immune/es-store';
import { EFFECTOR_INDEX_SETTINGS } from '../config.ts';
import type { SnapshotArchive } from './qdrant-archive.ts';
import { deletedSnapshot, type SnapshotRecord } from './snapshot-record.ts';
import { snapshotsToPrune, type SnapshotRetentionPolicy } from './snapshot-retention.ts';

/** A Qdrant snapshot file name (`<collection>-<shard>-<time>.snapshot`); anything else never reaches a URL. */
export const SNAPSHOT_NAME = /^[\w.-]+\.snapshot$/;

/** Qdrant could not snapshot (or restore) the collection: the action does not run (or is left for a human). */
export class SnapshotError extends Error {
  constructor(
    readonly operation: 'create' | 'restore',
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'SnapshotError';
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const data = (error as { data?: { status?: { error?: string } } }).data;
    return (
      data?.status?.error ??
      `${error.message}${(error as { cause?: Error }).cause ? `: ${(error as { cause?: Error }).cause?.message}` : ''}`
    );
  }
  return String(error);
}

/**
 * Collection snapshots: the archives in Qdrant (SnapshotArchive, qdrant-archive.ts), each recorded
 * in Elasticsearch with the collection, its point count, the checksum and the incident and action it
 * protects; restore recovers the collection from one, checking the checksum and the point count.
 */
export class SnapshotStore {
  private readonly docs: DocumentStore<SnapshotRecord>;

  constructor(
    private readonly archive: SnapshotArchive,
    stores: DocumentStores,
    index: string,
  ) {
    this.docs = stores.open<SnapshotRecord>({
      name: index,
      refresh: true,
      settings: EFFECTOR_INDEX_SETTINGS,
      mappings: {
        dynamic: false,
        properties: {
          snapshot_id: keyword,
          collection: keyword,
          incident_id: keyword,
          action_id: keyword,
          status: keyword,
          created_at: date,
          points_count: integer,
        },
      },
    });
  }

  get index(): string {
    return this.docs.index;
  }

  /** How restores reach the server: `file` (a location inside its snapshots directory) or `upload`. */
  get recoveryMode(): 'file' | 'upload' {
    return this.archive.recoveryMode;
  }

  init(): Promise<void> {
    return this.docs.ensureIndex();
  }

  /**
   * The physical collection behind a name: Qdrant snapshots an alias's target and files the archive
   * under the target's name, so records (and file:// recovery) must name the target.
   */
  physical(collection: string): Promise<string> {
    return this.archive.physical(collection);
  }

  async create(name: string, incidentId: string | null, actionId: string | null): Promise<SnapshotRecord> {
    const started = performance.now();
    let points: number;
    let collection = name;
    let description: { name: string; checksum?: string | null; size?: number | null } | null;
    try {
      collection = await this.physical(name);
      // Qdrant names an archive by its collection and the second it was taken: a second snapshot in
      // the same second silently replaces the first under the same name (seen on 1.18.3), and the
      // first repair's way back would be the second one's. Never two in one second from here.
      const newest = await this.archive.takenAt(collection);
      const wait = Math.max(0, ...newest.filter(Number.isFinite).map((t) => t + 1000 - Date.now()));
      if (wait > 0) await sleep(Math.min(wait, 2000));
      points = await this.archive.pointCount(collection);
      description = await this.archive.take(collection);
    } catch (error) {
      throw new SnapshotError('create', `snapshot of ${collection} failed: ${describe(error)}`, error);
    }
    if (description === null) throw new SnapshotError('create', `snapshot of ${collection} returned no description`);
    // Another replica in the same second: its record's archive is this one now. Say so, never restore it.
    const clash = await this.get(description.name);
    if (clash !== null && clash.status !== 'deleted' && clash.action_id !== actionId)
      throw new SnapshotError(
        'create',
        `snapshot ${description.name} replaced the archive of action ${clash.action_id ?? 'unknown'} (taken the same second): retry`,
      );
    const record: SnapshotRecord = {
      snapshot_id: description.name,
      collection,
      points_count: points,
      checksum: description.checksum ?? null,
      size_bytes: description.size ?? null,
      incident_id: incidentId,
      action_id: actionId,
      created_at: new Date().toISOString(),
      duration_ms: Math.round(performance.now() - started),
      status: 'created',
      restored_at: null,
    };
    await this.docs.put(recordId(record), record);
    return record;
  }

  /** Recovers the collection from the snapshot (checksum checked by Qdrant) and checks the point count. */
  async restore(record: SnapshotRecord): Promise<{ duration_ms: number; points_count: number }> {
    if (record.status === 'deleted') throw new SnapshotError('restore', `${deletedSnapshot(record)}: it cannot be restored`);
    if (!SNAPSHOT_NAME.test(record.snapshot_id) || record.snapshot_id.includes('..'))
      throw new SnapshotError('restore', `snapshot id ${JSON.stringify(record.snapshot_id)} is not a snapshot file name`);
    // Qdrant verifies the archive against it; a record without one cannot prove what it restores.
    if (!record.checksum)
      throw new SnapshotError('restore', `snapshot ${record.snapshot_id} has no recorded checksum: refusing to restore it`);
    const started = performance.now();
    let points: number;
    try {
      await this.archive.recover(record.collection, record.snapshot_id, record.checksum);
      points = await this.archive.pointCount(record.collection);
    } catch (error) {
      throw new SnapshotError('restore', `restore of ${record.collection} from ${record.snapshot_id} failed: ${describe(error)}`, error);
    }
    if (points !== record.points_count)
      throw new SnapshotError(
        'restore',
        `restored ${record.collection} holds ${points} points, the snapshot recorded ${record.points_count}`,
      );
    await this.docs.patch(recordId(record), { status: 'restored', restored_at: new Date().toISOString() });
    return { duration_ms: Math.round(performance.now() - started), points_count: points };
  }

  async get(snapshotId: string): Promise<SnapshotRecord | null> {
    return (await this.docs.find({ where: { snapshot_id: snapshotId }, size: 1 }))[0]?.doc ?? null;
  }

  /** Newest first, at most 500; `live` leaves out the deleted ones. */
  async list(filter: { collection?: string; incident?: string; live?: boolean } = {}): Promise<SnapshotRecord[]> {
    const hits = await this.docs.find({
      where: {
        ...(filter.collection ? { collection: filter.collection } : {}),
        ...(filter.incident ? { incident_id: filter.incident } : {}),
      },
      whereNot: filter.live ? { status: 'deleted' } : {},
      size: 500,
      sort: [{ created_at: 'desc' }],
    });
    return hits.map((h) => h.doc);
  }

  /** Deletes the archive in Qdrant and marks the record (tests and retention). */
  async delete(record: SnapshotRecord): Promise<void> {
    await this.archive.remove(record.collection, record.snapshot_id);
    await this.docs.patch(recordId(record), { status: 'deleted', deleted_at: new Date().toISOString() });
  }

  /**
   * Deletes the snapshots of `collection` that the retention policy lets go (snapshot-retention.ts), except
   * those in `protectedIds` (actions still in flight may need theirs to undo); returns what it deleted.
   */
  async prune(
    collection: string,
    policy: SnapshotRetentionPolicy,
    protectedIds: ReadonlySet<string>,
    now: number = Date.now(),
  ): Promise<SnapshotRecord[]> {
    const doomed = snapshotsToPrune(await this.list({ collection, live: true }), policy, now, protectedIds);
    for (const record of doomed) await this.delete(record);
    return doomed;
  }
}

const recordId = (record: Pick<SnapshotRecord, 'collection' | 'snapshot_id'>) => `${record.collection}/${record.snapshot_id}`;
