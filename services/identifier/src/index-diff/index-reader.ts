/**
 * The chunks a RAG's Qdrant collection (or alias) holds for some knowledge ids, read by scroll in
 * either payload layout the project meets: the chunk fields at the top with `text` (the reference
 * RAG), or under `metadata` with `content` (@langchain/qdrant, and products built on it).
 */
import type { QdrantClient } from '@qdrant/js-client-rest';
import type { IndexChunk } from './index-diff.ts';

export interface KnowledgeIndexReader {
  chunksOf(knowledgeIds: readonly string[]): Promise<IndexChunk[]>;
  /** The chunk nearest to a vector, whatever its knowledge id (where a chunk went that its knowledge lost). */
  nearest(vector: readonly number[]): Promise<IndexChunk | null>;
  /** The collection read: its name as configured, and the collection it resolves to when an alias (null: not one). */
  readonly collection?: string;
  aliasTarget?(): Promise<string | null>;
}

export interface PayloadLayout {
  /** Where the chunk fields are: the payload itself (undefined) or a nested key, e.g. `metadata`. */
  metadataKey?: string;
  /** The payload key of the chunk text: `text` (default) or e.g. `content`. */
  contentKey?: string;
}

/** A read is bounded: a knowledge id with more chunks than this is a corpus, not a fault's scope. */
export const MAX_POINTS_PER_READ = 2_000;

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export class QdrantIndexReader implements KnowledgeIndexReader {
  constructor(
    private readonly qdrant: QdrantClient,
    readonly collection: string,
    private readonly layout: PayloadLayout = {},
  ) {}

  async chunksOf(knowledgeIds: readonly string[]): Promise<IndexChunk[]> {
    if (knowledgeIds.length === 0) return [];
    const key = this.layout.metadataKey === undefined ? 'knowledge_id' : `${this.layout.metadataKey}.knowledge_id`;
    const out: IndexChunk[] = [];
    let offset: string | number | null | undefined;
    do {
      const page = await this.qdrant.scroll(this.collection, {
        filter: { must: [{ key, match: { any: [...knowledgeIds] } }] },
        limit: 256,
        with_payload: true,
        with_vector: true,
        ...(offset != null ? { offset } : {}),
      });
      for (const point of page.points) out.push(this.chunkOf(String(point.id), point.payload ?? {}, point.vector));
      offset = page.next_page_offset as string | number | null | undefined;
    } while (offset != null && out.length < MAX_POINTS_PER_READ);
    return out;
  }

  async aliasTarget(): Promise<string | null> {
    const { aliases } = await this.qdrant.getAliases();
    return aliases.find((a) => a.alias_name === this.collection)?.collection_name ?? null;
  }

  async nearest(vector: readonly number[]): Promise<IndexChunk | null> {
    const hits = await this.qdrant.search(this.collection, { vector: [...vector], limit: 1, with_payload: true, with_vector: true });
    const hit = hits[0];
    return hit === undefined ? null : this.chunkOf(String(hit.id), hit.payload ?? {}, hit.vector);
  }

  private chunkOf(pointId: string, payload: Record<string, unknown>, vector: unknown): IndexChunk {
    const fields = (this.layout.metadataKey === undefined ? payload : (payload[this.layout.metadataKey] ?? {})) as Record<string, unknown>;
    return {
      point_id: pointId,
      knowledge_id: str(fields.knowledge_id) ?? '',
      doc_id: str(fields.doc_id),
      chunk_id: str(fields.chunk_id),
      version: str(fields.version),
      valid_from: str(fields.valid_from),
      valid_until: str(fields.valid_until),
      text: str(payload[this.layout.contentKey ?? 'text']) ?? '',
      // The unnamed vector; a named-vector collection compares its first vector.
      vector: Array.isArray(vector)
        ? (vector as number[])
        : vector && typeof vector === 'object'
          ? ((Object.values(vector)[0] as number[]) ?? null)
          : null,
    };
  }
}
