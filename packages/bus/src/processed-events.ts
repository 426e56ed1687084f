import { appendFile, readFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LRUCache } from 'lru-cache';

/**
 * Remembers which event_ids were handled so a redelivered event (the consumer died after the
 * handler finished but before the offset commit) is not handled twice.
 */
export interface ProcessedEventStore {
  has(eventId: string): Promise<boolean>;
  /** Called after the handler succeeded and before the offset is committed. */
  markProcessed(eventId: string): Promise<void>;
  /**
   * Stores shared by several replicas: atomically claims the event for this replica before its
   * handler runs ('claimed': handle it; 'processed': a duplicate). Throws a (transient) error while
   * another replica's claim is live. Without it the subscriber uses `has`.
   */
  claim?(eventId: string): Promise<ClaimOutcome>;
  /** Gives up this replica's claim after its handler failed, so a redelivery can retry at once. */
  release?(eventId: string): Promise<void>;
}

export type ClaimOutcome = 'claimed' | 'processed';

/** A shared store's claim refused: another replica holds the event (until `leaseUntil`, when known). */
export class EventClaimedElsewhereError extends Error {
  constructor(
    eventId: string,
    owner: string,
    /** When the holder's claim expires, if known: a dead holder's event can be taken over then. */
    readonly leaseUntil?: number,
  ) {
    super(`event ${eventId} is being handled by ${owner}`);
    this.name = 'EventClaimedElsewhereError';
  }
}

/** Per-process memory: catches redeliveries within one process lifetime (rebalances, retries). */
export class InMemoryProcessedEventStore implements ProcessedEventStore {
  private readonly seen: LRUCache<string, true>;

  constructor(capacity: number) {
    this.seen = new LRUCache({ max: capacity });
  }

  async has(eventId: string): Promise<boolean> {
    return this.seen.has(eventId);
  }

  async markProcessed(eventId: string): Promise<void> {
    this.seen.set(eventId, true);
  }
}

/**
 * Durable across restarts of one replica: an append-only file of handled ids, read back on
 * open. Suits a worker with one replica per consumer group; a group of several replicas needs a
 * shared store, since a partition may move to another replica between handling and commit.
 */
export class FileProcessedEventStore implements ProcessedEventStore {
  private readonly memory: InMemoryProcessedEventStore;

  private constructor(
    private readonly path: string,
    capacity: number,
  ) {
    this.memory = new InMemoryProcessedEventStore(capacity);
  }

  static async open(path: string, capacity = 100_000): Promise<FileProcessedEventStore> {
    const store = new FileProcessedEventStore(path, capacity);
    await mkdir(dirname(path), { recursive: true });
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return '';
      throw error;
    });
    for (const id of text.split('\n')) if (id !== '') await store.memory.markProcessed(id);
    return store;
  }

  has(eventId: string): Promise<boolean> {
    return this.memory.has(eventId);
  }

  async markProcessed(eventId: string): Promise<void> {
    // appendFile opens with O_APPEND and closes, so the line is on disk before the offset commit.
    await appendFile(this.path, `${eventId}\n`, { flush: true });
    await this.memory.markProcessed(eventId);
  }
}
