/**
 * The health contract's POST /query over an LCEL chain: validates the request, runs the chain with
 * the request's as-of time and top_k in scope, and answers with the chunks the generator got (ids,
 * scores, versioned metadata), citations, model versions and timings. The call runs in an
 * OpenInference CHAIN span under the caller's W3C traceparent (the probe's), carrying what no
 * convention names (`rag_immune.as_of`, `.citations`, model names), and the response's trace_id
 * is that span's trace id: RAG Immune finds the call's spans in its trace intake, no /traces needed.
 */
import { randomUUID } from 'node:crypto';
import { SpanStatusCode, context, isSpanContextValid, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { RunnableInterface } from '@langchain/core/runnables';
import type { Request, RequestHandler, Response } from 'express';
import { QueryRequest, QueryResponse, contractIssues, describeIssues, type Chunk, type ModelVersions } from '@rag-immune/rag-contract';
import { inQueryScope, type QueryScope } from './request-scope.ts';
import { toChunk } from './versioned-metadata.ts';

export interface QueryHandlerOptions {
  /** The RAG's chain: the question in, the answer out (retrieval through an ImmuneRetriever inside it). */
  chain: RunnableInterface<string, string>;
  /** The model versions in force now (a pin changes them). */
  models: () => ModelVersions;
  defaultTopK: number;
  instance?: string;
  /** Which context chunks the answer cites; default all of them (a "stuff" chain answers from the whole context). */
  citations?: (answer: string, context: readonly Chunk[]) => string[];
  tracer?: Tracer;
}

export function queryHandler(options: QueryHandlerOptions): RequestHandler {
  const tracer = options.tracer ?? trace.getTracer('rag-immune-langchain');
  return async (req: Request, res: Response) => {
    const parsed = QueryRequest.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(400).json({ error: `invalid request: ${describeIssues(parsed.error)}`, issues: contractIssues(parsed.error) });
      return;
    }
    const { query, as_of: asOfText, top_k: topK = options.defaultTopK } = parsed.data;
    const asOf = asOfText === undefined ? new Date() : new Date(asOfText);
    const models = options.models();
    const started = performance.now();
    // Under the HTTP server's span when the app is instrumented, else under the traceparent itself.
    const parent = trace.getSpan(context.active()) ? context.active() : propagation.extract(context.active(), req.headers);
    const span = tracer.startSpan(
      'rag-immune.query',
      {
        attributes: {
          'openinference.span.kind': 'CHAIN',
          'input.value': query,
          'input.mime_type': 'text/plain',
          'rag_immune.as_of': asOf.toISOString(),
          'rag_immune.embedder': models.embedder,
          'rag_immune.reranker': models.reranker,
          'rag_immune.generator': models.generator,
        },
      },
      parent,
    );
    const scope: QueryScope = { asOf, topK, candidates: [], context: [] };
    let answer: string;
    try {
      answer = await context.with(trace.setSpan(parent, span), () => inQueryScope(scope, () => options.chain.invoke(query)));
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw error;
    }
    const chunks = scope.context.map(toChunk);
    const cited = new Set(options.citations ? options.citations(answer, chunks) : chunks.map((c) => c.chunk_id));
    const citations = chunks
      .filter((c) => cited.has(c.chunk_id))
      .map(({ chunk_id, doc_id, knowledge_id, version }) => ({ chunk_id, doc_id, knowledge_id, version }));
    span.setAttributes({
      'output.value': answer,
      'output.mime_type': 'text/plain',
      'rag_immune.citations': JSON.stringify(citations.map((c) => c.chunk_id)),
    });
    span.end();
    const spanContext = span.spanContext();
    const response = QueryResponse.parse({
      trace_id: isSpanContextValid(spanContext) ? spanContext.traceId : randomUUID(),
      answer,
      citations,
      chunks,
      models,
      timings: { total_ms: performance.now() - started },
      as_of: asOf.toISOString(),
      ...(options.instance ? { instance: options.instance } : {}),
    });
    res.json(response);
  };
}
