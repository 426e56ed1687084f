/**
 * OTel GenAI semantic conventions (`gen_ai.*`, what the Vercel AI SDK, LlamaIndex.TS and OpenLLMetry
 * instrumentations emit): `gen_ai.operation.name` retrieval (`gen_ai.retrieval.query.text`,
 * `gen_ai.retrieval.documents`), chat / text_completion / generate_content (`gen_ai.request.model`,
 * `gen_ai.output.messages`) and embeddings. The conventions have no rerank operation: a retrieval
 * span around another is read as the reranked stage, as for OpenInference.
 */
import { stringAttribute, type AttributeValue, type SpanRecord } from '../span-record.ts';
import { classifySpan, GEN_AI_OPERATION } from './span-conventions.ts';
import { structuredDocuments } from './span-documents.ts';
import { SpanTree } from './span-tree.ts';
import type { TraceMapper, TraceParts } from './trace-mapper.ts';

const operationOf = (span: SpanRecord) => stringAttribute(span.attributes, GEN_AI_OPERATION);
const GENERATION = new Set(['chat', 'text_completion', 'generate_content']);

/** The text parts of the first assistant message of `gen_ai.output.messages` (structured or JSON). */
function assistantText(value: AttributeValue | undefined): string | undefined {
  let messages: unknown = value;
  if (typeof value === 'string') {
    try {
      messages = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(messages)) return undefined;
  for (const message of messages as { role?: unknown; parts?: unknown }[]) {
    if (message?.role !== 'assistant' || !Array.isArray(message.parts)) continue;
    const texts = (message.parts as { type?: unknown; content?: unknown }[])
      .filter((part) => part?.type === 'text' && typeof part.content === 'string')
      .map((part) => part.content as string);
    if (texts.length > 0) return texts.join('');
  }
  return undefined;
}

const modelOf = (span: SpanRecord | undefined) =>
  span === undefined
    ? undefined
    : (stringAttribute(span.attributes, 'gen_ai.response.model') ?? stringAttribute(span.attributes, 'gen_ai.request.model'));

export const genAiMapper: TraceMapper = {
  convention: 'gen_ai',
  claims: (spans) => spans.some((span) => operationOf(span) !== undefined),
  parts(spans) {
    const tree = new SpanTree(spans);
    const ignored: Record<string, number> = {};
    const read: SpanRecord[] = [];
    const entries: SpanRecord[] = [];
    for (const span of spans) {
      const use = classifySpan(span);
      if (use.use === 'read' && use.convention === 'gen_ai') read.push(span);
      else if (use.use === 'entry') entries.push(span);
      else if (use.use === 'ignored')
        ignored[`${use.reason}:${use.kind ?? span.name}`] = (ignored[`${use.reason}:${use.kind ?? span.name}`] ?? 0) + 1;
    }
    const root = tree.outermost([...entries, ...read]);
    if (root === undefined) return { missing: [{ piece: 'query', detail: 'no gen_ai span this mapper reads' }], ignored };

    const retrievals = read.filter((span) => operationOf(span) === 'retrieval');
    const candidatesSpan = tree.innermost(retrievals);
    const outer = tree.outermost(retrievals);
    const generateSpan = tree.last(read.filter((span) => GENERATION.has(operationOf(span) ?? '')));
    const embedSpan = tree.innermost(read.filter((span) => operationOf(span) === 'embeddings'));
    const candidates = candidatesSpan && (structuredDocuments(candidatesSpan.attributes['gen_ai.retrieval.documents']) ?? []);
    const nested = outer !== undefined && outer.span_id !== candidatesSpan?.span_id;
    const reranked: TraceParts['reranked'] = nested
      ? (structuredDocuments(outer.attributes['gen_ai.retrieval.documents']) ?? [])
      : undefined;
    const retrievalQuery = candidatesSpan && stringAttribute(candidatesSpan.attributes, 'gen_ai.retrieval.query.text');

    return {
      root,
      query: (nested ? stringAttribute(outer.attributes, 'gen_ai.retrieval.query.text') : undefined) ?? retrievalQuery,
      rewritten_query: retrievalQuery,
      candidates,
      candidatesSpan,
      reranked,
      rerankSpan: nested ? outer : undefined,
      context: reranked ?? candidates,
      answer: generateSpan && assistantText(generateSpan.attributes['gen_ai.output.messages']),
      models: { embedder: modelOf(embedSpan), reranker: undefined, generator: modelOf(generateSpan) },
      embedSpan,
      generateSpan,
      ignored,
    };
  },
};
