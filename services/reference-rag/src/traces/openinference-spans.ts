/**
 * The reference RAG's query path as OpenInference spans, exported over OTLP/HTTP (protobuf) the way
 * an instrumented framework RAG sends them: a CHAIN span under the caller's W3C traceparent, with
 * EMBEDDING, RETRIEVER, RERANKER and LLM spans beneath it, each at the time its phase ran. The
 * documents carry the contract's versioned metadata; what OpenInference has no name for (citations,
 * as_of, abstention) goes in `rag_immune.*` attributes. It lets the identifier diagnose this RAG
 * from its spans alone, with /traces switched off.
 */
import * as oi from '@arizeai/openinference-semantic-conventions';
import { ROOT_CONTEXT, defaultTextMapGetter, trace, type Attributes, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Chunk, QueryResponse } from '@rag-immune/rag-contract';

/** One answered query, with when each phase ran (epoch ms). */
export interface TracedQuery {
  traceparent: string | undefined;
  /** The caller's W3C tracestate; every span carries it (the sentinel's probes send `rag-immune=probe`). */
  tracestate?: string | undefined;
  query: string;
  rewritten: string;
  asOf: string;
  /** Retrieval's candidates in retrieval order, and the reranker's full order, as contract chunks. */
  candidates: Chunk[];
  reranked: Chunk[];
  topK: number;
  response: QueryResponse;
  phases: { start: number; embedded: number; retrieved: number; reranked: number; generated: number; end: number };
}

export interface QuerySpans {
  record(query: TracedQuery): void;
  shutdown(): Promise<void>;
}

const metadataOf = (c: Chunk) =>
  JSON.stringify({
    doc_id: c.doc_id,
    chunk_id: c.chunk_id,
    knowledge_id: c.knowledge_id,
    version: c.version,
    source: c.source,
    source_trust: c.source_trust,
    updated_at: c.updated_at,
    valid_from: c.valid_from,
    valid_until: c.valid_until,
  });

function documents(prefix: string, chunks: readonly Chunk[], score: (c: Chunk) => number | undefined): Attributes {
  const attributes: Attributes = {};
  chunks.forEach((c, i) => {
    attributes[`${prefix}.${i}.${oi.DOCUMENT_ID}`] = c.chunk_id;
    const value = score(c);
    if (value !== undefined) attributes[`${prefix}.${i}.${oi.DOCUMENT_SCORE}`] = value;
    attributes[`${prefix}.${i}.${oi.DOCUMENT_CONTENT}`] = c.text;
    attributes[`${prefix}.${i}.${oi.DOCUMENT_METADATA}`] = metadataOf(c);
  });
  return attributes;
}

/** `OTEL_EXPORTER_OTLP_HEADERS` syntax: `key=value,key2=value2` (values URL-encoded). */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

export function openInferenceQuerySpans(options: {
  url: string;
  headers: Record<string, string>;
  instance: string;
  scheduledDelayMillis: number;
}): QuerySpans {
  const provider = new BasicTracerProvider({
    // 30 documents x 4 attributes each overflow the SDK's default limit of 128 attributes per span.
    spanLimits: { attributeCountLimit: 10_000 },
    resource: resourceFromAttributes({ 'service.name': `reference-rag-${options.instance}`, 'rag_immune.instance': options.instance }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: options.url, headers: options.headers }), {
        scheduledDelayMillis: options.scheduledDelayMillis,
      }),
    ],
  });
  const tracer = provider.getTracer('rag-immune-reference-rag');
  const propagator = new W3CTraceContextPropagator();

  return {
    record(q) {
      const parent: Context =
        q.traceparent === undefined
          ? ROOT_CONTEXT
          : propagator.extract(
              ROOT_CONTEXT,
              { traceparent: q.traceparent, ...(q.tracestate === undefined ? {} : { tracestate: q.tracestate }) },
              defaultTextMapGetter,
            );
      const { response, phases } = q;
      const root = tracer.startSpan(
        'reference-rag.query',
        {
          startTime: phases.start,
          attributes: {
            [oi.SemanticConventions.OPENINFERENCE_SPAN_KIND]: oi.OpenInferenceSpanKind.CHAIN,
            [oi.INPUT_VALUE]: q.query,
            [oi.INPUT_MIME_TYPE]: 'text/plain',
            [oi.OUTPUT_VALUE]: response.answer,
            [oi.OUTPUT_MIME_TYPE]: 'text/plain',
            'rag_immune.as_of': q.asOf,
            'rag_immune.citations': JSON.stringify(response.citations.map((c) => c.chunk_id)),
            'rag_immune.abstained': response.abstained ?? false,
          },
        },
        parent,
      );
      const inRoot = trace.setSpan(parent, root);
      const child = (name: string, kind: oi.OpenInferenceSpanKind, start: number, end: number, attributes: Attributes) =>
        tracer
          .startSpan(
            name,
            { startTime: start, attributes: { [oi.SemanticConventions.OPENINFERENCE_SPAN_KIND]: kind, ...attributes } },
            inRoot,
          )
          .end(end);
      child('embed', oi.OpenInferenceSpanKind.EMBEDDING, phases.start, phases.embedded, {
        [oi.EMBEDDING_MODEL_NAME]: response.models.embedder,
      });
      child('retrieve', oi.OpenInferenceSpanKind.RETRIEVER, phases.embedded, phases.retrieved, {
        [oi.INPUT_VALUE]: q.rewritten,
        ...documents(oi.RETRIEVAL_DOCUMENTS, q.candidates, (c) => c.retrieval_score),
      });
      child('rerank', oi.OpenInferenceSpanKind.RERANKER, phases.retrieved, phases.reranked, {
        [oi.RERANKER_QUERY]: q.rewritten,
        [oi.RERANKER_MODEL_NAME]: response.models.reranker,
        [oi.RERANKER_TOP_K]: q.topK,
        ...documents(oi.RERANKER_INPUT_DOCUMENTS, q.candidates, (c) => c.retrieval_score),
        ...documents(oi.RERANKER_OUTPUT_DOCUMENTS, q.reranked, (c) => c.rerank_score),
      });
      child('generate', oi.OpenInferenceSpanKind.LLM, phases.reranked, phases.generated, {
        [oi.LLM_MODEL_NAME]: response.models.generator,
        [`${oi.LLM_INPUT_MESSAGES}.0.${oi.MESSAGE_ROLE}`]: 'user',
        [`${oi.LLM_INPUT_MESSAGES}.0.${oi.MESSAGE_CONTENT}`]: q.rewritten,
        [`${oi.LLM_OUTPUT_MESSAGES}.0.${oi.MESSAGE_ROLE}`]: 'assistant',
        [`${oi.LLM_OUTPUT_MESSAGES}.0.${oi.MESSAGE_CONTENT}`]: response.answer,
      });
      root.end(phases.end);
    },
    shutdown: () => provider.shutdown(),
  };
}
