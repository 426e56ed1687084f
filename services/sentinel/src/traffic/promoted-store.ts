/**
 * Where the promoted replay probes outlive the sentinel process: `<prefix>-sentinel-promoted-replays`
 * in the Elasticsearch the watcher already reads. The identifier closes an incident only on clean
 * results of every probe in it, and only the sentinel re-runs a promoted one, so a restart (a deploy,
 * a crash) that forgot them left a traffic incident open until a later fault superseded it, and that
 * later fault was grouped into it meanwhile (traffic bench 2026-12-07: a generator fault joined a
 * still-open escalated incident after the sentinel restarted, and the trial never healed).
 *
 * A document holds the probe's segment, its (already redacted) user query and when it was promoted;
 * it is deleted when the probe expires, and one older than the TTL is deleted on load.
 */
import type { Client } from '@elastic/elasticsearch';

export interface StoredPromotion {
  probe_id: string;
  segment: string;
  /** The user's query as the intake stored it: redacted. */
  query: string;
  promoted_at: number;
}

export interface PromotedStore {
  put(entry: StoredPromotion): Promise<void>;
  remove(probeId: string): Promise<void>;
  /** The promotions younger than `ttlMs`; older ones are deleted. */
  load(now: number, ttlMs: number): Promise<StoredPromotion[]>;
}

export const promotedReplaysIndex = (prefix: string) => `${prefix}-sentinel-promoted-replays`;

const MAPPINGS = {
  dynamic: 'strict' as const,
  properties: {
    probe_id: { type: 'keyword' as const },
    segment: { type: 'keyword' as const, index: false },
    // A user's words: stored to be replayed, never searched.
    query: { type: 'keyword' as const, index: false, doc_values: false },
    promoted_at: { type: 'date' as const, format: 'epoch_millis' },
  },
};

export class EsPromotedStore implements PromotedStore {
  private created: Promise<void> | undefined;

  constructor(
    private readonly es: Client,
    private readonly index: string,
    /** Promotions kept at most: the watcher's own cap. */
    private readonly maxEntries: number,
  ) {}

  async put(entry: StoredPromotion): Promise<void> {
    await this.ensureIndex();
    await this.es.index({ index: this.index, id: entry.probe_id, document: entry });
  }

  async remove(probeId: string): Promise<void> {
    await this.es.delete({ index: this.index, id: probeId }, { ignore: [404] });
  }

  async load(now: number, ttlMs: number): Promise<StoredPromotion[]> {
    const exists = await this.es.indices.exists({ index: this.index });
    if (!exists) return [];
    // By id, not _delete_by_query: that lives in the reindex module, which a slim install may leave out.
    const old = await this.es.search({
      index: this.index,
      size: 1000,
      _source: false,
      query: { range: { promoted_at: { lt: now - ttlMs } } },
    });
    if (old.hits.hits.length > 0)
      await this.es.bulk({ refresh: true, operations: old.hits.hits.map((hit) => ({ delete: { _index: this.index, _id: hit._id! } })) });
    const response = await this.es.search<StoredPromotion>({
      index: this.index,
      size: this.maxEntries,
      sort: [{ promoted_at: 'asc' }],
      query: { range: { promoted_at: { gte: now - ttlMs } } },
    });
    return response.hits.hits.flatMap((hit) => (hit._source === undefined ? [] : [hit._source]));
  }

  private ensureIndex(): Promise<void> {
    this.created ??= this.es.indices
      .create({ index: this.index, mappings: MAPPINGS, settings: { number_of_replicas: 0 } }, { ignore: [400] })
      .then(() => undefined)
      .catch((error: unknown) => {
        this.created = undefined;
        throw error;
      });
    return this.created;
  }
}
