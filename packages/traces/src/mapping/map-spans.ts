import type { SpanRecord } from '../span-record.ts';
import { assembleTrace } from './assemble-trace.ts';
import { genAiMapper } from './gen-ai-mapper.ts';
import { openInferenceMapper } from './openinference-mapper.ts';
import type { MappedTrace, TraceMapper } from './trace-mapper.ts';

/** Every convention the intake reads; a new one is one more file behind TraceMapper. */
export const TRACE_MAPPERS: readonly TraceMapper[] = [openInferenceMapper, genAiMapper];

/** One call's spans → the contract's Trace (or the gaps that keep it from being one); null when no mapper reads them. */
export function mapSpans(
  traceId: string,
  spans: readonly SpanRecord[],
  mappers: readonly TraceMapper[] = TRACE_MAPPERS,
): MappedTrace | null {
  const mapper = mappers.find((m) => m.claims(spans));
  if (mapper === undefined) return null;
  const parts = mapper.parts(spans);
  if ('missing' in parts)
    return { trace_id: traceId, convention: mapper.convention, trace: null, gaps: parts.missing, ignored: parts.ignored };
  return assembleTrace(traceId, mapper.convention, parts, spans);
}
