import { posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { QdrantClient } from '@qdrant/js-client-rest';
import type { QdrantConnection } from '@rag-immune/worker-runtime';
import { recoverByUpload } from './snapshot-upload.ts';

/** Where collection snapshots are taken, recovered from and deleted: Qdrant in production, a twin in unit tests. */
export interface SnapshotArchive {
  /** `file` (recover by a location inside the server's snapshots directory) or `upload`. */
  readonly recoveryMode: 'file' | 'upload';
  /** The collection an alias points at, or the name itself when it is no alias. */
  physical(collection: string): Promise<string>;
  /** When each archive of the collection was taken (epoch ms; NaN where the server does not say). */
  takenAt(collection: string): Promise<number[]>;
  pointCount(collection: string): Promise<number>;
  /** Takes a full snapshot of the collection and waits for it. */
  take(collection: string): Promise<{ name: string; checksum?: string | null; size?: number | null } | null>;
  /** Recovers the collection from a snapshot, the server checking the archive against `checksum`. */
  recover(collection: string, name: string, checksum: string): Promise<void>;
  /** Deletes the archive; one already gone is no error. */
  remove(collection: string, name: string): Promise<void>;
}

export interface SnapshotRecovery {
  /** Where the collection's Qdrant is and the key it wants (an upload recovery calls it directly). */
  connection: QdrantConnection;
  /**
   * The server's snapshots directory as the server sees it: recover by a `file://` URL inside it
   * (Qdrant accepts no other local path). Without it the snapshot is downloaded and uploaded back.
   */
  serverSnapshotsPath?: string;
}

/** Collection snapshots through Qdrant's snapshot API (@qdrant/js-client-rest). */
export class QdrantSnapshotArchive implements SnapshotArchive {
  constructor(
    private readonly qdrant: QdrantClient,
    private readonly recovery: SnapshotRecovery,
  ) {}

  get recoveryMode(): 'file' | 'upload' {
    return this.recovery.serverSnapshotsPath ? 'file' : 'upload';
  }

  async physical(collection: string): Promise<string> {
    const { aliases } = await this.qdrant.getAliases();
    return aliases.find((a) => a.alias_name === collection)?.collection_name ?? collection;
  }

  async takenAt(collection: string): Promise<number[]> {
    // Qdrant reports creation_time in UTC without a zone.
    return (await this.qdrant.listSnapshots(collection)).map((d) => Date.parse(`${d.creation_time ?? ''}Z`));
  }

  async pointCount(collection: string): Promise<number> {
    return (await this.qdrant.count(collection, { exact: true })).count;
  }

  take(collection: string) {
    return this.qdrant.createSnapshot(collection, { wait: true });
  }

  async recover(collection: string, name: string, checksum: string): Promise<void> {
    if (this.recovery.serverSnapshotsPath) {
      const location = pathToFileURL(posix.join(this.recovery.serverSnapshotsPath, collection, name)).href;
      await this.qdrant.recoverSnapshot(collection, { location, checksum, priority: 'snapshot' });
    } else {
      await recoverByUpload(this.recovery.connection, collection, name, checksum);
    }
  }

  async remove(collection: string, name: string): Promise<void> {
    try {
      await this.qdrant.deleteSnapshot(collection, name);
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
    }
  }
}
