/**
 * W3C Trace Context for probes: the sentinel sends a fresh `traceparent` with each probe query, so
 * the trace id under which the RAG's spans of that call arrive is known before it answers, and its
 * entry span (the child of the parent id sent) tells that the call's spans are all in.
 */
import { randomBytes } from 'node:crypto';

export interface ProbeTraceContext {
  trace_id: string;
  /** The span id sent as parent: the RAG's entry span names it as its parent. */
  parent_span_id: string;
  traceparent: string;
  /**
   * The W3C `tracestate` sent beside it: `rag-immune=probe`. A RAG continuing the context carries it
   * on every span (OTLP Span.trace_state), which is how the trace intake tells probe spans from users'.
   */
  tracestate: string;
}

/** The tracestate list member that marks a call as the sentinel's (vendor key `rag-immune`). */
export const PROBE_TRACESTATE_KEY = 'rag-immune';
export const PROBE_TRACESTATE = `${PROBE_TRACESTATE_KEY}=probe`;

/** The headers a probe call sends: its traceparent and the probe mark. */
export function probeTraceHeaders(traced: ProbeTraceContext): Record<string, string> {
  return { traceparent: traced.traceparent, tracestate: traced.tracestate };
}

/**
 * Whether a span's tracestate claims the probe mark. W3C tracestate is a comma-separated list of
 * `key=value` members (optional whitespace around each); only an exact `rag-immune=probe` member or
 * a signed `rag-immune=probe:<issued>:<mac>` counts. A claim only: whether the mark verifies is the
 * trace intake's `ProbeMarkVerifier` (probe-mark.ts).
 */
export function isProbeTraceState(traceState: string | null | undefined): boolean {
  if (traceState === null || traceState === undefined || traceState === '') return false;
  return traceState.split(',').some((raw) => {
    const member = raw.trim();
    return member === PROBE_TRACESTATE || member.startsWith(`${PROBE_TRACESTATE}:`);
  });
}

/** Where a span came from: a sentinel probe (or a replay through the probe runner) or a user. */
export type SpanOrigin = 'probe' | 'user';

export function spanOrigin(span: { trace_state?: string }): SpanOrigin {
  return isProbeTraceState(span.trace_state) ? 'probe' : 'user';
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

function nonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(hex)) return hex;
  }
}

/**
 * A new root context, sampled (flag 01) so a parent-based sampler in the RAG records the call. With
 * a signer (PROBE_MARK_KEY set) the mark is signed over the trace id, so the intake can verify it.
 */
export function newProbeTraceContext(signer?: { member(traceId: string): string }): ProbeTraceContext {
  const traceId = nonZeroHex(16);
  const parentSpanId = nonZeroHex(8);
  return {
    trace_id: traceId,
    parent_span_id: parentSpanId,
    traceparent: `00-${traceId}-${parentSpanId}-01`,
    tracestate: signer === undefined ? PROBE_TRACESTATE : signer.member(traceId),
  };
}

/** The ids of a version-00 traceparent; null for anything else (all-zero ids are invalid). */
export function parseTraceparent(header: string | null | undefined): ProbeTraceContext | null {
  const match = header === null || header === undefined ? null : TRACEPARENT.exec(header.trim());
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return null;
  return { trace_id: match[1]!, parent_span_id: match[2]!, traceparent: header!.trim(), tracestate: PROBE_TRACESTATE };
}
