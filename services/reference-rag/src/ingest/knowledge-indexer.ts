import type { Logger } from 'pino';
import type { DocumentParser, ParserDefect } from '../chunking/document-parser.ts';
import { pointIdOf, type KnowledgeChunk } from '../chunking/knowledge-chunk.ts';
import type { Embedder } from '../embedding/embedder.ts';
import type { KnowledgeSource } from '../knowledge/knowledge-source.ts';
import { toPayload, type VectorIndex } from '../index/vector-index.ts';

export interface SyncOptions {
  /** Only these knowledge ids (default: all). */
  knowledgeIds?: ReadonlySet<string>;
  /** Re-embed and rewrite chunks changed (updated or valid) since this time, even if they look unchanged. */
  since?: Date;
  /** Re-embed and rewrite every chunk in scope (repairs vectors whose payload looks fine). */
  force?: boolean;
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
    const inScope = (knowledgeId: string): boolean => options.knowledgeIds === undefined || options.knowledgeIds.has(knowledgeId);
    const wanted = this.chunksPublishedBy(publishedBy).filter((chunk) => inScope(chunk.knowledgeId));
    const existing = new Map(
      (
        await this.index.scroll(
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
      return current === undefined || JSON.stringify(current) !== JSON.stringify(toPayload(chunk));
    });
    const wantedIds = new Set(wanted.map((chunk) => pointIdOf(chunk.chunkId)));
    const stale = [...existing.keys()].filter((id) => !wantedIds.has(id));

    const t0 = performance.now();
    const vectors = await this.embedder.embed(changed.map((chunk) => chunk.text));
    const t1 = performance.now();
    await this.index.upsert(changed, vectors);
    await this.index.deletePoints(stale);
    const t2 = performance.now();
    const result = {
      upserted: changed.length,
      deleted: stale.length,
      unchanged: wanted.length - changed.length,
      chunks: wanted.length,
      embedMs: t1 - t0,
      writeMs: t2 - t1,
    };
    this.logger.info({ ...result, publishedBy: publishedBy.toISOString(), scoped: options.knowledgeIds?.size }, 'knowledge synced');
    return result;
  }
}
