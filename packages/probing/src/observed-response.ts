/**
 * What the probing code reads from a RAG's answer, taken only from what the answer carries. A
 * contract RAG returns every field; a RAG reached through a declarative adapter may return the text
 * alone. Each view below keeps a chunk only where it has the fields its signal needs, so a missing
 * id, score, date or version removes that chunk from that signal instead of being filled in.
 */
import { chunksWith, type PartialChunk, type PartialQueryResponse } from '@rag-immune/rag-contract';
import type { RetrievedDocument } from '@rag-immune/contracts';
import type { AnswerSide } from './signals/answer-agreement.ts';
import type { CitingSide } from './signals/attribution.ts';
import type { FreshnessDocument } from './signals/knowledge-freshness.ts';

const time = (at: string | undefined): number | null => {
  if (at === undefined) return null;
  const ms = Date.parse(at);
  return Number.isFinite(ms) ? ms : null;
};

/**
 * The knowledge time the answer was given at: the RAG's own `as_of` when it says, else the moment
 * the answer arrived (a RAG that names no knowledge time answers from what it holds now).
 */
export function answeredAt(response: PartialQueryResponse, receivedAt: number): number {
  return time(response.as_of) ?? receivedAt;
}

/** KF's inputs: only chunks with an update time count (knowledgeFreshness weighs each by its score, absent = 0). */
export function freshnessDocuments(chunks: readonly PartialChunk[]): FreshnessDocument[] {
  return chunks.map((chunk) => ({
    source: chunk.source ?? '',
    source_trust: chunk.source_trust ?? null,
    retrieval_score: chunk.retrieval_score ?? null,
    updated_at: time(chunk.updated_at),
  }));
}

/**
 * The ProbeResult's retrieved documents. Its schema requires doc and chunk ids, so a chunk the RAG
 * returned without them is left out (never given a made-up id); every other field is null when absent.
 */
export function retrievedDocuments(chunks: readonly PartialChunk[], sourceTrust: Readonly<Record<string, number>>): RetrievedDocument[] {
  const documents: RetrievedDocument[] = [];
  chunks.forEach((chunk, index) => {
    if (chunk.doc_id === undefined || chunk.chunk_id === undefined) return;
    documents.push({
      rank: index + 1,
      doc_id: chunk.doc_id,
      chunk_id: chunk.chunk_id,
      knowledge_id: chunk.knowledge_id ?? null,
      knowledge_version: chunk.version ?? null,
      source: chunk.source ?? null,
      source_trust: (chunk.source === undefined ? undefined : sourceTrust[chunk.source]) ?? chunk.source_trust ?? null,
      updated_at: time(chunk.updated_at),
      retrieval_score: chunk.retrieval_score ?? null,
      rerank_score: chunk.rerank_score ?? null,
    });
  });
  return documents;
}

/**
 * One side for the answer comparison. Newer-knowledge, altered-chunk and same-evidence checks match
 * chunks by id, knowledge version and times, so only chunks carrying all of them take part: with none,
 * those checks find nothing rather than compare unknowns.
 */
export function answerSide(response: PartialQueryResponse, receivedAt: number): AnswerSide {
  return {
    answer: response.answer,
    abstained: response.abstained ?? false,
    asOf: answeredAt(response, receivedAt),
    chunks: chunksWith(response.chunks, 'chunk_id', 'knowledge_id', 'version', 'updated_at', 'valid_from').flatMap((chunk) => {
      const updatedAt = time(chunk.updated_at);
      const validFrom = time(chunk.valid_from);
      if (updatedAt === null || validFrom === null) return [];
      return [{ ...chunk, updated_at: updatedAt, valid_from: validFrom }];
    }),
  };
}

/** One side for the attribution check: citations and chunks that name their chunk, document and knowledge ids. */
export function citingSide(response: PartialQueryResponse): CitingSide {
  const identified = <T extends { chunk_id?: string; doc_id?: string; knowledge_id?: string }>(items: readonly T[]) =>
    items.flatMap((item) =>
      item.chunk_id !== undefined && item.doc_id !== undefined && item.knowledge_id !== undefined
        ? [{ chunk_id: item.chunk_id, doc_id: item.doc_id, knowledge_id: item.knowledge_id }]
        : [],
    );
  return { citations: identified(response.citations ?? []), chunks: identified(response.chunks) };
}

/**
 * The evidence handed to the FCS scorer. Its ids only label passages in the scorer's snippets, so a
 * chunk without an id is labelled by its rank (`#2`), which claims nothing about the RAG.
 */
export function evidence(chunks: readonly PartialChunk[], prefix = ''): { id: string; text: string }[] {
  return chunks.map((chunk, index) => ({ id: `${prefix}${chunk.chunk_id ?? `#${index + 1}`}`, text: chunk.text }));
}
