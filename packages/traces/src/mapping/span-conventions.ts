/**
 * Which semantic convention a span speaks, and whether a mapper reads its kind. The intake keeps the
 * spans a mapper reads (and the RAG's entry span, which tells that a call's spans are all in); spans
 * of unknown or unread kinds are dropped there and counted by reason.
 */
import { stringAttribute, type SpanRecord } from '../span-record.ts';

export type Convention = 'openinference' | 'gen_ai';

/** OpenInference span kinds the mapper reads, and those it knows but has no use for. */
export const OPENINFERENCE_READ = ['CHAIN', 'RETRIEVER', 'RERANKER', 'LLM', 'EMBEDDING'] as const;
const OPENINFERENCE_UNREAD = ['TOOL', 'AGENT', 'GUARDRAIL', 'EVALUATOR', 'PROMPT', 'UNKNOWN'];
/** OTel GenAI operations the mapper reads (gen_ai.operation.name). */
export const GEN_AI_READ = ['retrieval', 'chat', 'text_completion', 'generate_content', 'embeddings'] as const;
const GEN_AI_UNREAD = ['execute_tool', 'invoke_agent', 'create_agent', 'invoke_workflow'];

export type SpanUse =
  | { use: 'read'; convention: Convention; kind: string }
  /** The RAG's request entry (an HTTP server span): kept so a reader knows the call has ended. */
  | { use: 'entry' }
  | { use: 'ignored'; reason: 'unknown_kind' | 'unread_kind' | 'no_convention'; convention: Convention | null; kind: string | null };

export const OPENINFERENCE_KIND = 'openinference.span.kind';
export const GEN_AI_OPERATION = 'gen_ai.operation.name';

export function classifySpan(span: SpanRecord): SpanUse {
  const openinference = stringAttribute(span.attributes, OPENINFERENCE_KIND)?.toUpperCase();
  if (openinference !== undefined) {
    if ((OPENINFERENCE_READ as readonly string[]).includes(openinference))
      return { use: 'read', convention: 'openinference', kind: openinference };
    return {
      use: 'ignored',
      reason: OPENINFERENCE_UNREAD.includes(openinference) ? 'unread_kind' : 'unknown_kind',
      convention: 'openinference',
      kind: openinference,
    };
  }
  const operation = stringAttribute(span.attributes, GEN_AI_OPERATION);
  if (operation !== undefined) {
    if ((GEN_AI_READ as readonly string[]).includes(operation)) return { use: 'read', convention: 'gen_ai', kind: operation };
    return {
      use: 'ignored',
      reason: GEN_AI_UNREAD.includes(operation) ? 'unread_kind' : 'unknown_kind',
      convention: 'gen_ai',
      kind: operation,
    };
  }
  if (span.kind === 'server') return { use: 'entry' };
  return { use: 'ignored', reason: 'no_convention', convention: null, kind: null };
}
