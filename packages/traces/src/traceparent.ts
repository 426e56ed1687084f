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
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

function nonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (!/^0+$/.test(hex)) return hex;
  }
}

/** A new root context, sampled (flag 01) so a parent-based sampler in the RAG records the call. */
export function newProbeTraceContext(): ProbeTraceContext {
  const traceId = nonZeroHex(16);
  const parentSpanId = nonZeroHex(8);
  return { trace_id: traceId, parent_span_id: parentSpanId, traceparent: `00-${traceId}-${parentSpanId}-01` };
}

/** The ids of a version-00 traceparent; null for anything else (all-zero ids are invalid). */
export function parseTraceparent(header: string | null | undefined): ProbeTraceContext | null {
  const match = header === null || header === undefined ? null : TRACEPARENT.exec(header.trim());
  if (!match || /^0+$/.test(match[1]!) || /^0+$/.test(match[2]!)) return null;
  return { trace_id: match[1]!, parent_span_id: match[2]!, traceparent: header!.trim() };
}
