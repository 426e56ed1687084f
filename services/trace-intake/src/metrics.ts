import { Counter, Histogram, type Registry } from 'prom-client';

export class IntakeMetrics {
  readonly requests: Counter<'encoding' | 'outcome'>;
  readonly spans: Counter<'outcome' | 'reason' | 'convention'>;
  readonly purged: Counter;
  readonly writeDuration: Histogram;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'trace_intake_requests_total',
      help: 'OTLP export requests by encoding and outcome (accepted, bad_request, unsupported, store_unavailable; 401 and 413 are refused before decoding)',
      labelNames: ['encoding', 'outcome'],
      registers: [registry],
    });
    this.spans = new Counter({
      name: 'trace_intake_spans_total',
      help: 'Spans received: stored, ignored (unknown_kind, unread_kind, no_convention) or rejected (invalid ids)',
      labelNames: ['outcome', 'reason', 'convention'],
      registers: [registry],
    });
    this.purged = new Counter({
      name: 'trace_intake_spans_purged_total',
      help: 'Spans deleted past the retention window',
      registers: [registry],
    });
    this.writeDuration = new Histogram({
      name: 'trace_intake_store_write_seconds',
      help: 'Time to write one export to the span store',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
  }
}
