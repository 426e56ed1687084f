import type { Citation, ModelVersions, QueryResponse, Timings } from './schemas.ts';

/**
 * A retrieved chunk as far as the RAG told it. The contract's Chunk has every field; a RAG reached
 * through a declarative adapter (@rag-immune/rag-adapter) may return only the text. An absent field
 * is unknown and stays absent: nothing downstream may fill it in. `valid_until: null` still means
 * "open-ended", as in the contract; absent means the RAG did not say.
 */
export interface PartialChunk {
  text: string;
  doc_id?: string;
  chunk_id?: string;
  knowledge_id?: string;
  version?: string;
  source?: string;
  source_trust?: number;
  updated_at?: string;
  valid_from?: string;
  valid_until?: string | null;
  retrieval_score?: number;
  rerank_score?: number;
}

/**
 * What a RAG answered to a query, the contract's QueryResponse or less: the answer always, the rest
 * when the RAG returns it. Every QueryResponse is one, so code written against this reads both.
 */
export interface PartialQueryResponse {
  answer: string;
  chunks: PartialChunk[];
  trace_id?: string;
  abstained?: boolean;
  citations?: Partial<Citation>[];
  models?: Partial<ModelVersions>;
  timings?: Timings;
  as_of?: string;
  instance?: string;
}

/** Compile-time proof that a contract response is a partial one (the probing code relies on it). */
export type QueryResponseIsPartial = QueryResponse extends PartialQueryResponse ? true : never;
const _proof: QueryResponseIsPartial = true;
void _proof;

/** The chunks that carry every field in `keys`, typed so. */
export function chunksWith<K extends keyof PartialChunk>(
  chunks: readonly PartialChunk[],
  ...keys: K[]
): (PartialChunk & { [P in K]-?: Exclude<PartialChunk[P], undefined | null> })[] {
  return chunks.filter((chunk) => keys.every((key) => chunk[key] !== undefined && chunk[key] !== null)) as (PartialChunk & {
    [P in K]-?: Exclude<PartialChunk[P], undefined | null>;
  })[];
}
