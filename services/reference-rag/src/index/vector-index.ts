import type { QdrantClient } from '@qdrant/js-client-rest';
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

/**
 * One Qdrant collection of chunk vectors for one RAG instance. Only calls real Qdrant serves with
 * the same meaning are used (create, payload index, upsert, query with filter, scroll, delete).
 */
export class VectorIndex {
  constructor(
    private readonly client: QdrantClient,
    readonly collection: string,
    readonly dimension: number,
  ) {}

  async ensureCollection(): Promise<void> {
    const { exists } = await this.client.collectionExists(this.collection);
    if (!exists) await this.client.createCollection(this.collection, { vectors: { size: this.dimension, distance: 'Cosine' } });
    for (const [field, schema] of PAYLOAD_INDEXES) {
      await this.client.createPayloadIndex(this.collection, { field_name: field, field_schema: schema, wait: true });
    }
  }

  async drop(): Promise<void> {
    await this.client.deleteCollection(this.collection);
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
