/**
 * One mapper per semantic convention, one interface (like the identifier's detectors): each pulls the
 * pieces of a RAG call out of its spans (`TraceParts`); `assembleTrace` turns them into the health
 * contract's Trace. A piece the spans do not carry is a gap, never an invented value: without the
 * pieces a diff needs there is no Trace, only gaps, which the identifier raises as open questions.
 */
import type { Trace } from '@rag-immune/rag-contract';
import type { SpanRecord } from '../span-record.ts';
import type { Convention } from './span-conventions.ts';

/** What a convention's spans may fail to carry. */
export type TracePiece =
  | 'query'
  | 'candidates'
  | 'candidate_scores'
  | 'document_metadata'
  | 'context'
  | 'answer'
  | 'reranked'
  | 'citations'
  | 'as_of'
  | 'models.embedder'
  | 'models.reranker'
  | 'models.generator'
  /** A span the mapper reads dropped attributes: its document lists cannot be trusted to be whole. */
  | 'span_attributes';

/** Without these the layer-by-layer diff has nothing to compare: no Trace is built. */
export const BLOCKING_PIECES: ReadonlySet<TracePiece> = new Set([
  'query',
  'candidates',
  'candidate_scores',
  'document_metadata',
  'context',
  'answer',
  'span_attributes',
]);

export interface TraceGap {
  piece: TracePiece;
  detail: string;
}

/** The model name a trace carries where the spans named none: compared as unknown, never as a version. */
export const UNREPORTED_MODEL = 'unreported';

export interface MappedTrace {
  trace_id: string;
  convention: Convention;
  /** Null when a blocking piece is missing (see `gaps`). */
  trace: Trace | null;
  gaps: TraceGap[];
  /** Spans of this trace the mapper did not read, by kind. */
  ignored: Record<string, number>;
  /**
   * What the spans do say, kept whether or not it makes a Trace: a product's own instrumentation may
   * record the retrieved documents' content and metadata without ids or scores (OpenInference's
   * LangChain.js instrumentation, which Flowise uses, records only `document.content` and
   * `document.metadata`). Absent when no mapper read the call's entry.
   */
  observed?: ObservedCall;
}

/** One retrieved document exactly as its span records it: an id or score only where the span has one. */
export interface ObservedDocument {
  rank: number;
  id?: string;
  score?: number;
  content?: string;
  metadata: Record<string, unknown>;
}

/** The call as far as its spans tell it; nothing here is filled in. */
export interface ObservedCall {
  query?: string;
  answer?: string;
  /** Before reranking (the innermost retrieval); empty when no retrieval span lists documents. */
  retrieved: ObservedDocument[];
  /** What reached the generator. */
  context: ObservedDocument[];
  models: { embedder?: string; reranker?: string; generator?: string };
}

/** One retrieved or reranked document as a convention records it. */
export interface SpanDocument {
  id: string | undefined;
  score: number | undefined;
  content: string | undefined;
  metadata: Record<string, unknown>;
}

export interface TraceParts {
  root: SpanRecord;
  query: string | undefined;
  /** The query the retriever was given, when it differs from the user's. */
  rewritten_query: string | undefined;
  /** Before reranking (the innermost retrieval). */
  candidates: SpanDocument[] | undefined;
  candidatesSpan: SpanRecord | undefined;
  /** After reranking, in the reranker's order; undefined when the call had no rerank step. */
  reranked: SpanDocument[] | undefined;
  rerankSpan: SpanRecord | undefined;
  /** What reached the generator. */
  context: SpanDocument[] | undefined;
  answer: string | undefined;
  models: { embedder: string | undefined; reranker: string | undefined; generator: string | undefined };
  embedSpan: SpanRecord | undefined;
  generateSpan: SpanRecord | undefined;
  ignored: Record<string, number>;
}

export interface TraceMapper {
  readonly convention: Convention;
  /** Whether this convention's spans are in the set (the first mapper that claims a trace maps it). */
  claims(spans: readonly SpanRecord[]): boolean;
  parts(spans: readonly SpanRecord[]): TraceParts | { missing: TraceGap[]; ignored: Record<string, number> };
}
