/**
 * The versioned-knowledge metadata every document carries, under the RAG health contract's names:
 * put it on each Document at ingest, and retrieval, traces and the query response keep it.
 */
import type { DocumentInterface } from '@langchain/core/documents';
import { Chunk, Timestamp } from '@rag-immune/rag-contract';
import { z } from 'zod';

export const VersionedMetadata = z.object({
  doc_id: z.string().min(1),
  chunk_id: z.string().min(1),
  knowledge_id: z.string().min(1),
  version: z.string().min(1),
  source: z.string().min(1),
  source_trust: z.number().min(0).max(1),
  updated_at: Timestamp,
  valid_from: Timestamp,
  valid_until: Timestamp.nullable(),
});
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
