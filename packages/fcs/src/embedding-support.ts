/**
 * Semantic support of each claim by the evidence, read by the shared sentence embedder
 * (all-MiniLM-L6-v2, @rag-immune/embeddings): the cosine of a claim to its nearest evidence chunk.
 * A paraphrase the lexical features miss and the consistency model reads poorly on long web evidence
 * still lands near its source. Offered to the combination fit, not shipped: on the real dev sets it added
 * 1.2 LOSO macro BA to the v2.3 combination, but the test splits did not follow (bench/fcs/RESULTS.md,
 * "FCS v2.4 candidate").
 */

/** What the scorer needs of an embedder: L2-normalised vectors, one per text, in input order. */
export interface ClaimEmbedder {
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

export interface EmbeddingSupport {
  /** Cosine of the worst-supported claim to its nearest chunk. */
  emb_min: number;
  /** Mean over claims of the cosine to the nearest chunk. */
  emb_mean: number;
}

export interface ClaimsAndChunks {
  claims: readonly string[];
  chunks: readonly string[];
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[i]!;
  return sum;
}

/**
 * Embedding support for several triples with one embedder call (claims and chunks of all of them), so a
 * batch of probes costs one pass. Blank texts never reach the embedder (it refuses them): a claim or
 * chunk without words has no support to measure, and a triple without chunks gets 0.
 */
export async function embeddingSupport(embedder: ClaimEmbedder, items: readonly ClaimsAndChunks[]): Promise<EmbeddingSupport[]> {
  const texts: string[] = [];
  const slot = new Map<string, number>();
  const indexOf = (text: string): number | undefined => {
    if (text.trim() === '') return undefined;
    let at = slot.get(text);
    if (at === undefined) {
      at = texts.length;
      texts.push(text);
      slot.set(text, at);
    }
    return at;
  };
  const planned = items.map((item) => ({ claims: item.claims.map(indexOf), chunks: item.chunks.map(indexOf) }));
  const vectors = texts.length > 0 ? await embedder.embed(texts) : [];
  return planned.map(({ claims, chunks }) => {
    const best = claims.map((c) =>
      c === undefined ? 0 : Math.max(0, ...chunks.map((k) => (k === undefined ? 0 : dot(vectors[c]!, vectors[k]!)))),
    );
    if (best.length === 0) return { emb_min: 0, emb_mean: 0 };
    return { emb_min: Math.min(...best), emb_mean: best.reduce((a, b) => a + b, 0) / best.length };
  });
}
