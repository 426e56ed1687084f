import type { SpanRecord } from '../span-record.ts';

/** Parent links within one trace's spans. */
export class SpanTree {
  private readonly byId: Map<string, SpanRecord>;

  constructor(readonly spans: readonly SpanRecord[]) {
    this.byId = new Map(spans.map((span) => [span.span_id, span]));
  }

  parent(span: SpanRecord): SpanRecord | undefined {
    return span.parent_span_id === null ? undefined : this.byId.get(span.parent_span_id);
  }

  /** How many of the stored spans are above this one. */
  depth(span: SpanRecord): number {
    let depth = 0;
    for (let p = this.parent(span); p !== undefined && depth < this.spans.length; p = this.parent(p)) depth += 1;
    return depth;
  }

  /** Whether `ancestor` is above `span`. */
  isAncestor(ancestor: SpanRecord, span: SpanRecord): boolean {
    for (let p = this.parent(span), hops = 0; p !== undefined && hops < this.spans.length; p = this.parent(p), hops += 1)
      if (p.span_id === ancestor.span_id) return true;
    return false;
  }

  /** The shallowest of `candidates` (earliest start on a tie). */
  outermost(candidates: readonly SpanRecord[]): SpanRecord | undefined {
    return [...candidates].sort((a, b) => this.depth(a) - this.depth(b) || a.start_ms - b.start_ms)[0];
  }

  /** The deepest of `candidates` (earliest start on a tie). */
  innermost(candidates: readonly SpanRecord[]): SpanRecord | undefined {
    return [...candidates].sort((a, b) => this.depth(b) - this.depth(a) || a.start_ms - b.start_ms)[0];
  }

  /** The last of `candidates` to end. */
  last(candidates: readonly SpanRecord[]): SpanRecord | undefined {
    return [...candidates].sort((a, b) => b.end_ms - a.end_ms)[0];
  }
}
