import type { QdrantClient } from '@qdrant/js-client-rest';
import { aliasGeneration } from '@rag-immune/rag-contract';
import { pointIdOf, type KnowledgeChunk } from '../chunking/knowledge-chunk.ts';

/** The Qdrant payload of a chunk point: the contract's chunk metadata, times as RFC 3339 UTC. */
export interface ChunkPayload {
  chunk_id: string;
  doc_id: string;
  knowledge_id: string;
  version: string;
  source: string;
  source_trust: number;
  updated_at: string;
  valid_from: string;
  valid_until: string | null;
  text: string;
  /** When ingestion last wrote the point (not chunk metadata: it never reaches a trace). Absent on older points. */
  indexed_at?: string;
}

export interface ScoredChunk {
  pointId: string;
  score: number;
  payload: ChunkPayload;
}

/** Payload indexes for the metadata filters (as-of window, knowledge id, source). */
const PAYLOAD_INDEXES: [string, 'keyword' | 'datetime'][] = [
  ['knowledge_id', 'keyword'],
  ['source', 'keyword'],
  ['doc_id', 'keyword'],
  ['valid_from', 'datetime'],
  ['valid_until', 'datetime'],
];

/** Qdrant filter for "valid at T": valid_from <= T and (valid_until > T or valid_until is null). */
export function validAtFilter(asOf: Date, extra: Record<string, unknown>[] = []): Record<string, unknown> {
  const t = asOf.toISOString();
  return {
    must: [
      { key: 'valid_from', range: { lte: t } },
      { should: [{ key: 'valid_until', range: { gt: t } }, { is_null: { key: 'valid_until' } }] },
      ...extra,
    ],
  };
}

export function toPayload(chunk: KnowledgeChunk): ChunkPayload {
  return {
    chunk_id: chunk.chunkId,
    doc_id: chunk.docId,
    knowledge_id: chunk.knowledgeId,
    version: chunk.version,
    source: chunk.source,
    source_trust: chunk.sourceTrust,
    updated_at: chunk.updatedAt.toISOString(),
    valid_from: chunk.validFrom.toISOString(),
    valid_until: chunk.validUntil?.toISOString() ?? null,
    text: chunk.text,
  };
}

/** Where an index's vectors live: the physical collection, and the alias queries go through (if any). */
export interface VectorStoreLayout {
  collection: string;
  alias: string | null;
}

/**
 * One RAG instance's chunk vectors. By default the RAG queries a Qdrant alias (`name`) that points at
 * a physical collection (a generation, `<name>--<time>-<hex>`): a reindex can then be built beside it and switched to in
 * one atomic alias update, and switched back as fast (Qdrant's blue/green). A name that is already a
 * plain collection (or `alias: false`) is used directly, and repairs that rewrite it need a snapshot.
 * Only calls real Qdrant serves with the same meaning are used.
 */
export class VectorIndex {
  private current: VectorStoreLayout;

  constructor(
    private readonly client: QdrantClient,
    /** The name every read and write goes through: the alias, or the collection itself. */
    readonly collection: string,
    readonly dimension: number,
    private readonly options: { alias: boolean } = { alias: true },
  ) {
    this.current = { collection, alias: null };
  }

  /** Creates what is missing: an aliased first generation, or the plain collection; payload indexes either way. */
  async ensureCollection(): Promise<void> {
    const target = await this.aliasTarget();
    if (target !== null) {
      this.current = { collection: target, alias: this.collection };
    } else if ((await this.client.collectionExists(this.collection)).exists || !this.options.alias) {
      if (!(await this.client.collectionExists(this.collection)).exists) await this.createEmpty(this.collection);
      this.current = { collection: this.collection, alias: null };
    } else {
      const first = aliasGeneration(this.collection);
      await this.createEmpty(first);
      await this.client.updateCollectionAliases({ actions: [{ create_alias: { collection_name: first, alias_name: this.collection } }] });
      this.current = { collection: first, alias: this.collection };
    }
    await this.ensurePayloadIndexes(this.current.collection);
  }

  /** Where the vectors are now: re-read, since the effector may have switched the alias since start-up. */
  async layout(): Promise<VectorStoreLayout> {
    if (this.current.alias === null) return this.current;
    const target = await this.aliasTarget();
    if (target !== null) this.current = { collection: target, alias: this.collection };
    return this.current;
  }

