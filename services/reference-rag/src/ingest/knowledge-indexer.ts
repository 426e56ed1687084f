import type { Logger } from 'pino';
import type { DocumentParser, ParserDefect } from '../chunking/document-parser.ts';
import { pointIdOf, type KnowledgeChunk } from '../chunking/knowledge-chunk.ts';
import type { Embedder } from '../embedding/embedder.ts';
import type { KnowledgeFreshness } from '@rag-immune/rag-contract';
import type { KnowledgeSource } from '@rag-immune/debian-knowledge';
import { toPayload, type VectorIndex } from '../index/vector-index.ts';

export interface SyncOptions {
  /** Only these knowledge ids (default: all). */
  knowledgeIds?: ReadonlySet<string>;
  /** Re-embed and rewrite chunks changed (updated or valid) since this time, even if they look unchanged. */
  since?: Date;
  /** Re-embed and rewrite every chunk in scope (repairs vectors whose payload looks fine). */
  force?: boolean;
  /** Write into this index instead of the live one (a blue/green reindex builds a new collection). */
  into?: VectorIndex;
}

export interface SyncResult {
  upserted: number;
  deleted: number;
  unchanged: number;
  chunks: number;
  embedMs: number;
  writeMs: number;
}

/**
 * Keeps the vector index equal to what the knowledge sources publish: parses records into chunks,
 * embeds what changed, upserts it and deletes chunks that no longer exist (a superseded version is
 * rewritten with its new valid_until, not deleted: the as-of filter needs history).
 */
/** The parser build that chunks correctly; a parser-bug fault installs a defective build beside it. */
export const PARSER_VERSION = 'deb822-chunker-1.0';

export class KnowledgeIndexer {
  parserDefect: ParserDefect | undefined;
  /** The parser build in force; a fault is modelled as a new build, so capabilities show the change. */
  parserVersion = PARSER_VERSION;
  private readonly parserBuilds = new Map<string, ParserDefect | undefined>([[PARSER_VERSION, undefined]]);
  /**
   * Knowledge ids held by a dead ingestion lease (the stalled-ingest fault): a routine sync skips
   * them, as a real pipeline whose checkpoint says "done" does; only a forced re-ingest of an id
   * (POST /repair/reindex) rewrites it and releases its lease.
   */
  private readonly stalled = new Set<string>();

  /** Holds these ids out of routine syncs (the fault); `release` undoes it. */
  stallIngest(knowledgeIds: Iterable<string>): void {
    for (const id of knowledgeIds) this.stalled.add(id);
  }

  releaseIngest(knowledgeIds: Iterable<string>): void {
    for (const id of knowledgeIds) this.stalled.delete(id);
  }

  get parserVersions(): string[] {
    return [...this.parserBuilds.keys()];
  }

  /** Registers a parser build (the fault injector's defective one) and switches to it. */
  installParser(version: string, defect: ParserDefect | undefined): void {
    this.parserBuilds.set(version, defect);
    this.useParser(version);
  }

  /** Switches to a registered parser build; chunks already indexed change only when re-synced. */
  useParser(version: string): void {
    if (!this.parserBuilds.has(version)) throw new Error(`unknown parser version ${version} (have ${this.parserVersions.join(', ')})`);
    this.parserVersion = version;
    this.parserDefect = this.parserBuilds.get(version);
  }

  constructor(
    private readonly index: VectorIndex,
    private readonly embedder: Embedder,
    private readonly parser: DocumentParser,
    readonly sources: KnowledgeSource[],
    private readonly logger: Logger,
  ) {}

  /** The chunks the parser makes of the sources as published by `publishedBy`. */
  chunksPublishedBy(publishedBy: Date): KnowledgeChunk[] {
    return this.parser.parse(
      this.sources.flatMap((source) => source.recordsPublishedBy(publishedBy)),
      this.parserDefect,
    );
  }

