import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Client } from '@elastic/elasticsearch';
import { date, elasticsearchStores, keyword, type DocumentStore } from '@rag-immune/es-store';
import type { Logger } from 'pino';
import { EventClaimedElsewhereError, type ClaimOutcome, type ProcessedEventStore } from './processed-events.ts';

export { EventClaimedElsewhereError };

export interface ElasticsearchProcessedEventStoreOptions {
  /** An @elastic/elasticsearch v8 client. */
  client: Client;
  /** The consumer group whose handled events this store remembers (part of every key). */
  consumerGroup: string;
  /** Index name; default `<indexPrefix>-processed-events` (one index shared by all groups). */
  index?: string;
  /** ES_INDEX_PREFIX; default `rag-immune`. */
  indexPrefix?: string;
  /** How long a handled event is remembered; default 7 days (the probes topic's retention). */
  retentionMs?: number;
  /** How long a replica's claim on an event in progress holds before another replica may take it over; default 5 minutes. */
  leaseMs?: number;
  /** How often expired entries are deleted; default hourly; 0 = never (call purgeExpired yourself). */
  purgeIntervalMs?: number;
  /** This replica's name in claims; default host-pid-random. */
  owner?: string;
  logger?: Logger;
}

/** Thrown while another replica holds a live claim on the event: transient, the subscriber retries. */

interface Entry {
  group: string;
  event_id: string;
  state: 'processing' | 'processed';
  owner: string;
  lease_until: string;
  /** When the entry was last written; retention counts from here. */
  '@timestamp': string;
}

const DAY = 24 * 3600 * 1000;

/**
 * The processed-event store shared by every replica of a consumer group (and by a replica on a new
 * machine): one Elasticsearch document per (group, event_id). A replica claims an event with a
 * create-only write before handling it, so of two replicas that read the same event around a
 * rebalance exactly one handles it; the other sees "processed" (a duplicate) or, while the claim
 * is live, retries. A claim whose replica died expires after the lease and can be taken over with
 * an optimistic-concurrency write. Reads are real-time GETs, not searches, so there is no refresh
 * window. Entries older than the retention window are deleted periodically (search + bulk delete:
 * the local stack's Elasticsearch has no delete-by-query module).
 */
export class ElasticsearchProcessedEventStore implements ProcessedEventStore {
  readonly index: string;
  readonly owner: string;
  private readonly docs: DocumentStore<Entry>;
  private readonly group: string;
  private readonly retentionMs: number;
  private readonly leaseMs: number;
  private purgeTimer: NodeJS.Timeout | undefined;
  private indexReady: Promise<void> | undefined;

  private constructor(private readonly options: ElasticsearchProcessedEventStoreOptions) {
    this.group = options.consumerGroup;
    this.index = options.index ?? `${options.indexPrefix ?? 'rag-immune'}-processed-events`;
    this.docs = elasticsearchStores(options.client).open<Entry>({
      name: this.index,
      settings: { number_of_shards: 1, refresh_interval: '5s' },
      mappings: {
        dynamic: 'strict',
        properties: { group: keyword, event_id: keyword, state: keyword, owner: keyword, lease_until: date, '@timestamp': date },
      },
    });
    this.retentionMs = options.retentionMs ?? 7 * DAY;
    this.leaseMs = options.leaseMs ?? 5 * 60 * 1000;
    this.owner = options.owner ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  }

  /** Creates the index if needed and starts the periodic purge. */
  static async open(options: ElasticsearchProcessedEventStoreOptions): Promise<ElasticsearchProcessedEventStore> {
    const store = ElasticsearchProcessedEventStore.create(options);
    try {
      await store.ensureIndex();
    } catch (error) {
      store.close();
      throw error;
    }
    return store;
  }