  /**
   * An empty collection beside this one, with the same vector parameters and payload indexes, for a
   * blue/green reindex. A leftover of the same name that nothing points at (a retried build) is
   * replaced; the live collection never is.
   */
  async createSibling(name: string): Promise<VectorIndex> {
    const { collection } = await this.layout();
    if (name === this.collection || name === collection) throw new Error(`${name} is the live collection`);
    const aliased = (await this.client.getAliases()).aliases.some((a) => a.collection_name === name);
    if (aliased) throw new Error(`${name} is behind an alias: not a new collection`);
    if ((await this.client.collectionExists(name)).exists) await this.client.deleteCollection(name);
    await this.createEmpty(name);
    await this.ensurePayloadIndexes(name);
    const sibling = new VectorIndex(this.client, name, this.dimension, { alias: false });
    sibling.current = { collection: name, alias: null };
    return sibling;
  }

  /** Deletes the alias, every generation behind it and the plain collection (tests, benchmarks). */
  async drop(): Promise<void> {
    const { collections } = await this.client.getCollections();
    for (const { name } of collections.filter((c) => c.name === this.collection || c.name.startsWith(`${this.collection}--`)))
      await this.client.deleteCollection(name);
  }

  private async aliasTarget(): Promise<string | null> {
    const { aliases } = await this.client.getAliases();
    return aliases.find((a) => a.alias_name === this.collection)?.collection_name ?? null;
  }

  private async createEmpty(name: string): Promise<void> {
    await this.client.createCollection(name, { vectors: { size: this.dimension, distance: 'Cosine' } });
  }

  private async ensurePayloadIndexes(name: string): Promise<void> {
    for (const [field, schema] of PAYLOAD_INDEXES) {
      await this.client.createPayloadIndex(name, { field_name: field, field_schema: schema, wait: true });
    }
  }

  /** Writes chunks with their vectors, stamping each point with the time it was written (`indexed_at`). */
  async upsert(chunks: KnowledgeChunk[], vectors: Float32Array[]): Promise<void> {
    const batch = 256;
    const stamp = new Date().toISOString();
    for (let i = 0; i < chunks.length; i += batch) {
      await this.client.upsert(this.collection, {
        wait: true,
        points: chunks.slice(i, i + batch).map((chunk, j) => ({
          id: pointIdOf(chunk.chunkId),
          vector: Array.from(vectors[i + j]!),
          payload: { ...toPayload(chunk), indexed_at: stamp },
        })),
      });
    }
  }

  /** Writes raw vectors for existing points (used by the corruption fault and its undo). */
  async writeVectors(points: { pointId: string; vector: number[]; payload: ChunkPayload }[]): Promise<void> {
    for (let i = 0; i < points.length; i += 256) {
      await this.client.upsert(this.collection, {
        wait: true,
        points: points.slice(i, i + 256).map((point) => ({ id: point.pointId, vector: point.vector, payload: { ...point.payload } })),
      });
    }
  }

  async deletePoints(pointIds: string[]): Promise<void> {
    for (let i = 0; i < pointIds.length; i += 1000) {
      await this.client.delete(this.collection, { wait: true, points: pointIds.slice(i, i + 1000) });
    }
  }

  async search(vector: Float32Array, asOf: Date, limit: number): Promise<ScoredChunk[]> {
    const result = await this.client.query(this.collection, {
      query: Array.from(vector),
      filter: validAtFilter(asOf),
      limit,
      with_payload: true,
    });
    return result.points.map((point) => ({
      pointId: String(point.id),
      score: point.score,
      payload: point.payload as unknown as ChunkPayload,
    }));
  }

  /** Every point (payload, optionally vectors) matching a filter, paging through scroll. */
  async scroll(
    filter?: Record<string, unknown>,
    withVector = false,
  ): Promise<{ pointId: string; payload: ChunkPayload; vector?: number[] }[]> {
    const out: { pointId: string; payload: ChunkPayload; vector?: number[] }[] = [];
    let offset: string | number | undefined;
    for (;;) {
      const page = await this.client.scroll(this.collection, {
        limit: 512,
        with_payload: true,
        with_vector: withVector,
        ...(filter === undefined ? {} : { filter }),
        ...(offset === undefined ? {} : { offset }),
      });
      for (const point of page.points) {
        const vector = Array.isArray(point.vector) ? (point.vector as number[]) : undefined;
        out.push({ pointId: String(point.id), payload: point.payload as unknown as ChunkPayload, ...(vector ? { vector } : {}) });
      }
      const next = page.next_page_offset;
      if (next === null || next === undefined || typeof next === 'object') break;
      offset = next;
    }
    return out;
  }

  async count(): Promise<number> {
    return (await this.client.count(this.collection, { exact: true })).count;
  }
}
