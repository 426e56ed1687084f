/**
 * The platform team's ingestion job for a product RAG: the project's fixed Debian corpus, one point per
 * record version, written into a Qdrant collection in the layout LangChain's QdrantVectorStore (and so
 * Flowise's Qdrant node and a LangServe app) reads: `content` (the text) and `metadata` (the versioned
 * fields a loader's "Additional Metadata" would add). Vectors come from the project's embedder, the
 * same model the product's OpenAI-compatible embeddings endpoint serves (./embeddings-server.ts).
 */
import { randomUUID } from 'node:crypto';
import type { QdrantClient } from '@qdrant/js-client-rest';
import type { Document } from '@langchain/core/documents';

export interface Embedder {
  readonly dimension: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** Flowise's Qdrant node defaults (contentPayloadKey, metadataPayloadKey). */
export const CONTENT_KEY = 'content';
export const METADATA_KEY = 'metadata';

/** Creates `collection` (cosine, the embedder's dimension) and writes every document; returns the count. */
export async function loadKnowledge(
  qdrant: QdrantClient,
  collection: string,
  documents: readonly Document[],
  embedder: Embedder,
): Promise<number> {
  await qdrant.createCollection(collection, { vectors: { size: embedder.dimension, distance: 'Cosine' } });
  return writeDocuments(qdrant, collection, documents, embedder);
}

/**
 * Puts the collection back to exactly `documents` without dropping it: every point deleted, then the
 * documents written again. Not delete-and-create: Flowise's Qdrant node creates a collection it finds
 * missing (LangChain's ensureCollection) when a question arrives in between, and the create would fail.
 */
export async function reloadKnowledge(
  qdrant: QdrantClient,
  collection: string,
  documents: readonly Document[],
  embedder: Embedder,
): Promise<number> {
  if (!(await qdrant.collectionExists(collection)).exists) return loadKnowledge(qdrant, collection, documents, embedder);
  for (;;) {
    const page = await qdrant.scroll(collection, { limit: 1000, with_payload: false, with_vector: false });
    if (page.points.length === 0) break;
    await qdrant.delete(collection, { wait: true, points: page.points.map((p) => p.id) });
  }
  return writeDocuments(qdrant, collection, documents, embedder);
}

async function writeDocuments(
  qdrant: QdrantClient,
  collection: string,
  documents: readonly Document[],
  embedder: Embedder,
): Promise<number> {
  const batch = 64;
  for (let start = 0; start < documents.length; start += batch) {
    const slice = documents.slice(start, start + batch);
    const vectors = await embedder.embed(slice.map((d) => d.pageContent));
    await qdrant.upsert(collection, {
      wait: true,
      points: slice.map((doc, i) => ({
        id: randomUUID(),
        vector: Array.from(vectors[i]!),
        payload: { [CONTENT_KEY]: doc.pageContent, [METADATA_KEY]: doc.metadata },
      })),
    });
  }
  const { count } = await qdrant.count(collection, { exact: true });
  if (count !== documents.length) throw new Error(`${collection}: ${count} points written, ${documents.length} expected`);
  return count;
}
