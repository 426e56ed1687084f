/**
 * OTLP/HTTP trace export bodies → SpanRecords. Both encodings go through the official message type
 * (protobufjs over the vendored opentelemetry-proto): protobuf is decoded by it; JSON is checked and
 * converted by it after the one deviation OTLP/JSON makes from the proto3 JSON mapping (trace and
 * span ids are hex, not base64). Nothing here parses OTLP by hand.
 */
import { ExportTraceServiceRequest } from './otlp-proto.ts';
import { SPAN_KINDS, type AttributeValue, type Attributes, type SpanRecord } from '../span-record.ts';

/** A body that is not a valid ExportTraceServiceRequest; the message says what is wrong. */
export class OtlpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpDecodeError';
  }
}

export interface DecodedExport {
  spans: SpanRecord[];
  /** Spans refused one by one (wrong id lengths): OTLP's partial success `rejected_spans`. */
  rejected: number;
  rejectReasons: string[];
}

interface PbAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values?: PbAnyValue[] };
  kvlistValue?: { values?: PbKeyValue[] };
  bytesValue?: Uint8Array;
}
interface PbKeyValue {
  key?: string;
  value?: PbAnyValue;
}
interface PbSpan {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  traceState?: string;
  parentSpanId?: Uint8Array;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: PbKeyValue[];
  droppedAttributesCount?: number;
  events?: { timeUnixNano?: string; name?: string; attributes?: PbKeyValue[] }[];
  status?: { code?: number };
}
interface PbRequest {
  resourceSpans?: {
    resource?: { attributes?: PbKeyValue[] };
    scopeSpans?: { scope?: { name?: string; version?: string }; spans?: PbSpan[] }[];
  }[];
}

const TO_OBJECT = { longs: String, enums: Number, defaults: false, arrays: true } as const;

export function decodeProtobufExport(body: Uint8Array): DecodedExport {
  let message;
  try {
    message = ExportTraceServiceRequest.decode(body);
  } catch (error) {
    throw new OtlpDecodeError(`body is not an OTLP ExportTraceServiceRequest in protobuf: ${(error as Error).message}`);
  }
  return toSpans(ExportTraceServiceRequest.toObject(message, TO_OBJECT) as PbRequest);
}

export function decodeJsonExport(body: unknown): DecodedExport {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new OtlpDecodeError('body is not an OTLP ExportTraceServiceRequest in JSON: expected an object with resourceSpans');
  let message;
  try {
    // fromObject follows the proto3 JSON mapping (int64 as decimal strings, enums as numbers) and
    // throws on a wrong structure; verify then checks the converted message's field types.
    message = ExportTraceServiceRequest.fromObject(hexIdsToBytes(body) as Record<string, unknown>);
  } catch (error) {
    throw new OtlpDecodeError(`body is not an OTLP ExportTraceServiceRequest in JSON: ${(error as Error).message.replace(/^\./, '')}`);
  }
  const problem = ExportTraceServiceRequest.verify(message);
  if (problem !== null) throw new OtlpDecodeError(`body is not an OTLP ExportTraceServiceRequest in JSON: ${problem}`);
  return toSpans(ExportTraceServiceRequest.toObject(message, TO_OBJECT) as PbRequest);
}

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** OTLP/JSON writes trace and span ids as hex (spec: "not base64"); the message type wants bytes. */
function hexIdsToBytes(value: unknown, key?: string): unknown {
  if (key !== undefined && ID_FIELDS.has(key)) {
    if (typeof value !== 'string') throw new OtlpDecodeError(`${key} must be a hex string, not ${JSON.stringify(value)?.slice(0, 40)}`);
    if (!/^([0-9a-fA-F]{2})*$/.test(value)) throw new OtlpDecodeError(`${key} "${value.slice(0, 40)}" is not hex`);
    return Buffer.from(value, 'hex');
  }
  if (Array.isArray(value)) return value.map((item) => hexIdsToBytes(item));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hexIdsToBytes(v, k)]));
  return value;
}

const hex = (bytes: Uint8Array | undefined) => (bytes === undefined ? '' : Buffer.from(bytes).toString('hex'));
/** Nanoseconds (decimal string) → epoch milliseconds, keeping microseconds. */
const nanosToMs = (nanos: string | undefined) => (nanos === undefined ? 0 : Number(BigInt(nanos) / 1000n) / 1000);

function anyValue(value: PbAnyValue | undefined): AttributeValue {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(anyValue);
  if (value.kvlistValue !== undefined) return attributes(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return Buffer.from(value.bytesValue).toString('base64');
  return null;
}

function attributes(list: PbKeyValue[] | undefined): Attributes {
  const out: Attributes = {};
  for (const { key, value } of list ?? []) if (key !== undefined && key !== '') out[key] = anyValue(value);
  return out;
}

function toSpans(request: PbRequest): DecodedExport {
  const spans: SpanRecord[] = [];
  const rejectReasons: string[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributes(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = { name: scopeSpans.scope?.name ?? '', version: scopeSpans.scope?.version ?? '' };
      for (const span of scopeSpans.spans ?? []) {
        const traceId = hex(span.traceId);
        const spanId = hex(span.spanId);
        const parent = hex(span.parentSpanId);
        // The spec: ids of another length are invalid (all zeroes too); such a span cannot be found again.
        if (!/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId)) {
          rejectReasons.push(`span "${span.name ?? ''}": trace id must be 16 non-zero bytes`);
          continue;
        }
        if (!/^[0-9a-f]{16}$/.test(spanId) || /^0+$/.test(spanId)) {
          rejectReasons.push(`span "${span.name ?? ''}": span id must be 8 non-zero bytes`);
          continue;
        }
        spans.push({
          trace_id: traceId,
          span_id: spanId,
          parent_span_id: parent === '' || /^0+$/.test(parent) ? null : parent,
          name: span.name ?? '',
          kind: SPAN_KINDS[span.kind ?? 0] ?? 'unspecified',
          start_ms: nanosToMs(span.startTimeUnixNano),
          end_ms: nanosToMs(span.endTimeUnixNano),
          status: span.status?.code === 1 ? 'ok' : span.status?.code === 2 ? 'error' : 'unset',
          attributes: attributes(span.attributes),
          dropped_attributes_count: span.droppedAttributesCount ?? 0,
          events: (span.events ?? []).map((event) => ({
            name: event.name ?? '',
            time_ms: nanosToMs(event.timeUnixNano),
            attributes: attributes(event.attributes),
          })),
          resource,
          scope,
          ...(span.traceState ? { trace_state: span.traceState } : {}),
        });
      }
    }
  }
  return { spans, rejected: rejectReasons.length, rejectReasons };
}
