import type { SpanRecord } from '../span-record.ts';

/** Where the intake keeps spans, by trace id, for a retention window. */
export interface SpanStore {
  write(spans: readonly SpanRecord[], receivedAt: number): Promise<void>;
  /** The stored spans of one trace, earliest first. */
  spansOf(traceId: string): Promise<SpanRecord[]>;
  /** Deletes spans received before `before` (epoch ms); returns how many went. */
  purgeReceivedBefore(before: number): Promise<number>;
  /** How many spans each of these traces holds (0 for one it does not): the intake's per-trace cap reads it. */
  countByTrace?(traceIds: readonly string[]): Promise<Map<string, number>>;
}

/** The most spans one trace may hold in the store: a RAG call has a few dozen; more is a loop or an abuse. */
export const MAX_SPANS_PER_TRACE = 2000;

/** The in-process twin of the Elasticsearch store, for unit tests of the intake and the identifier's reader. */
export class InMemorySpanStore implements SpanStore {
  private readonly spans = new Map<string, { span: SpanRecord; receivedAt: number }>();

  async write(spans: readonly SpanRecord[], receivedAt: number): Promise<void> {
    // Create-only, like the Elasticsearch store: a span once stored is never replaced.
    for (const span of spans) {
      const id = `${span.trace_id}-${span.span_id}`;
      if (!this.spans.has(id)) this.spans.set(id, { span: structuredClone(span), receivedAt });
    }
  }

  async spansOf(traceId: string): Promise<SpanRecord[]> {
    return [...this.spans.values()]
      .filter(({ span }) => span.trace_id === traceId)
      .map(({ span }) => structuredClone(span))
      .sort((a, b) => a.start_ms - b.start_ms)
      .slice(0, MAX_SPANS_PER_TRACE);
  }

  async countByTrace(traceIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map(traceIds.map((id) => [id, 0]));
    for (const { span } of this.spans.values()) if (counts.has(span.trace_id)) counts.set(span.trace_id, counts.get(span.trace_id)! + 1);
    return counts;
  }

  async purgeReceivedBefore(before: number): Promise<number> {
    let purged = 0;
    for (const [key, { receivedAt }] of this.spans)
      if (receivedAt < before) {
        this.spans.delete(key);
        purged += 1;
      }
    return purged;
  }

  get size(): number {
    return this.spans.size;
  }
}
