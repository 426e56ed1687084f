import type { KnowledgeFreshness, PartialQueryResponse, QueryRequest } from '@rag-immune/rag-contract';

/**
 * What the sentinel needs from its collaborators. The composition root (main.ts) plugs in the real
 * RagClient (or, for a RAG with its own API, an AdapterRagClient from @rag-immune/rag-adapter) and
 * FactConsistencyScorer; tests plug in the same real ones against real servers.
 */
export interface RagPort {
  /**
   * A contract RAG answers a full QueryResponse; an adapted one may leave ids, scores, dates and
   * versions out, and every signal computed from them is then left out too, never guessed.
   * `headers` carries the probe's W3C traceparent, so the RAG's spans of the call are findable by trace
   * id, and a `tracestate` of `rag-immune=probe`, which tells the trace intake they are a probe's.
   */
  query(
    request: QueryRequest,
    options?: { signal?: AbortSignal; timeoutMs?: number; headers?: Readonly<Record<string, string>> },
  ): Promise<PartialQueryResponse>;
  /**
   * The contract's optional freshness lookup (GET /knowledge/{id}); a RAG that does not serve it
   * answers 404. Knowledge the online side serves newer than the baseline is checked against it.
   */
  knowledgeFreshness?(knowledgeId: string, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<KnowledgeFreshness>;
}

export interface EvidenceSnippet {
  passage_id: string;
  text: string;
  stance: 'supports' | 'contradicts';
  probability: number;
}

export interface FcsVerdict {
  status: 'scored' | 'no_evidence';
  score: number | null;
  truncated: boolean;
  evidence_snippets: EvidenceSnippet[];
}

export interface FactConsistencyPort {
  score(input: { question: string; evidence: { id: string; text: string }[]; answer: string }): Promise<FcsVerdict>;
}
