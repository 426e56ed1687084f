/**
 * Reads one probe call's trace from the span store: waits until the RAG's entry span (the child of
 * the parent id the sentinel sent) has arrived, since exporters batch and the entry span ends last,
 * then maps the spans. Never throws for a missing or partial trace: that is a reason, as for /traces.
 */
import { mapSpans } from './mapping/map-spans.ts';
import type { MappedTrace } from './mapping/trace-mapper.ts';
import type { SpanStore } from './store/span-store.ts';
import { parseTraceparent } from './traceparent.ts';

export type ProbeTraceRead = { ok: true; mapped: MappedTrace } | { ok: false; reason: string; mapped: MappedTrace | null };

export interface ProbeTraceReaderOptions {
  /** How long to wait for the entry span after the call returned (exporter batching; default 15 s). */
  waitMs?: number;
  pollMs?: number;
}

export class ProbeTraceReader {
  constructor(
    private readonly store: SpanStore,
    private readonly options: ProbeTraceReaderOptions = {},
  ) {}

  async read(traceparent: string | null, signal?: AbortSignal): Promise<ProbeTraceRead> {
    const context = parseTraceparent(traceparent);
    if (context === null) return { ok: false, reason: 'the probe result carries no traceparent', mapped: null };
    const deadline = Date.now() + (this.options.waitMs ?? 15_000);
    for (;;) {
      const spans = await this.store.spansOf(context.trace_id);
      const entered = spans.some((span) => span.parent_span_id === context.parent_span_id);
      if (entered) {
        const mapped = mapSpans(context.trace_id, spans);
        if (mapped === null)
          return {
            ok: false,
            reason: `the intake holds ${spans.length} spans of trace ${context.trace_id} in no convention it reads`,
            mapped,
          };
        if (mapped.trace === null)
          return {
            ok: false,
            reason: `trace ${context.trace_id} (${mapped.convention}) is incomplete: ${mapped.gaps.map((g) => g.detail).join('; ')}`,
            mapped,
          };
        return { ok: true, mapped };
      }
      if (Date.now() >= deadline || signal?.aborted)
        return {
          ok: false,
          reason:
            spans.length === 0
              ? `the intake holds no span of trace ${context.trace_id}`
              : `the intake holds ${spans.length} spans of trace ${context.trace_id} but not the RAG's entry span (child of ${context.parent_span_id})`,
          mapped: null,
        };
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 250));
    }
  }
}
