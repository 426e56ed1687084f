/**
 * Spans in Elasticsearch, one document per span (id `<trace_id>-<span_id>`, written create-only: a
 * re-sent batch neither doubles nor replaces what is stored), in `<prefix>-otlp-spans` (probe spans, read by the identifier) or
 * `<prefix>-otlp-user-spans` (users' spans, redacted by the intake, read by the sentinel's traffic
 * watcher). Only the ids, names and times are indexed; the span itself is kept unindexed
 * (`enabled: false`), so arbitrary attribute keys never grow the mapping. Retention deletes by `received_at`.
 */
import type { Client } from '@elastic/elasticsearch';
import type { SpanRecord } from '../span-record.ts';
import type { SpanOrigin } from '../traceparent.ts';
import { MAX_SPANS_PER_TRACE, type SpanStore } from './span-store.ts';

export const SPAN_MAPPINGS = {
  dynamic: 'strict' as const,
  properties: {
    trace_id: { type: 'keyword' as const },
    span_id: { type: 'keyword' as const },
    parent_span_id: { type: 'keyword' as const },
    name: { type: 'keyword' as const },
    service_name: { type: 'keyword' as const },
    start_ms: { type: 'double' as const },
    received_at: { type: 'date' as const, format: 'epoch_millis' },
    span: { type: 'object' as const, enabled: false },
  },
};

/** The index of probe spans (the sentinel's calls, marked `rag-immune=probe` in their tracestate). */
export function probeSpansIndex(prefix: string): string {
  return `${prefix}-otlp-spans`;
}

/** The index of user spans: every other answer the RAG traced, redacted before it is written. */
export function userSpansIndex(prefix: string): string {
  return `${prefix}-otlp-user-spans`;
}

/** One stored span; the same shape in both indices. */
export interface SpanDoc {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  service_name: string | null;
  start_ms: number;
  received_at: number;
  span: SpanRecord;
}

export class ElasticsearchSpanStore implements SpanStore {
  readonly index: string;

  constructor(
    private readonly es: Client,
    prefix: string,
    origin: SpanOrigin = 'probe',
  ) {
    this.index = origin === 'probe' ? probeSpansIndex(prefix) : userSpansIndex(prefix);
  }

  async ensureIndex(): Promise<void> {
    if (await this.es.indices.exists({ index: this.index })) return;
    try {
      await this.es.indices.create({ index: this.index, mappings: SPAN_MAPPINGS, settings: { number_of_replicas: 0 } });
    } catch (error) {
      if (!String((error as Error).message).includes('resource_already_exists_exception')) throw error;
    }
  }

  async write(spans: readonly SpanRecord[], receivedAt: number): Promise<void> {
    if (spans.length === 0) return;
    const response = await this.es.bulk({
      operations: spans.flatMap((span) => {
        const doc: SpanDoc = {
          trace_id: span.trace_id,
          span_id: span.span_id,
          parent_span_id: span.parent_span_id,
          name: span.name,
          service_name: typeof span.resource['service.name'] === 'string' ? span.resource['service.name'] : null,
          start_ms: span.start_ms,
          received_at: receivedAt,
          span,
        };
        // Create-only: a span once stored is never replaced. A re-sent batch (an exporter's retry)
        // answers 409 for what is there already, which is success; a forged span set re-using a stored
        // span's ids cannot rewrite the evidence the identifier reads.
        return [{ create: { _index: this.index, _id: `${span.trace_id}-${span.span_id}` } }, doc];
      }),
    });
    if (response.errors) {
      const failed = response.items.find((item) => item.create?.error !== undefined && item.create.status !== 409)?.create;
      if (failed !== undefined) throw new Error(`span store write failed: ${failed.status} ${JSON.stringify(failed.error)}`);
    }
  }

  async spansOf(traceId: string): Promise<SpanRecord[]> {
    const response = await this.es.search<SpanDoc>({
      index: this.index,
      size: MAX_SPANS_PER_TRACE,
      query: { term: { trace_id: traceId } },
      sort: [{ start_ms: 'asc' }],
      ignore_unavailable: true,
    });
    return response.hits.hits.flatMap((hit) => (hit._source === undefined ? [] : [hit._source.span]));
  }

  /** Stored spans per trace id, one aggregation for the lot (near real-time: a just-written batch may not count yet). */
  async countByTrace(traceIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map(traceIds.map((id) => [id, 0]));
    if (traceIds.length === 0) return counts;
    const response = await this.es.search<unknown, { traces: { buckets: { key: string; doc_count: number }[] } }>({
      index: this.index,
      size: 0,
      query: { terms: { trace_id: [...traceIds] } },
      aggs: { traces: { terms: { field: 'trace_id', size: traceIds.length } } },
      ignore_unavailable: true,
    });
    for (const bucket of response.aggregations?.traces.buckets ?? []) counts.set(bucket.key, bucket.doc_count);
    return counts;
  }

  /**
   * Search and bulk delete, page by page, rather than _delete_by_query: that lives in the reindex
   * module, which not every distribution ships (the stack's integ-test zip does not).
   */
  async purgeReceivedBefore(before: number): Promise<number> {
    if (!(await this.es.indices.exists({ index: this.index }))) return 0;
    await this.es.indices.refresh({ index: this.index });
    let deleted = 0;
    for (;;) {
      const page = await this.es.search({
        index: this.index,
        size: 1000,
        _source: false,
        query: { range: { received_at: { lt: before } } },
      });
      const ids = page.hits.hits.map((hit) => hit._id).filter((id): id is string => id !== undefined);
      if (ids.length === 0) return deleted;
      await this.es.bulk({ refresh: true, operations: ids.map((id) => ({ delete: { _index: this.index, _id: id } })) });
      deleted += ids.length;
    }
  }
}
