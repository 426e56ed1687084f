/**
 * The RAG's knowledge feeds: each Debian knowledge source (@rag-immune/debian-knowledge) has a
 * primary and a backup feed, one of them active; ingestion reads the active feed. The index is kept
 * in step with the active feed by a sync that rewrites only the knowledge ids whose versions differ,
 * in the collection the alias points at (so a snapshot of it, taken by the effector before a
 * knowledge_source repair, is the way back). It also answers the contract's freshness lookup.
 */
import type { Document } from '@langchain/core/documents';
import { HistoryProvider, type KnowledgeProvider, type KnowledgeSource } from '@rag-immune/debian-knowledge';
import type { KnowledgeSourceRepairs, KnowledgeFreshnessLookup } from '@rag-immune/langchain';
import type { KnowledgeFreshness, KnowledgeSourceRequest } from '@rag-immune/rag-contract';
import { knowledgeDocuments } from './knowledge-documents.ts';

/** One point the index holds, by its versioned metadata. */
export interface HeldPoint {
  pointId: string | number;
  knowledgeId: string;
  chunkId: string;
  version: string;
  validFrom: string;
  source: string;
  /** When the index wrote it (absent on points written before the stamp). */
  indexedAt?: string;
}

/** The index side of the feeds: what it holds, and a rewrite of some knowledge ids. */
export interface FeedIndex {
  held(filter: { source?: string; knowledgeId?: string }): Promise<HeldPoint[]>;
  /** Writes `documents`, then deletes `replaced` (the old points): a query in between sees one or the other, never neither. */
  rewrite(documents: Document[], replaced: readonly (string | number)[]): Promise<void>;
}

export interface SyncOutcome {
  upserted: number;
  deleted: number;
  /** The knowledge ids whose versions the index changed. */
  knowledge_ids: number;
}

/**
 * An operator's stale deploy (the test kit's `knowledge-source-failure:stale` for this RAG): the
 * primary feed serves, for `ids` (all when undefined), only what it had published by `servesAsOf`.
 */
export function staleFeed(inner: KnowledgeProvider, servesAsOf: Date, ids?: ReadonlySet<string>): KnowledgeProvider {
  const frozen = new HistoryProvider(inner.recordsPublishedBy(servesAsOf));
  if (ids === undefined) return frozen;
  return {
    recordsPublishedBy: (t) => [
      ...inner.recordsPublishedBy(t).filter((record) => !ids.has(record.knowledgeId)),
      ...frozen.recordsPublishedBy(t).filter((record) => ids.has(record.knowledgeId)),
    ],
  };
}

export interface KnowledgeFeedsOptions {
  sources: readonly KnowledgeSource[];
  index: FeedIndex;
  /** The RAG's knowledge time: now for the online RAG, the pin for the frozen baseline. */
  knowledgeTime: () => Date;
  now?: () => Date;
}

export class KnowledgeFeeds implements KnowledgeSourceRepairs, KnowledgeFreshnessLookup {
  constructor(private readonly options: KnowledgeFeedsOptions) {}

  get names(): string[] {
    return this.options.sources.map((source) => source.name);
  }

  activeFeeds(): Record<string, string> {
    return Object.fromEntries(this.options.sources.map((source) => [source.name, source.activeProvider]));
  }

  /** The knowledge as the active feeds publish it at knowledge time, stamped with the write time: what the index should hold. */
  documents(sources: readonly KnowledgeSource[] = this.options.sources): Document[] {
    const indexedAt = (this.options.now ?? (() => new Date()))().toISOString();
    const documents = knowledgeDocuments(sources, this.options.knowledgeTime());
    for (const doc of documents) doc.metadata.indexed_at = indexedAt;
    return documents;
  }

