/**
 * The versioned Debian knowledge as LangChain Documents: one per record version, its text as the
 * reference RAG renders it, and the health contract's versioned metadata on each.
 */
import { Document } from '@langchain/core/documents';
import { renderRecord, type KnowledgeSource } from '@rag-immune/debian-knowledge';

/** The knowledge as published by `publishedBy` (now for the online RAG, the pin for the baseline). */
export function knowledgeDocuments(sources: readonly KnowledgeSource[], publishedBy: Date): Document[] {
  return sources.flatMap((source) =>
    source.recordsPublishedBy(publishedBy).map(
      (record) =>
        new Document({
          pageContent: renderRecord(record),
          metadata: {
            doc_id: record.docId,
            chunk_id: `${record.docId}@${record.version}#0`,
            knowledge_id: record.knowledgeId,
            version: record.version,
            source: record.source,
            source_trust: source.trust,
            updated_at: record.updatedAt.toISOString(),
            valid_from: record.validFrom.toISOString(),
            valid_until: record.validUntil?.toISOString() ?? null,
          },
        }),
    ),
  );
}
