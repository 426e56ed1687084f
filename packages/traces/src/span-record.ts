/**
 * One OpenTelemetry span as the intake keeps it: ids as lowercase hex, times in epoch ms, attributes
 * flattened to JSON values (OTLP's AnyValue: strings, numbers, booleans, arrays, maps), the resource's
 * attributes beside it. The store and the mappers read only this shape, whichever encoding it came in.
 */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

export type SpanKind = 'unspecified' | 'internal' | 'server' | 'client' | 'producer' | 'consumer';

export interface SpanEvent {
  name: string;
  time_ms: number;
  attributes: Attributes;
}

export interface SpanRecord {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: SpanKind;
  start_ms: number;
  end_ms: number;
  status: 'unset' | 'ok' | 'error';
  attributes: Attributes;
  /** Attributes the SDK dropped (its attribute count limit, 128 by default): the span's lists are then incomplete. */
  dropped_attributes_count: number;
  events: SpanEvent[];
  resource: Attributes;
  scope: { name: string; version: string };
  /**
   * The span's W3C `tracestate` (OTLP Span.trace_state), when it has one: a RAG continuing the
   * caller's context carries the caller's entries, e.g. the sentinel's `rag-immune=probe`.
   */
  trace_state?: string;
}

export const SPAN_KINDS: readonly SpanKind[] = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

/** A string attribute, or undefined when absent or of another type. */
export function stringAttribute(attributes: Attributes, key: string): string | undefined {
  const value = attributes[key];
  return typeof value === 'string' ? value : undefined;
}

/** A numeric attribute (OTLP int64 arrives as a decimal string in JSON; both are accepted). */
export function numberAttribute(attributes: Attributes, key: string): number | undefined {
  const value = attributes[key];
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}