  /**
   * The knowledge_source repair: switch the source's feed (or keep it, for refresh), then re-sync the
   * index from the active feed. Returns the chunks written and deleted, plus 1 when the feed changed.
   */
  async apply(action: KnowledgeSourceRequest['action'], name: string): Promise<number> {
    const source = this.source(name);
    let switched = 0;
    if (action !== 'refresh') {
      const to = action === 'switch_to_backup' ? 'backup' : 'primary';
      if (to === 'backup' && !source.hasBackup) throw new RangeError(`knowledge source ${name} has no backup feed`);
      switched = source.activeProvider === to ? 0 : 1;
      source.use(to);
    }
    const result = await this.sync([source]);
    return switched + result.upserted + result.deleted;
  }

  /** Re-syncs the index from the active feeds: only the ids whose held chunks differ from the feed's are rewritten. */
  async sync(sources: readonly KnowledgeSource[] = this.options.sources): Promise<SyncOutcome> {
    const total: SyncOutcome = { upserted: 0, deleted: 0, knowledge_ids: 0 };
    for (const source of sources) {
      const wanted = groupBy(this.documents([source]), (doc) => String(doc.metadata.knowledge_id));
      const held = groupBy(await this.options.index.held({ source: source.name }), (point) => point.knowledgeId);
      const changed = [...new Set([...wanted.keys(), ...held.keys()])].filter(
        (id) =>
          !sameSet(
            (wanted.get(id) ?? []).map((doc) => String(doc.metadata.chunk_id)),
            (held.get(id) ?? []).map((point) => point.chunkId),
          ),
      );
      if (changed.length === 0) continue;
      const documents = changed.flatMap((id) => wanted.get(id) ?? []);
      const replaced = changed.flatMap((id) => held.get(id) ?? []).map((point) => point.pointId);
      await this.options.index.rewrite(documents, replaced);
      total.upserted += documents.length;
      total.deleted += replaced.length;
      total.knowledge_ids += changed.length;
    }
    return total;
  }

  /** The freshness of one id at knowledge time: the active feed's newest version beside the index's (null: neither knows it). */
  async freshness(knowledgeId: string): Promise<KnowledgeFreshness | null> {
    const asOf = this.options.knowledgeTime();
    const published = (source: KnowledgeSource) => source.recordsPublishedBy(asOf).filter((record) => record.knowledgeId === knowledgeId);
    const owner = this.options.sources.find((source) => published(source).length > 0);
    const fed = newest((owner ? published(owner) : []).map((r) => ({ version: r.version, validFrom: r.validFrom.getTime() })));
    const points = await this.options.index.held({ knowledgeId });
    const held = newest(points.map((p) => ({ version: p.version, validFrom: Date.parse(p.validFrom), source: p.source })));
    if (fed === undefined && held === undefined) return null;
    // The held version is whole from the latest write of its chunks (unknown if any point lacks the stamp).
    const writes = points.filter((p) => p.version === held?.version).map((p) => (p.indexedAt ? Date.parse(p.indexedAt) : Number.NaN));
    const indexedAt = writes.length > 0 && writes.every(Number.isFinite) ? new Date(Math.max(...writes)).toISOString() : undefined;
    const ref = (v: { version: string; validFrom: number }) => ({ version: v.version, valid_from: new Date(v.validFrom).toISOString() });
    const source = owner ?? this.options.sources.find((candidate) => candidate.name === held?.source);
    return {
      knowledge_id: knowledgeId,
      source: source?.name ?? null,
      feed_provider: source?.activeProvider ?? null,
      as_of: asOf.toISOString(),
      feed: fed === undefined ? null : ref(fed),
      indexed: held === undefined ? null : { ...ref(held), ...(indexedAt === undefined ? {} : { indexed_at: indexedAt }) },
    };
  }

  private source(name: string): KnowledgeSource {
    const source = this.options.sources.find((candidate) => candidate.name === name);
    if (source === undefined) throw new RangeError(`unknown knowledge source ${name}: have ${this.names.join(', ')}`);
    return source;
  }
}

function newest<T extends { validFrom: number }>(items: readonly T[]): T | undefined {
  return items.reduce<T | undefined>((best, item) => (best === undefined || item.validFrom > best.validFrom ? item : best), undefined);
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  return left.size === new Set(b).size && b.every((item) => left.has(item));
}