  /**
   * Like open, without touching Elasticsearch yet: the index is created on first use and retried
   * on the next call if that fails, so a worker started while Elasticsearch is down still starts
   * (its handler then fails transiently, and the message is retried, until Elasticsearch is back).
   */
  static create(options: ElasticsearchProcessedEventStoreOptions): ElasticsearchProcessedEventStore {
    if (options.consumerGroup === '') throw new Error('ElasticsearchProcessedEventStore: consumerGroup is required');
    const store = new ElasticsearchProcessedEventStore(options);
    const interval = options.purgeIntervalMs ?? 3600 * 1000;
    if (interval > 0) {
      store.purgeTimer = setInterval(() => {
        store
          .purgeExpired()
          .catch((error: unknown) => options.logger?.warn({ err: error }, 'processed-event purge failed; retrying next round'));
      }, interval);
      store.purgeTimer.unref();
    }
    return store;
  }

  private ensureIndex(): Promise<void> {
    this.indexReady ??= this.docs.ensureIndex().catch((error: unknown) => {
      this.indexReady = undefined;
      throw error;
    });
    return this.indexReady;
  }

  /** One document per (group, event_id); hashed when the pair would exceed Elasticsearch's 512-byte id limit. */
  private id(eventId: string): string {
    const id = `${this.group}/${eventId}`;
    return Buffer.byteLength(id) <= 500 ? id : createHash('sha256').update(id).digest('hex');
  }

  private entry(eventId: string, state: Entry['state'], now = Date.now()): Entry {
    return {
      group: this.group,
      event_id: eventId,
      state,
      owner: this.owner,
      lease_until: new Date(now + this.leaseMs).toISOString(),
      '@timestamp': new Date(now).toISOString(),
    };
  }

  private async read(eventId: string): Promise<{ entry: Entry; seqNo: number; primaryTerm: number } | undefined> {
    await this.ensureIndex();
    const found = await this.docs.get(this.id(eventId));
    return found ? { entry: found.doc, seqNo: found.seqNo, primaryTerm: found.primaryTerm } : undefined;
  }

  async has(eventId: string): Promise<boolean> {
    return (await this.read(eventId))?.entry.state === 'processed';
  }

  async claim(eventId: string): Promise<ClaimOutcome> {
    await this.ensureIndex();
    if (await this.docs.create(this.id(eventId), this.entry(eventId, 'processing'))) return 'claimed';
    const current = await this.read(eventId);
    if (current === undefined) return this.claim(eventId); // released in between
    if (current.entry.state === 'processed') return 'processed';
    // A live claim, even this replica's own (the same event on two partitions at once), is in progress.
    const leaseUntil = Date.parse(current.entry.lease_until);
    if (leaseUntil > Date.now()) throw new EventClaimedElsewhereError(eventId, current.entry.owner, leaseUntil);
    // A dead replica's expired claim: take it over unless someone else just did.
    if (await this.docs.replace(this.id(eventId), this.entry(eventId, 'processing'), current)) return 'claimed';
    throw new EventClaimedElsewhereError(eventId, 'another replica');
  }

  async markProcessed(eventId: string): Promise<void> {
    await this.ensureIndex();
    await this.docs.put(this.id(eventId), this.entry(eventId, 'processed'));
  }

  async release(eventId: string): Promise<void> {
    const current = await this.read(eventId);
    if (current === undefined || current.entry.state !== 'processing' || current.entry.owner !== this.owner) return;
    // Deleted only while still our claim: a takeover or a finish since is left alone.
    await this.docs.delete(this.id(eventId), current);
  }

  /** Deletes this group's entries older than the retention window; returns how many. */
  async purgeExpired(now = Date.now()): Promise<number> {
    const cutoff = new Date(now - this.retentionMs).toISOString();
    await this.ensureIndex();
    await this.docs.refresh();
    let deleted = 0;
    for (;;) {
      const page = await this.docs.find({ where: { group: this.group, '@timestamp': { lt: cutoff } }, size: 1000 });
      if (page.length === 0) return deleted;
      await this.docs.deleteMany(
        page.map((hit) => hit.id),
        { refresh: true },
      );
      deleted += page.length;
    }
  }

  /** Stops the purge timer (the client is the caller's). */
  close(): void {
    if (this.purgeTimer !== undefined) clearInterval(this.purgeTimer);
  }
}
