import type { z } from 'zod';
import { ContractViolationError, RagHttpError, RagResponseTooLargeError, RagUnreachableError } from './errors.ts';
import { DEFAULT_MAX_RESPONSE_BYTES, ResponseTooLargeError, readTextCapped } from './read-capped.ts';
import {
  AnswerValidationRequest,
  Capabilities,
  ErrorBody,
  GeneratorPinRequest,
  Health,
  KnowledgeFreshness,
  KnowledgeSourceRequest,
  ParserRepairRequest,
  QueryRequest,
  QueryResponse,
  QueryRewriteRules,
  ReindexRequest,
  RepairResult,
  RerankerPinRequest,
  Trace,
  describeIssues,
} from './schemas.ts';

export interface RagClientOptions {
  /** Base URL of the RAG, e.g. http://127.0.0.1:18400 */
  baseUrl: string;
  /** Per-call timeout (default 10 s); a caller's own signal aborts too. */
  timeoutMs?: number;
  /** Largest response body read (default 2 MiB); a longer one aborts the read with a RagResponseTooLargeError. */
  maxResponseBytes?: number;
  fetch?: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Headers of this call only, e.g. a probe's W3C `traceparent`. */
  headers?: Readonly<Record<string, string>>;
}

/**
 * A typed client for any RAG that serves the health contract. Requests are validated before they are
 * sent and responses after they arrive, so a drifting RAG is reported as a ContractViolationError
 * naming the field instead of surfacing later as an undefined.
 */
export class RagClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: RagClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.fetchImpl = options.fetch ?? fetch;
  }

  query(request: QueryRequest, options?: CallOptions): Promise<QueryResponse> {
    return this.call('query', 'POST', '/query', QueryRequest, request, QueryResponse, options);
  }

  trace(traceId: string, options?: CallOptions): Promise<Trace> {
    return this.call('getTrace', 'GET', `/traces/${encodeURIComponent(traceId)}`, undefined, undefined, Trace, options);
  }

  health(options?: CallOptions): Promise<Health> {
    return this.call('health', 'GET', '/healthz', undefined, undefined, Health, options);
  }

  capabilities(options?: CallOptions): Promise<Capabilities> {
    return this.call('capabilities', 'GET', '/capabilities', undefined, undefined, Capabilities, options);
  }

  /** The optional freshness lookup: the feed's and the index's newest version of one knowledge id (404 when not served). */
  knowledgeFreshness(knowledgeId: string, options?: CallOptions): Promise<KnowledgeFreshness> {
    return this.call(
      'knowledgeFreshness',
      'GET',
      `/knowledge/${encodeURIComponent(knowledgeId)}`,
      undefined,
      undefined,
      KnowledgeFreshness,
      options,
    );
  }

  reindex(request: ReindexRequest, options?: CallOptions): Promise<RepairResult> {
    return this.call('reindex', 'POST', '/repair/reindex', ReindexRequest, request, RepairResult, options);
  }

  pinReranker(request: RerankerPinRequest, options?: CallOptions): Promise<RepairResult> {
    return this.call('pinReranker', 'POST', '/repair/reranker/pin', RerankerPinRequest, request, RepairResult, options);
  }

  knowledgeSource(request: KnowledgeSourceRequest, options?: CallOptions): Promise<RepairResult> {
    return this.call('knowledgeSource', 'POST', '/repair/knowledge-source', KnowledgeSourceRequest, request, RepairResult, options);
  }

  answerValidation(request: AnswerValidationRequest, options?: CallOptions): Promise<RepairResult> {
    return this.call('answerValidation', 'POST', '/repair/answer-validation', AnswerValidationRequest, request, RepairResult, options);
  }

  setQueryRewriteRules(request: QueryRewriteRules, options?: CallOptions): Promise<RepairResult> {
    return this.call('setQueryRewriteRules', 'PUT', '/repair/query-rewrite-rules', QueryRewriteRules, request, RepairResult, options);
  }

  getQueryRewriteRules(options?: CallOptions): Promise<QueryRewriteRules> {
    return this.call('getQueryRewriteRules', 'GET', '/repair/query-rewrite-rules', undefined, undefined, QueryRewriteRules, options);
  }

  repairParser(request: ParserRepairRequest, options?: CallOptions): Promise<RepairResult> {
    return this.call('repairParser', 'POST', '/repair/parser', ParserRepairRequest, request, RepairResult, options);
  }

  pinGenerator(request: GeneratorPinRequest, options?: CallOptions): Promise<RepairResult> {
    return this.call('pinGenerator', 'POST', '/repair/generator/pin', GeneratorPinRequest, request, RepairResult, options);
  }

  private async call<Req, Res>(
    operation: string,
    method: string,
    path: string,
    requestSchema: z.ZodType<Req> | undefined,
    request: Req | undefined,
    responseSchema: z.ZodType<Res>,
    options: CallOptions = {},
  ): Promise<Res> {
    let body: string | undefined;
    if (requestSchema !== undefined) {
      const checked = requestSchema.safeParse(request);
      if (!checked.success) throw new ContractViolationError(operation, 'request', describeIssues(checked.error));
      body = JSON.stringify(checked.data);
    }
    const url = `${this.baseUrl}${path}`;
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs);
    const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(url, {
        method,
        signal,
        ...(body === undefined ? {} : { body }),
        headers: { ...options.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      });
      text = await readTextCapped(response, this.maxResponseBytes, url);
    } catch (error) {
      if (error instanceof ResponseTooLargeError) throw new RagResponseTooLargeError(operation, url, error.limitBytes);
      if (options.signal?.aborted) throw error;
      const timedOut = timeout.aborted || (error instanceof Error && error.name === 'TimeoutError');
      throw new RagUnreachableError(operation, url, timedOut ? 'timeout' : 'network', error);
    }
    const json = parseJson(text);
    if (!response.ok) {
      const error = ErrorBody.safeParse(json);
      throw new RagHttpError(response.status, operation, error.success ? error.data.error : text.slice(0, 200), json ?? text);
    }
    const checked = responseSchema.safeParse(json);
    if (!checked.success) throw new ContractViolationError(operation, 'response', describeIssues(checked.error));
    return checked.data;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
