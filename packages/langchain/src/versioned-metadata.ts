/**
 * The versioned-knowledge metadata every document carries, under the RAG health contract's names:
 * put it on each Document at ingest, and retrieval, traces and the query response keep it.
 */
import type { DocumentInterface } from '@langchain/core/documents';
import { Chunk } from '@rag-immune/rag-contract';
import type { z } from 'zod';

// The contract's Chunk without its scores and text: one definition of the metadata's names and
// bounds. `strip`: a LangChain Document's metadata may carry other keys (a loader's `loc`), dropped here.
export const VersionedMetadata = Chunk.pick({
  doc_id: true,
  chunk_id: true,
  knowledge_id: true,
  version: true,
  source: true,
  source_trust: true,
  updated_at: true,
  valid_from: true,
  valid_until: true,
}).strip();
export type VersionedMetadata = z.infer<typeof VersionedMetadata>;

/** The metadata of a document, checked: a document without it cannot be diagnosed, so it is refused at ingest. */
export function versionedMetadataOf(doc: DocumentInterface): VersionedMetadata {
  const parsed = VersionedMetadata.safeParse(doc.metadata);
  if (!parsed.success)
    throw new Error(
      `document ${String(doc.metadata.chunk_id ?? doc.id ?? '?')} lacks the versioned metadata: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** Whether the document's version is valid at `asOf`: valid_from <= asOf < valid_until (null: open). */
export function validAt(metadata: Pick<VersionedMetadata, 'valid_from' | 'valid_until'>, asOf: Date): boolean {
  const t = asOf.getTime();
  return Date.parse(metadata.valid_from) <= t && (metadata.valid_until === null || t < Date.parse(metadata.valid_until));
}

/** A retrieved document as the contract's Chunk: metadata, scores (set by ImmuneRetriever) and text. */
export function toChunk(doc: DocumentInterface): Chunk {
  const metadata = versionedMetadataOf(doc);
  const retrieval = doc.metadata.retrieval_score;
  const rerank = doc.metadata.rerank_score;
  if (typeof retrieval !== 'number')
    throw new Error(`document ${metadata.chunk_id} has no retrieval_score: retrieve it through ImmuneRetriever`);
  return Chunk.parse({
    ...metadata,
    retrieval_score: retrieval,
    ...(typeof rerank === 'number' ? { rerank_score: rerank } : {}),
    text: doc.pageContent,
  });
}
