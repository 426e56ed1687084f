/**
 * Where a probe call's trace comes from: the RAG's GET /traces/{id} (the contract's endpoint), or
 * its OpenTelemetry spans in the trace intake, found by the traceparent the sentinel sent. Which
 * one a RAG uses is its `GET /capabilities` `traces` (absent: endpoint), unless configured.
 */
import type { ProbeObservation } from '@rag-immune/contracts';
import {
  ContractViolationError,
  RagHttpError,
  RagUnreachableError,
  type RagClient,
  type Trace,
  type TraceSourceKind,
} from '@rag-immune/rag-contract';
import type { ObservedCall, ProbeTraceReader, TraceGap } from '@rag-immune/traces';

export type TraceRead =
  | { ok: true; trace: Trace; source: 'endpoint' | 'intake'; gaps: TraceGap[] }
  /** `incomplete`: the spans are there but lack what a diff needs (an open question of its own). */
  | {
      ok: false;
      reason: string;
      incomplete: boolean;
      /** An incomplete intake trace: what its spans did say, and what they lacked (for a score-less analysis). */
      partial?: { gaps: TraceGap[]; observed?: ObservedCall };
    };

export interface TraceSource {
  read(observation: ProbeObservation, timeoutMs: number): Promise<TraceRead>;
}

function describe(error: unknown): string {
  if (error instanceof RagUnreachableError) return `unreachable (${error.reason})`;
  if (error instanceof RagHttpError) return `HTTP ${error.status}`;
  if (error instanceof ContractViolationError) return `malformed trace: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** GET /traces/{trace_id} of the RAG's own trace id. */
export class EndpointTraceSource implements TraceSource {
  constructor(private readonly rag: RagClient) {}

  async read(observation: ProbeObservation, timeoutMs: number): Promise<TraceRead> {
    if (observation.trace_id === null) return { ok: false, reason: 'the probe result carries no trace id', incomplete: false };
    try {
      return { ok: true, trace: await this.rag.trace(observation.trace_id, { timeoutMs }), source: 'endpoint', gaps: [] };
    } catch (error) {
      return { ok: false, reason: describe(error), incomplete: false };
    }
  }
}

/** The RAG's spans in the trace intake, under the probe's traceparent, mapped to a Trace. */
export class IntakeTraceSource implements TraceSource {
  constructor(private readonly reader: ProbeTraceReader) {}

  /** The wait is the reader's (IDENTIFIER_INTAKE_WAIT_MS): exporters batch, so spans come later than an answer. */
  async read(observation: ProbeObservation): Promise<TraceRead> {
    try {
      const read = await this.reader.read(observation.traceparent);
      if (read.ok) return { ok: true, trace: read.mapped.trace!, source: 'intake', gaps: read.mapped.gaps };
      if (read.mapped === null) return { ok: false, reason: `trace intake: ${read.reason}`, incomplete: false };
      const partial = { gaps: read.mapped.gaps, ...(read.mapped.observed ? { observed: read.mapped.observed } : {}) };
      return { ok: false, reason: `trace intake: ${read.reason}`, incomplete: true, partial };
    } catch (error) {
      return { ok: false, reason: `trace intake unavailable: ${describe(error)}`, incomplete: false };
    }
  }
}

/** Asks the RAG's capabilities which source it uses (cached); a RAG that cannot say is read through its endpoint. */
export class CapabilityTraceSource implements TraceSource {
  private known: { kind: TraceSourceKind; at: number } | null = null;

  constructor(
    private readonly rag: RagClient,
    private readonly sources: Record<TraceSourceKind, TraceSource>,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  async read(observation: ProbeObservation, timeoutMs: number): Promise<TraceRead> {
    return this.sources[await this.kind(timeoutMs)].read(observation, timeoutMs);
  }

  private async kind(timeoutMs: number): Promise<TraceSourceKind> {
    if (this.known !== null && Date.now() - this.known.at < this.ttlMs) return this.known.kind;
    try {
      const capabilities = await this.rag.capabilities({ timeoutMs });
      this.known = { kind: capabilities.traces ?? 'endpoint', at: Date.now() };
    } catch (error) {
      // A RAG that answers without capabilities (404…) serves its traces the contract's way; an
      // unanswered lookup is not remembered: the next probe asks again.
      if (error instanceof RagHttpError) this.known = { kind: 'endpoint', at: Date.now() };
      return this.known?.kind ?? 'endpoint';
    }
    return this.known.kind;
  }
}
