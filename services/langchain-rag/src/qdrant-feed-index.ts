/**
 * The feeds' index on Qdrant, as @langchain/qdrant lays points out (`content` and `metadata`
 * payload): what the collection behind the alias holds, and a rewrite of some knowledge ids in that
 * same collection. It writes to the collection the alias points at now, never moving the alias: the
 * effector snapshots that collection before a knowledge_source repair and restores it to undo.
 */
import type { Document } from '@langchain/core/documents';
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import { QdrantVectorStore } from '@langchain/qdrant';
import type { QdrantClient } from '@qdrant/js-client-rest';
import type { FeedIndex, HeldPoint } from './knowledge-feeds.ts';

const PAGE = 256;

export interface QdrantFeedIndexOptions {
  client: QdrantClient;
  embeddings: EmbeddingsInterface;
  /** The collection the alias points at now (AliasReindex.current). */
  collection: () => Promise<string | null>;
}

export class QdrantFeedIndex implements FeedIndex {
  constructor(private readonly options: QdrantFeedIndexOptions) {}

  async held(filter: { source?: string; knowledgeId?: string }): Promise<HeldPoint[]> {
    const collection = await this.live();
    const must = [
      ...(filter.source === undefined ? [] : [{ key: 'metadata.source', match: { value: filter.source } }]),
      ...(filter.knowledgeId === undefined ? [] : [{ key: 'metadata.knowledge_id', match: { value: filter.knowledgeId } }]),
    ];
    const points: HeldPoint[] = [];
    let offset: string | number | undefined;
    do {
      const page = await this.options.client.scroll(collection, {
        filter: { must },
        limit: PAGE,
        with_payload: true,
        with_vector: false,
        ...(offset === undefined ? {} : { offset }),
      });
      for (const point of page.points) {
        const metadata = (point.payload?.metadata ?? {}) as Record<string, unknown>;
        if (typeof metadata.knowledge_id !== 'string' || typeof metadata.chunk_id !== 'string') continue;
        points.push({
          pointId: point.id,
          knowledgeId: metadata.knowledge_id,
          chunkId: metadata.chunk_id,
          version: String(metadata.version),
          validFrom: String(metadata.valid_from),
          source: String(metadata.source),
          ...(typeof metadata.indexed_at === 'string' ? { indexedAt: metadata.indexed_at } : {}),
        });
      }
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
    return points;
  }

  async rewrite(documents: Document[], replaced: readonly (string | number)[]): Promise<void> {
    const collection = await this.live();
    if (documents.length > 0) {
      const store = new QdrantVectorStore(this.options.embeddings, { client: this.options.client, collectionName: collection });
      await store.addDocuments(documents);
    }
    if (replaced.length > 0) await this.options.client.delete(collection, { wait: true, points: [...replaced] });
  }

  private async live(): Promise<string> {
    const collection = await this.options.collection();
    if (collection === null) throw new Error('the alias points at no collection yet: build the index first');
    return collection;
  }
}
