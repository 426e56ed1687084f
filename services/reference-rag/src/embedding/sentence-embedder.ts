import { SentenceEmbedder } from '@rag-immune/embeddings';
import type { Embedder } from './embedder.ts';

/** The production embedder: the shared all-MiniLM-L6-v2 (onnxruntime-node), its model id as version. */
export async function loadSentenceEmbedder(): Promise<Embedder> {
  const model = await SentenceEmbedder.load();
  return { dimension: model.dimension, version: model.modelId, embed: (texts) => model.embed(texts) };
}
