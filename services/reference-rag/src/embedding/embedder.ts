/**
 * What the RAG needs from a sentence embedder. Production wires `SentenceEmbedder` from
 * `@rag-immune/embeddings` (all-MiniLM-L6-v2 in onnxruntime-node); unit tests inject a double.
 */
export interface Embedder {
  embed(texts: string[]): Promise<Float32Array[]>;
  readonly dimension: number;
  readonly version: string;
}

/**
 * Remembers embeddings by exact text, so re-indexing unchanged text (an undo, a repair) does not pay
 * for the model again. The embedder is deterministic, so a hit is the vector the model would return.
 */
export class CachingEmbedder implements Embedder {
  private readonly cache = new Map<string, Float32Array>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly inner: Embedder,
    private readonly maxEntries = 50_000,
    private readonly batchSize = 32,
  ) {}

  get dimension(): number {
    return this.inner.dimension;
  }

  get version(): string {
    return this.inner.version;
  }

  clear(): void {
    this.cache.clear();
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((text) => !this.cache.has(text)))];
    this.hits += texts.length - missing.length;
    this.misses += missing.length;
    for (let i = 0; i < missing.length; i += this.batchSize) {
      const batch = missing.slice(i, i + this.batchSize);
      const vectors = await this.inner.embed(batch);
      batch.forEach((text, j) => this.remember(text, vectors[j]!));
    }
    return texts.map((text) => this.cache.get(text)!);
  }

  private remember(text: string, vector: Float32Array): void {
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(text, vector);
  }
}
