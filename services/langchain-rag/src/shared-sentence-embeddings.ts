/**
 * The project's shared sentence embedder (all-MiniLM-L6-v2, @rag-immune/embeddings) behind
 * LangChain's Embeddings interface, so @langchain/qdrant and any LangChain vector store use it.
 */
import { Embeddings, type EmbeddingsParams } from '@langchain/core/embeddings';
import type { SentenceEmbedder } from '@rag-immune/embeddings';

export class SharedSentenceEmbeddings extends Embeddings {
  constructor(
    private readonly embedder: Pick<SentenceEmbedder, 'embed' | 'modelId'>,
    params: EmbeddingsParams = {},
  ) {
    super(params);
  }

  /** The embedder's id (model and weights hash), reported as the RAG's embedder version. */
  get modelId(): string {
    return this.embedder.modelId;
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    if (documents.length === 0) return [];
    return (await this.caller.call(() => this.embedder.embed(documents))).map((vector) => Array.from(vector));
  }

  async embedQuery(document: string): Promise<number[]> {
    const [vector] = await this.caller.call(() => this.embedder.embed([document]));
    return Array.from(vector!);
  }
}
