import { randomUUID } from 'node:crypto';
import type { Chunk, Citation, QueryRequest, QueryResponse, ScoredCandidate, Trace } from '@rag-immune/rag-contract';
import type { Embedder } from './embedding/embedder.ts';
import { RequestRefusedError } from './errors.ts';
import type { ExtractiveGenerator } from './generation/extractive-generator.ts';
import type { ChunkPayload, ScoredChunk, VectorIndex } from './index/vector-index.ts';
import type { QueryLog } from './query-log.ts';
import type { Reranker } from './rerank/reranker.ts';
import type { QueryNormalizer } from './text/query-normalizer.ts';
import type { QuerySpans } from './traces/openinference-spans.ts';
import type { TraceStore } from './traces/trace-store.ts';

export interface RagServiceOptions {
  instance: 'online' | 'baseline';
  /** The baseline answers as of this time whatever the request says. */
  pinnedAsOf?: Date;
  /** How many candidates retrieval hands to the reranker. */
  candidates: number;
  defaultTopK: number;
  /** When set, every query is also exported as OpenInference spans (OTLP) under the caller's traceparent. */
  spans?: QuerySpans;
  /** RAG_TRACES_ENDPOINT=disabled: GET /traces/{id} is not served (traces go to the OTLP intake only). */
  tracesEndpoint: boolean;
}

/** The query path: normalise → embed → retrieve valid-at-T chunks → rerank → generate → trace. */
export class RagService {
  /** Fault hook (evaluation fault embedding-model-swap): alters the query vector after the model ran. */
  queryVectorDefect: ((vector: Float32Array) => Float32Array) | undefined;

  constructor(
    private readonly options: RagServiceOptions,
    private readonly embedder: Embedder,
    private readonly index: VectorIndex,
    readonly reranker: Reranker,
    readonly generator: ExtractiveGenerator,
    readonly normalizer: QueryNormalizer,
    private readonly traces: TraceStore,
    private readonly queryLog: QueryLog,
  ) {}

  get instance(): string {
    return this.options.instance;
  }

  models(): QueryResponse['models'] {
    return { embedder: this.embedder.version, reranker: this.reranker.version, generator: this.generator.version };
  }

  /** The time a request is answered as of: the pin for a baseline, else the request's as_of or now. */
  asOfFor(request: QueryRequest): Date {
    if (this.options.pinnedAsOf !== undefined) return this.options.pinnedAsOf;
    return request.as_of === undefined ? new Date() : new Date(request.as_of);
  }

  /** `call.traceparent` / `.tracestate`: the caller's W3C trace context, which the exported spans continue. */
  async query(request: QueryRequest, call: { traceparent?: string; tracestate?: string } = {}): Promise<QueryResponse> {
    const startedAt = Date.now();
    const started = performance.now();
    const asOf = this.asOfFor(request);
    const topK = request.top_k ?? this.options.defaultTopK;
    const rewritten = this.normalizer.normalize(request.query);
    if (rewritten === '') throw new RequestRefusedError('invalid request: query: is blank after normalisation', 400);

    const t0 = performance.now();
    const [embedded] = await this.embedder.embed([rewritten]);
    const vector = this.queryVectorDefect === undefined ? embedded : this.queryVectorDefect(embedded!);
    const t1 = performance.now();
    const retrieved = await this.index.search(vector!, asOf, Math.max(this.options.candidates, topK));
    const t2 = performance.now();
    const reranked = this.reranker.rerank(
      rewritten,
      retrieved.map((hit) => ({ ...hit, retrievalScore: hit.score })),
    );
    const t3 = performance.now();
    const context = reranked.slice(0, topK);
    const generated = this.generator.generate(
      rewritten,
      context.map((entry) => entry.candidate.payload),
    );
    const t4 = performance.now();

    const rerankScores = new Map(reranked.map((entry) => [entry.candidate.pointId, entry.score]));
    const chunks = context.map((entry) => toContractChunk(entry.candidate, entry.score));
    const citations = generated.citations.map(toCitation);
    const timings = {
      embed_ms: t1 - t0,
      retrieve_ms: t2 - t1,
      rerank_ms: t3 - t2,
      generate_ms: t4 - t3,
      total_ms: performance.now() - started,
    };
    const traceId = randomUUID();
    const response: QueryResponse = {
      trace_id: traceId,
      answer: generated.answer,
      abstained: generated.abstained,
      citations,
      chunks,
      models: this.models(),
      timings,
      as_of: asOf.toISOString(),
      instance: this.options.instance,
    };
    const trace: Trace = {
      trace_id: traceId,
      created_at: new Date().toISOString(),
      query: request.query,
      rewritten_query: rewritten,
      as_of: response.as_of,
      candidates: retrieved.map((hit, i) => scored(hit, i + 1, rerankScores.get(hit.pointId))),
      reranked: reranked.map((entry, i) => scored(entry.candidate, i + 1, entry.score)),
      context: chunks,
      answer: generated.answer,
      abstained: generated.abstained,
      citations,
      models: response.models,
      timings,
    };
    // Kept even with the endpoint off: in-process callers (tests comparing both paths) read it.
    this.traces.put(trace);
    const at = (t: number) => startedAt + (t - started);
    this.options.spans?.record({
      traceparent: call.traceparent,
      tracestate: call.tracestate,
      query: request.query,
      rewritten,
      asOf: response.as_of,
      candidates: retrieved.map((hit) => toContractChunk(hit, rerankScores.get(hit.pointId))),
      reranked: reranked.map((entry) => toContractChunk(entry.candidate, entry.score)),
      topK,
      response,
      phases: { start: startedAt, embedded: at(t1), retrieved: at(t2), reranked: at(t3), generated: at(t4), end: at(performance.now()) },
    });
    this.queryLog.record(request.query);
    return response;
  }

  /** The recorded trace (undefined once evicted); whether GET /traces serves it is `servesTraces`. */
  trace(traceId: string): Trace | undefined {
    return this.traces.get(traceId);
  }

  get servesTraces(): boolean {
    return this.options.tracesEndpoint;
  }
}

function scored(hit: ScoredChunk, rank: number, rerankScore: number | undefined): ScoredCandidate {
  return {
    chunk_id: hit.payload.chunk_id,
    knowledge_id: hit.payload.knowledge_id,
    version: hit.payload.version,
    retrieval_score: hit.score,
    ...(rerankScore === undefined ? {} : { rerank_score: rerankScore }),
    rank,
  };
}

function toContractChunk(hit: ScoredChunk, rerankScore: number | undefined): Chunk {
  const p = hit.payload;
  return {
    doc_id: p.doc_id,
    chunk_id: p.chunk_id,
    knowledge_id: p.knowledge_id,
    version: p.version,
    source: p.source,
    source_trust: p.source_trust,
    updated_at: p.updated_at,
    valid_from: p.valid_from,
    valid_until: p.valid_until,
    retrieval_score: hit.score,
    ...(rerankScore === undefined ? {} : { rerank_score: rerankScore }),
    text: p.text,
  };
}

function toCitation(p: ChunkPayload): Citation {
  return { chunk_id: p.chunk_id, doc_id: p.doc_id, knowledge_id: p.knowledge_id, version: p.version };
}
