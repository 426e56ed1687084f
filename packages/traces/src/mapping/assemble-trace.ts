/**
 * TraceParts → the health contract's Trace, the same way for every convention. Versioned knowledge
 * travels as document metadata under the contract's names (doc_id, chunk_id, knowledge_id, version,
 * source, source_trust, updated_at, valid_from, valid_until); scores come from the span's document
 * score or, where an instrumentation records none (LangChain's), from `retrieval_score` /
 * `rerank_score` in the metadata. What is missing is reported, not filled in.
 */
import { Trace, describeIssues, type Chunk, type ScoredCandidate } from '@rag-immune/rag-contract';
import type { SpanRecord } from '../span-record.ts';
import { EXTENSION, extension, extensionCitations, extensionString } from './extensions.ts';
import type { Convention } from './span-conventions.ts';
import {
  BLOCKING_PIECES,
  UNREPORTED_MODEL,
  type MappedTrace,
  type ObservedCall,
  type ObservedDocument,
  type SpanDocument,
  type TraceGap,
  type TraceParts,
} from './trace-mapper.ts';

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
const finite = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value)
    ? value
    : typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))
      ? Number(value)
      : undefined;
/** Any parseable time as RFC 3339 UTC; undefined when it is none. */
function utc(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

const chunkIdOf = (doc: SpanDocument) => text(doc.metadata.chunk_id) ?? doc.id;

/** The documents as the span lists them, each key present only when the span carries it. */
const observedDocuments = (docs: readonly SpanDocument[] | undefined): ObservedDocument[] =>
  (docs ?? []).map((doc, i) => ({
    rank: i + 1,
    ...(doc.id === undefined ? {} : { id: doc.id }),
    ...(doc.score === undefined ? {} : { score: doc.score }),
    ...(doc.content === undefined ? {} : { content: doc.content }),
    metadata: doc.metadata,
  }));

function observedCall(
  parts: TraceParts,
  query: string | undefined,
  models: Partial<Record<'embedder' | 'reranker' | 'generator', string>>,
): ObservedCall {
  return {
    ...(query === undefined ? {} : { query }),
    ...(parts.answer === undefined ? {} : { answer: parts.answer }),
    retrieved: observedDocuments(parts.candidates),
    context: observedDocuments(parts.context),
    models: Object.fromEntries(Object.entries(models).filter(([, name]) => name !== undefined && name !== UNREPORTED_MODEL)),
  };
}
const duration = (span: SpanRecord | undefined) => (span === undefined ? undefined : Math.max(0, span.end_ms - span.start_ms));

export function assembleTrace(traceId: string, convention: Convention, parts: TraceParts, spans: readonly SpanRecord[]): MappedTrace {
  const gaps: TraceGap[] = [];
  const gap = (piece: TraceGap['piece'], detail: string) => {
    if (!gaps.some((g) => g.piece === piece && g.detail === detail)) gaps.push({ piece, detail });
  };

  for (const span of [parts.root, parts.candidatesSpan, parts.rerankSpan, parts.generateSpan])
    if (span !== undefined && span.dropped_attributes_count > 0)
      gap(
        'span_attributes',
        `span "${span.name}" dropped ${span.dropped_attributes_count} attributes (raise the SDK's OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT): its documents may be incomplete`,
      );
  const query = text(extension(spans, EXTENSION.query)) ?? parts.query;
  if (query === undefined) gap('query', 'no span carries the user query');
  const answer = parts.answer;
  if (answer === undefined) gap('answer', 'no generation span carries an answer');

  // Rerank scores by chunk, so candidates and context carry them as /traces does.
  const rerankScore = new Map<string, number>();
  for (const doc of parts.reranked ?? []) {
    const id = chunkIdOf(doc);
    const score = doc.score ?? finite(doc.metadata.rerank_score);
    if (id !== undefined && score !== undefined) rerankScore.set(id, score);
  }
  const retrievalScore = new Map<string, number>();
  /** A candidate or reranked entry, with its rerank score when the rerank step gave it one. */
  const scored = (id: string, knowledgeId: string, version: string, score: number, rank: number): ScoredCandidate => {
    const rerank = rerankScore.get(id);
    return {
      chunk_id: id,
      knowledge_id: knowledgeId,
      version,
      retrieval_score: score,
      ...(rerank === undefined ? {} : { rerank_score: rerank }),
      rank,
    };
  };

  const candidates: ScoredCandidate[] = [];
  if (parts.candidates === undefined || parts.candidates.length === 0)
    gap('candidates', parts.candidates === undefined ? 'no retrieval span' : 'the retrieval span lists no documents');
  for (const [i, doc] of (parts.candidates ?? []).entries()) {
    const id = chunkIdOf(doc);
    const score = doc.score ?? finite(doc.metadata.retrieval_score);
    const knowledgeId = text(doc.metadata.knowledge_id);
    const version = text(doc.metadata.version);
    if (id === undefined) gap('candidates', `retrieved document ${i} has neither document.id nor metadata.chunk_id`);
    if (score === undefined)
      gap('candidate_scores', `retrieved document ${id ?? i} has no score (document.score or metadata.retrieval_score)`);
    if (knowledgeId === undefined || version === undefined)
      gap('document_metadata', `retrieved document ${id ?? i} lacks knowledge_id or version in its metadata`);
    if (id === undefined || score === undefined || knowledgeId === undefined || version === undefined) continue;
    retrievalScore.set(id, score);
    candidates.push(scored(id, knowledgeId, version, score, i + 1));
  }

  const scoreForChunk = (doc: SpanDocument, id: string) =>
    retrievalScore.get(id) ?? finite(doc.metadata.retrieval_score) ?? (parts.reranked === undefined ? doc.score : undefined);

  const reranked: ScoredCandidate[] = [];
  if (parts.reranked === undefined) gap('reranked', 'no rerank step in the spans: the reranked order is left empty');
  for (const [i, doc] of (parts.reranked ?? []).entries()) {
    const id = chunkIdOf(doc);
    const knowledgeId = text(doc.metadata.knowledge_id);
    const version = text(doc.metadata.version);
    const score = id === undefined ? undefined : scoreForChunk(doc, id);
    if (id === undefined || knowledgeId === undefined || version === undefined || score === undefined) {
      gap('reranked', `reranked document ${id ?? i} lacks its id, knowledge_id, version or retrieval score`);
      continue;
    }
    reranked.push(scored(id, knowledgeId, version, score, i + 1));
  }

  const context: Chunk[] = [];
  if (parts.context === undefined) gap('context', 'no span shows what reached the generator');
  for (const [i, doc] of (parts.context ?? []).entries()) {
    const m = doc.metadata;
    const id = chunkIdOf(doc);
    const fields = {
      doc_id: text(m.doc_id),
      knowledge_id: text(m.knowledge_id),
      version: text(m.version),
      source: text(m.source),
      source_trust: finite(m.source_trust),
      updated_at: utc(m.updated_at),
      valid_from: utc(m.valid_from),
    };
    const missing = Object.entries(fields)
      .filter(([, v]) => v === undefined)
      .map(([k]) => k);
    if (id === undefined) missing.unshift('chunk_id');
    if (doc.content === undefined) missing.push('content');
    const score = id === undefined ? undefined : scoreForChunk(doc, id);
    if (score === undefined) missing.push('retrieval_score');
    // valid_until null means open-ended in the contract; absent reads the same.
    const validUntil = m.valid_until === undefined || m.valid_until === null ? null : utc(m.valid_until);
    if (validUntil === undefined) missing.push('valid_until');
    if (missing.length > 0) {
      gap('document_metadata', `context document ${id ?? i} lacks ${missing.join(', ')}`);
      continue;
    }
    const rerank = rerankScore.get(id!);
    context.push({
      ...(fields as { [K in keyof typeof fields]: NonNullable<(typeof fields)[K]> }),
      chunk_id: id!,
      valid_until: validUntil!,
      retrieval_score: score!,
      ...(rerank === undefined ? {} : { rerank_score: rerank }),
      text: doc.content!,
    });
  }

  const citedIds = extensionCitations(spans);
  if (citedIds === undefined) gap('citations', `no span carries ${EXTENSION.citations}: which context chunks the answer cites is unknown`);
  const citations = (citedIds ?? []).flatMap((id) => {
    const chunk = context.find((c) => c.chunk_id === id);
    return chunk === undefined
      ? []
      : [{ chunk_id: chunk.chunk_id, doc_id: chunk.doc_id, knowledge_id: chunk.knowledge_id, version: chunk.version }];
  });

  // The RAG's own word on its build first: it names what its repair hooks pin (the LangChain RAG's
  // generator is `<model>+<prompt>`), where a framework span names only the model it called.
  const model = (role: 'embedder' | 'reranker' | 'generator') => {
    const name = extensionString(spans, EXTENSION[role]) ?? parts.models[role];
    if (name === undefined) gap(`models.${role}`, `no span names the ${role} model`);
    return name ?? UNREPORTED_MODEL;
  };
  const models = { embedder: model('embedder'), reranker: model('reranker'), generator: model('generator') };

  const asOf = utc(extension(spans, EXTENSION.asOf));
  if (asOf === undefined) gap('as_of', `no span carries ${EXTENSION.asOf}: the call is taken as answered as of its start`);
  const abstained = extension(spans, EXTENSION.abstained);

  const ignored = parts.ignored;
  const observed = observedCall(parts, query, models);
  if (gaps.some((g) => BLOCKING_PIECES.has(g.piece))) return { trace_id: traceId, convention, trace: null, gaps, ignored, observed };

  const optional = (key: string, value: number | undefined) => (value === undefined ? {} : { [key]: value });
  const candidate = {
    trace_id: traceId,
    created_at: new Date(parts.root.start_ms).toISOString(),
    query: query!,
    ...(parts.rewritten_query !== undefined && parts.rewritten_query !== query ? { rewritten_query: parts.rewritten_query } : {}),
    as_of: asOf ?? new Date(parts.root.start_ms).toISOString(),
    candidates,
    reranked,
    context,
    answer: answer!,
    ...(typeof abstained === 'boolean' ? { abstained } : {}),
    citations,
    models,
    timings: {
      ...optional('embed_ms', duration(parts.embedSpan)),
      ...optional('retrieve_ms', duration(parts.candidatesSpan)),
      ...optional('rerank_ms', duration(parts.rerankSpan)),
      ...optional('generate_ms', duration(parts.generateSpan)),
      total_ms: duration(parts.root)!,
    },
  };
  const checked = Trace.safeParse(candidate);
  if (!checked.success) {
    gaps.push({ piece: 'document_metadata', detail: `the spans do not make a contract Trace: ${describeIssues(checked.error)}` });
    return { trace_id: traceId, convention, trace: null, gaps, ignored, observed };
  }
  return { trace_id: traceId, convention, trace: checked.data, gaps, ignored, observed };
}
