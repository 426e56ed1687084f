import { LRUCache } from 'lru-cache';
import type { Trace } from '@rag-immune/rag-contract';

/** The last N traces, for GET /traces/{id}; older ones are evicted (the contract allows 404). */
export class TraceStore {
  private readonly traces: LRUCache<string, Trace>;

  constructor(capacity = 5000) {
    this.traces = new LRUCache({ max: capacity });
  }

  put(trace: Trace): void {
    this.traces.set(trace.trace_id, trace);
  }

  get(traceId: string): Trace | undefined {
    return this.traces.get(traceId);
  }

  get size(): number {
    return this.traces.size;
  }
}
