export type { AttributeValue, Attributes, SpanEvent, SpanKind, SpanRecord } from './span-record.ts';
export { decodeJsonExport, decodeProtobufExport, OtlpDecodeError, type DecodedExport } from './otlp/decode-request.ts';
export { ExportTraceServiceRequest, ExportTraceServiceResponse } from './otlp/otlp-proto.ts';
export { classifySpan, type Convention, type SpanUse } from './mapping/span-conventions.ts';
// The mapper interface whole: what a trace mapper returns and the pieces a trace may lack.
export * from './mapping/trace-mapper.ts';
export { EXTENSION, extensionCitations } from './mapping/extensions.ts';
export { mapSpans, TRACE_MAPPERS } from './mapping/map-spans.ts';
export { openInferenceMapper } from './mapping/openinference-mapper.ts';
export { genAiMapper } from './mapping/gen-ai-mapper.ts';
export { InMemorySpanStore, MAX_SPANS_PER_TRACE, type SpanStore } from './store/span-store.ts';
export { ElasticsearchSpanStore, SPAN_MAPPINGS, probeSpansIndex, userSpansIndex, type SpanDoc } from './store/elasticsearch-span-store.ts';
export {
  isProbeTraceState,
  newProbeTraceContext,
  parseTraceparent,
  PROBE_TRACESTATE,
  PROBE_TRACESTATE_KEY,
  probeTraceHeaders,
  spanOrigin,
  type ProbeTraceContext,
  type SpanOrigin,
} from './traceparent.ts';
export {
  PROBE_MARK_MIN_KEY_LENGTH,
  ProbeMarkSigner,
  ProbeMarkVerifier,
  probeMarkValue,
  type ProbeMarkCheck,
  type ProbeMarkVerifierOptions,
} from './probe-mark.ts';
export { redactSpanText, USER_TEXT_ATTRIBUTES, type TextRedactor } from './user-span-text.ts';
export { ProbeTraceReader, type ProbeTraceRead, type ProbeTraceReaderOptions } from './probe-trace-reader.ts';
