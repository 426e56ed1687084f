/**
 * The points of named knowledge in a Qdrant collection, read and written in place: what an in-place
 * restore from a known-good collection needs when the RAG reads its collection by name (no alias to
 * switch). A point belongs to a knowledge id by either payload layout: the reference layout's
 * top-level `knowledge_id`, or LangChain's (Flowise's) `metadata.knowledge_id` beside `content`.
 */
import type { QdrantClient } from '@qdrant/js-client-rest';

export type PointId = string | number;

/** One point as stored: its id, its vector(s) as Qdrant returns them, its payload. */
export interface StoredPoint {
  id: PointId;
  vector: unknown;
  payload: Record<string, unknown>;
}

/** What the in-place restore reads and writes: scoped by knowledge id, never the whole collection. */
export interface KnowledgePointsPort {
  /** Every point of these knowledge ids in `collection` (vectors only when asked), at most `limit` + 1 (so the caller sees it overflowed). */
  ofKnowledge(
    collection: string,
    knowledgeIds: readonly string[],
    options: { withVectors: boolean; limit: number },
  ): Promise<StoredPoint[]>;
  /** Writes the points with their ids, vectors and payloads as given (Qdrant upsert: the same id is overwritten). */
  upsert(collection: string, points: readonly StoredPoint[], signal?: AbortSignal): Promise<void>;
  /** Deletes the points of these ids. */
  delete(collection: string, ids: readonly PointId[]): Promise<void>;
}

/** Either layout's knowledge id: a point matching one of them belongs to the knowledge. */
export function knowledgeFilter(knowledgeIds: readonly string[]) {
  const any = [...knowledgeIds];
  return {
    should: [
      { key: 'knowledge_id', match: { any } },
      { key: 'metadata.knowledge_id', match: { any } },
    ],
  };
}

const PAGE = 256;

export class KnowledgePoints implements KnowledgePointsPort {
  constructor(private readonly qdrant: QdrantClient) {}

  async ofKnowledge(
    collection: string,
    knowledgeIds: readonly string[],
    options: { withVectors: boolean; limit: number },
  ): Promise<StoredPoint[]> {
    const points: StoredPoint[] = [];
    let offset: PointId | null | undefined = undefined;
    do {
      const page = await this.qdrant.scroll(collection, {
        filter: knowledgeFilter(knowledgeIds),
        limit: Math.min(PAGE, options.limit + 1 - points.length),
        with_payload: true,
        with_vector: options.withVectors,
        ...(offset != null ? { offset } : {}),
      });
      for (const p of page.points) points.push({ id: p.id, vector: p.vector ?? null, payload: p.payload ?? {} });
      offset = page.next_page_offset as PointId | null | undefined;
    } while (offset != null && points.length <= options.limit);
    return points;
  }

  async upsert(collection: string, points: readonly StoredPoint[], signal?: AbortSignal): Promise<void> {
    for (let i = 0; i < points.length; i += PAGE) {
      signal?.throwIfAborted();
      await this.qdrant.upsert(collection, {
        wait: true,
        points: points.slice(i, i + PAGE).map((p) => ({ id: p.id, vector: p.vector as never, payload: p.payload })),
      });
    }
  }

  async delete(collection: string, ids: readonly PointId[]): Promise<void> {
    if (ids.length > 0) await this.qdrant.delete(collection, { wait: true, points: [...ids] });
  }
}
