import type { Client } from '@elastic/elasticsearch';
import { posix } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { QdrantClient } from '@qdrant/js-client-rest';
import type { QdrantConnection } from '@rag-immune/worker-runtime';
import { recoverByUpload } from './snapshot-upload.ts';
import { date, ensureIndex, int, isNotFound, kw } from '../state/es.ts';
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
 * Collection snapshots through Qdrant's snapshot API (@qdrant/js-client-rest), each recorded in
 * Elasticsearch with the collection, its point count, the checksum and the incident and action it
 * protects; restore recovers the collection from one, checking the checksum.
 */
export interface SnapshotRecovery {
  /** Where the collection's Qdrant is and the key it wants (an upload recovery calls it directly). */
  connection: QdrantConnection;
  /**
   * The server's snapshots directory as the server sees it: recover by a `file://` URL inside it
   * (Qdrant accepts no other local path). Without it the snapshot is downloaded and uploaded back.
   */
  serverSnapshotsPath?: string;
}

export class SnapshotStore {
  constructor(
    private readonly qdrant: QdrantClient,
    private readonly es: Client,
    readonly index: string,
    private readonly recovery: SnapshotRecovery,
  ) {}

  /** How restores reach the server: `file` (a location inside its snapshots directory) or `upload`. */
  get recoveryMode(): 'file' | 'upload' {
    return this.recovery.serverSnapshotsPath ? 'file' : 'upload';
  }

  init(): Promise<void> {
    return ensureIndex(this.es, this.index, {
      snapshot_id: kw,
      collection: kw,
      incident_id: kw,
      action_id: kw,
      status: kw,
      created_at: date,
      points_count: int,
    });
  }

  /**
   * The physical collection behind a name: Qdrant snapshots an alias's target and files the archive
   * under the target's name, so records (and file:// recovery) must name the target.
   */
  async physical(collection: string): Promise<string> {
    const { aliases } = await this.qdrant.getAliases();
    return aliases.find((a) => a.alias_name === collection)?.collection_name ?? collection;
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
      const newest = (await this.qdrant.listSnapshots(collection)).map((d) => Date.parse(`${d.creation_time ?? ''}Z`));
      const wait = Math.max(0, ...newest.filter(Number.isFinite).map((t) => t + 1000 - Date.now()));
      if (wait > 0) await sleep(Math.min(wait, 2000));
      points = (await this.qdrant.count(collection, { exact: true })).count;
      description = await this.qdrant.createSnapshot(collection, { wait: true });
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
    await this.es.index({ index: this.index, id: `${collection}/${record.snapshot_id}`, document: record, refresh: true });
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
      if (this.recovery.serverSnapshotsPath) {
        const location = pathToFileURL(posix.join(this.recovery.serverSnapshotsPath, record.collection, record.snapshot_id)).href;
        await this.qdrant.recoverSnapshot(record.collection, { location, checksum: record.checksum, priority: 'snapshot' });
      } else {
        await recoverByUpload(this.recovery.connection, record.collection, record.snapshot_id, record.checksum);
      }
      points = (await this.qdrant.count(record.collection, { exact: true })).count;
    } catch (error) {
      throw new SnapshotError('restore', `restore of ${record.collection} from ${record.snapshot_id} failed: ${describe(error)}`, error);
    }
    if (points !== record.points_count)
      throw new SnapshotError(
        'restore',
        `restored ${record.collection} holds ${points} points, the snapshot recorded ${record.points_count}`,
      );
    await this.es.update({
      index: this.index,
      id: `${record.collection}/${record.snapshot_id}`,
      doc: { status: 'restored', restored_at: new Date().toISOString() },
      refresh: true,
    });
    return { duration_ms: Math.round(performance.now() - started), points_count: points };
  }

  async get(snapshotId: string): Promise<SnapshotRecord | null> {
    const r = await this.es.search<SnapshotRecord>({
      index: this.index,
      query: { term: { snapshot_id: snapshotId } },
      size: 1,
      ignore_unavailable: true,
    });
    return r.hits.hits[0]?._source ?? null;
  }

  /** Newest first, at most 500; `live` leaves out the deleted ones. */
  async list(filter: { collection?: string; incident?: string; live?: boolean } = {}): Promise<SnapshotRecord[]> {
    const must: object[] = [];
    // Qdrant down: the records still list, by the name given.
    if (filter.collection) must.push({ term: { collection: await this.physical(filter.collection).catch(() => filter.collection) } });
    if (filter.incident) must.push({ term: { incident_id: filter.incident } });
    const mustNot = filter.live ? [{ term: { status: 'deleted' } }] : [];
    const r = await this.es.search<SnapshotRecord>({
      index: this.index,
      query: must.length || mustNot.length ? { bool: { must, must_not: mustNot } } : { match_all: {} },
      size: 500,
      sort: [{ created_at: 'desc' }],
      ignore_unavailable: true,
    });
    return r.hits.hits.map((h) => h._source as SnapshotRecord);
  }

  /** Deletes the archive in Qdrant and marks the record (tests and retention). */
  async delete(record: SnapshotRecord): Promise<void> {
    try {
      await this.qdrant.deleteSnapshot(record.collection, record.snapshot_id);
    } catch (error) {
      if (!isNotFound(error) && (error as { status?: number }).status !== 404) throw error;
    }
    await this.es.update({
      index: this.index,
      id: `${record.collection}/${record.snapshot_id}`,
      doc: { status: 'deleted', deleted_at: new Date().toISOString() },
      refresh: true,
    });
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
