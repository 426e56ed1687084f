/**
 * The most spans one trace may hold, counted at write time. A RAG call has a few dozen spans; a
 * trace that keeps growing is a loop or someone drowning a probe's real spans (the reader reads a
 * bounded number). The count is the store's (Elasticsearch, at the trace's first sight in this
 * process) plus what this process admitted since, so a burst inside the store's refresh interval
 * counts too. Several intake replicas each admit up to the cap: the bound is the cap times the
 * replicas, still bounded.
 */
import { LRUCache } from 'lru-cache';
import type { SpanRecord, SpanStore } from '@rag-immune/traces';

export interface CapOutcome {
  admitted: SpanRecord[];
  /** Spans refused because their trace was full, and those traces' ids. */
  refused: number;
  fullTraces: string[];
}

export class TraceSpanCap {
  private readonly counted: LRUCache<string, number>;

  constructor(
    private readonly store: SpanStore,
    private readonly max: number,
    /** How long a count is trusted before the store is asked again (it must outlive the store's refresh interval). */
    ttlMs = 10 * 60_000,
  ) {
    this.counted = new LRUCache({ max: 100_000, ttl: ttlMs });
  }

  async admit(spans: readonly SpanRecord[]): Promise<CapOutcome> {
    if (spans.length === 0) return { admitted: [], refused: 0, fullTraces: [] };
    const traceIds = [...new Set(spans.map((span) => span.trace_id))];
    const unknown = traceIds.filter((id) => !this.counted.has(id));
    const stored = unknown.length > 0 && this.store.countByTrace ? await this.store.countByTrace(unknown) : new Map<string, number>();
    // After the await: decided and recorded in one synchronous step, so two concurrent exports of a trace cannot both pass the cap.
    const admitted: SpanRecord[] = [];
    const full = new Set<string>();
    let refused = 0;
    const count = new Map(traceIds.map((id) => [id, this.counted.get(id) ?? stored.get(id) ?? 0]));
    for (const span of spans) {
      const n = count.get(span.trace_id)!;
      if (n >= this.max) {
        refused += 1;
        full.add(span.trace_id);
        continue;
      }
      count.set(span.trace_id, n + 1);
      admitted.push(span);
    }
    for (const [id, n] of count) this.counted.set(id, n);
    return { admitted, refused, fullTraces: [...full] };
  }
}