  async sync(publishedBy: Date, options: SyncOptions = {}): Promise<SyncResult> {
    const index = options.into ?? this.index;
    const held = (knowledgeId: string): boolean => !options.force && this.stalled.has(knowledgeId);
    const inScope = (knowledgeId: string): boolean =>
      (options.knowledgeIds === undefined || options.knowledgeIds.has(knowledgeId)) && !held(knowledgeId);
    const wanted = this.chunksPublishedBy(publishedBy).filter((chunk) => inScope(chunk.knowledgeId));
    const existing = new Map(
      (
        await index.scroll(
          options.knowledgeIds === undefined ? undefined : { must: [{ key: 'knowledge_id', match: { any: [...options.knowledgeIds] } }] },
        )
      )
        .filter((point) => inScope(point.payload.knowledge_id))
        .map((point) => [point.pointId, point.payload]),
    );
    const since = options.since?.getTime();
    const changed = wanted.filter((chunk) => {
      if (options.force) return true;
      if (since !== undefined && (chunk.updatedAt.getTime() >= since || chunk.validFrom.getTime() >= since)) return true;
      const current = existing.get(pointIdOf(chunk.chunkId));
      if (current === undefined) return true;
      const { indexed_at: _written, ...metadata } = current;
      return JSON.stringify(metadata) !== JSON.stringify(toPayload(chunk));
    });
    const wantedIds = new Set(wanted.map((chunk) => pointIdOf(chunk.chunkId)));
    const stale = [...existing.keys()].filter((id) => !wantedIds.has(id));

    const t0 = performance.now();
    const vectors = await this.embedder.embed(changed.map((chunk) => chunk.text));
    const t1 = performance.now();
    await index.upsert(changed, vectors);
    await index.deletePoints(stale);
    const t2 = performance.now();
    const result = {
      upserted: changed.length,
      deleted: stale.length,
      unchanged: wanted.length - changed.length,
      chunks: wanted.length,
      embedMs: t1 - t0,
      writeMs: t2 - t1,
    };
    if (options.force) this.releaseIngest(options.knowledgeIds ?? [...this.stalled]);
    this.logger.info(
      { ...result, publishedBy: publishedBy.toISOString(), scoped: options.knowledgeIds?.size, collection: index.collection },
      'knowledge synced',
    );
    return result;
  }

  /**
   * The freshness of one knowledge id at knowledge time `asOf`: the newest version its source's
   * active feed publishes beside the newest version the index holds. Null when neither knows the id.
   */
  async freshness(knowledgeId: string, asOf: Date): Promise<KnowledgeFreshness | null> {
    const owner = this.sources.find((source) => source.recordsPublishedBy(asOf).some((record) => record.knowledgeId === knowledgeId));
    const newest = <T extends { validFrom: number; version: string }>(items: T[]): T | undefined =>
      items.reduce<T | undefined>((best, item) => (best === undefined || item.validFrom > best.validFrom ? item : best), undefined);
    const fed = newest(
      (owner?.recordsPublishedBy(asOf) ?? [])
        .filter((record) => record.knowledgeId === knowledgeId)
        .map((record) => ({ version: record.version, validFrom: record.validFrom.getTime() })),
    );
    const points = (await this.index.scroll({ must: [{ key: 'knowledge_id', match: { value: knowledgeId } }] })).filter(
      (point) => point.payload.knowledge_id === knowledgeId,
    );
    const held = newest(
      points.map((point) => ({
        version: point.payload.version,
        validFrom: Date.parse(point.payload.valid_from),
        source: point.payload.source,
      })),
    );
    // The held version is whole from the latest write of its chunks (unknown if any point lacks the stamp).
    const writes = points
      .filter((point) => point.payload.version === held?.version)
      .map((point) => (point.payload.indexed_at === undefined ? Number.NaN : Date.parse(point.payload.indexed_at)));
    const indexedAt = writes.length > 0 && writes.every(Number.isFinite) ? new Date(Math.max(...writes)).toISOString() : undefined;
    if (fed === undefined && held === undefined) return null;
    const ref = (v: { version: string; validFrom: number } | undefined) =>
      v === undefined ? null : { version: v.version, valid_from: new Date(v.validFrom).toISOString() };
    const source = owner ?? this.sources.find((candidate) => candidate.name === held?.source);
    return {
      knowledge_id: knowledgeId,
      source: source?.name ?? null,
      feed_provider: source?.activeProvider ?? null,
      as_of: asOf.toISOString(),
      feed: ref(fed),
      indexed: held === undefined ? null : { ...ref(held)!, ...(indexedAt === undefined ? {} : { indexed_at: indexedAt }) },
    };
  }
}
