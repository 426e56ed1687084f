/**
 * A LangChain retriever that keeps what a diagnosis needs on every document: its id, its retrieval
 * score, its rerank score and its versioned metadata. It runs the search with scores itself (the
 * stock retriever drops them), drops versions not valid at the request's as-of time, reranks with
 * any LangChain document compressor, and cuts to the request's top_k. The candidates are fetched
 * through an inner retriever, so that OpenInference instrumentation records two RETRIEVER spans:
 * the inner one lists the candidates, the outer one the reranked context, scores in the metadata.
 */
import type { CallbackManagerForRetrieverRun } from '@langchain/core/callbacks/manager';
import type { DocumentInterface } from '@langchain/core/documents';
import { Document } from '@langchain/core/documents';
import type { BaseDocumentCompressor } from '@langchain/core/retrievers/document_compressors';
import { BaseRetriever } from '@langchain/core/retrievers';
import type { VectorStoreInterface } from '@langchain/core/vectorstores';
import { currentQueryScope } from './request-scope.ts';
import { validAt, versionedMetadataOf } from './versioned-metadata.ts';

export interface ImmuneRetrieverOptions {
  /** Where candidates come from; `vectorStore()` is asked per call, so a knowledge-source switch takes effect at once. */
  vectorStore: () => VectorStoreInterface;
  /** Candidates handed to the reranker (before the as-of filter drops invalid versions). */
  candidates: number;
  /** Any LangChain compressor that scores documents (Cohere, a cross-encoder...); none: retrieval order. */
  reranker?: BaseDocumentCompressor;
  /** The metadata key the reranker writes its score to (LangChain's compressors use relevanceScore). */
  rerankScoreKey?: string;
  /** Chunks handed to the generator when the request names no top_k. */
  defaultTopK: number;
}

class CandidateRetriever extends BaseRetriever {
  override lc_namespace = ['rag_immune', 'langchain', 'candidates'];

  constructor(private readonly options: ImmuneRetrieverOptions) {
    super();
  }

  override async _getRelevantDocuments(query: string): Promise<DocumentInterface[]> {
    const asOf = currentQueryScope()?.asOf ?? new Date();
    const hits = await this.options.vectorStore().similaritySearchWithScore(query, this.options.candidates);
    // Versions not valid at the request's time are dropped here, whatever the store's filter syntax.
    return hits
      .filter(([doc]) => validAt(versionedMetadataOf(doc), asOf))
      .map(
        ([doc, score]) =>
          new Document({
            pageContent: doc.pageContent,
            id: versionedMetadataOf(doc).chunk_id,
            metadata: { ...doc.metadata, retrieval_score: score },
          }),
      );
  }
}

export class ImmuneRetriever extends BaseRetriever {
  override lc_namespace = ['rag_immune', 'langchain', 'retriever'];
  private readonly inner: CandidateRetriever;

  constructor(private readonly options: ImmuneRetrieverOptions) {
    super();
    this.inner = new CandidateRetriever(options);
  }

  override async _getRelevantDocuments(query: string, runManager?: CallbackManagerForRetrieverRun): Promise<DocumentInterface[]> {
    const scope = currentQueryScope();
    const candidates = await this.inner.invoke(query, { callbacks: runManager?.getChild('candidates') });
    let ranked = candidates;
    if (this.options.reranker !== undefined) {
      const key = this.options.rerankScoreKey ?? 'relevanceScore';
      const reranked = await this.options.reranker.compressDocuments(candidates, query, runManager?.getChild('rerank'));
      ranked = reranked.map((doc) => {
        const score = doc.metadata[key];
        return new Document({
          pageContent: doc.pageContent,
          id: doc.metadata.chunk_id as string,
          metadata: { ...doc.metadata, ...(typeof score === 'number' ? { rerank_score: score } : {}) },
        });
      });
    }
    const context = ranked.slice(0, scope?.topK ?? this.options.defaultTopK);
    if (scope !== undefined) {
      scope.candidates = candidates;
      scope.context = context;
    }
    return context;
  }
}
