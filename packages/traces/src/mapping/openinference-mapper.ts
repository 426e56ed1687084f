/**
 * OpenInference (Arize Phoenix; what `@arizeai/openinference-instrumentation-*` emit): CHAIN spans
 * around the call, RETRIEVER spans with `retrieval.documents.*`, RERANKER spans with
 * `reranker.{input,output}_documents.*`, LLM spans with `llm.*` messages and model name. LangChain's
 * compression retriever shows as a RETRIEVER around a RETRIEVER: the inner one lists the candidates,
 * the outer one the reranked documents.
 */
import * as oi from '@arizeai/openinference-semantic-conventions';
import { stringAttribute, type SpanRecord } from '../span-record.ts';
import { parseJsonObject } from './extensions.ts';
import { classifySpan, OPENINFERENCE_KIND } from './span-conventions.ts';
import { flattenedDocuments } from './span-documents.ts';
import { SpanTree } from './span-tree.ts';
import type { TraceMapper, TraceParts } from './trace-mapper.ts';

const kindOf = (span: SpanRecord) => stringAttribute(span.attributes, OPENINFERENCE_KIND)?.toUpperCase();

/** input.value / output.value as text: the string itself, or a text field of its JSON. */
function textValue(span: SpanRecord | undefined, key: string, fields: readonly string[]): string | undefined {
  const value = span === undefined ? undefined : stringAttribute(span.attributes, key);
  if (value === undefined) return undefined;
  const mime = stringAttribute(span!.attributes, `${key.split('.')[0]}.mime_type`);
  if (mime !== 'application/json') return value;
  const parsed = parseJsonObject(value);
  for (const field of fields) if (typeof parsed[field] === 'string') return parsed[field] as string;
  return undefined;
}

/** The assistant's text in `llm.output_messages.*` (plain content, or the text parts of `contents`). */
function outputMessage(span: SpanRecord | undefined): string | undefined {
  if (span === undefined) return undefined;
  const prefix = oi.LLM_OUTPUT_MESSAGES;
  const plain = stringAttribute(span.attributes, `${prefix}.0.${oi.MESSAGE_CONTENT}`);
  if (plain !== undefined) return plain;
  const parts = Object.entries(span.attributes)
    .filter(([key]) => new RegExp(`^${prefix.replace('.', '\\.')}\\.0\\.message\\.contents\\.\\d+\\.message_content\\.text$`).test(key))
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([, value]) => String(value));
  return parts.length > 0 ? parts.join('') : undefined;
}

export const openInferenceMapper: TraceMapper = {
  convention: 'openinference',
  claims: (spans) => spans.some((span) => kindOf(span) !== undefined),
  parts(spans) {
    const tree = new SpanTree(spans);
    const ignored: Record<string, number> = {};
    const read = spans.filter((span) => {
      const use = classifySpan(span);
      if (use.use === 'ignored')
        ignored[`${use.reason}:${use.kind ?? span.name}`] = (ignored[`${use.reason}:${use.kind ?? span.name}`] ?? 0) + 1;
      return use.use === 'read' && use.convention === 'openinference';
    });
    const ofKind = (kind: string) => read.filter((span) => kindOf(span) === kind);
    const chains = ofKind('CHAIN');
    const root = tree.outermost(chains.length > 0 ? chains : read);
    if (root === undefined) return { missing: [{ piece: 'query', detail: 'no OpenInference span this mapper reads' }], ignored };

    const retrievers = ofKind('RETRIEVER');
    const candidatesSpan = tree.innermost(retrievers);
    const outerRetriever = tree.outermost(retrievers);
    const rerankSpan = tree.last(ofKind('RERANKER'));
    const generateSpan = tree.last(ofKind('LLM'));
    const embedSpan = tree.innermost(ofKind('EMBEDDING'));

    const candidates = candidatesSpan && (flattenedDocuments(candidatesSpan.attributes, oi.RETRIEVAL_DOCUMENTS) ?? []);
    let reranked: TraceParts['reranked'];
    let context: TraceParts['context'];
    if (rerankSpan !== undefined) {
      reranked = flattenedDocuments(rerankSpan.attributes, oi.RERANKER_OUTPUT_DOCUMENTS) ?? [];
      const topK = rerankSpan.attributes[oi.RERANKER_TOP_K];
      context = typeof topK === 'number' && topK > 0 ? reranked.slice(0, topK) : reranked;
    } else if (outerRetriever !== undefined && outerRetriever.span_id !== candidatesSpan?.span_id) {
      reranked = flattenedDocuments(outerRetriever.attributes, oi.RETRIEVAL_DOCUMENTS) ?? [];
      context = reranked;
    } else context = candidates;

    return {
      root,
      query:
        textValue(root, oi.INPUT_VALUE, ['query', 'question', 'input', 'text']) ??
        stringAttribute(candidatesSpan?.attributes ?? {}, oi.INPUT_VALUE),
      rewritten_query: candidatesSpan === undefined ? undefined : stringAttribute(candidatesSpan.attributes, oi.INPUT_VALUE),
      candidates,
      candidatesSpan,
      reranked,
      rerankSpan: rerankSpan ?? (reranked === undefined ? undefined : outerRetriever),
      context,
      answer: textValue(root, oi.OUTPUT_VALUE, ['answer', 'output', 'text']) ?? outputMessage(generateSpan),
      models: {
        embedder: embedSpan && stringAttribute(embedSpan.attributes, oi.EMBEDDING_MODEL_NAME),
        reranker: rerankSpan && stringAttribute(rerankSpan.attributes, oi.RERANKER_MODEL_NAME),
        generator: generateSpan && stringAttribute(generateSpan.attributes, oi.LLM_MODEL_NAME),
      },
      embedSpan,
      generateSpan,
      ignored,
    };
  },
};
