import { Counter, Histogram, type Registry } from 'prom-client';

export class IntakeMetrics {
  readonly requests: Counter<'encoding' | 'outcome'>;
  readonly spans: Counter<'outcome' | 'reason' | 'convention' | 'origin'>;
  readonly purged: Counter<'origin'>;
  readonly redactions: Counter<'rule'>;
  readonly writeDuration: Histogram;
  readonly probeMarks: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'trace_intake_requests_total',
      help: 'OTLP export requests by encoding and outcome (accepted, bad_request, unsupported, rate_limited, store_unavailable; 401 and 413 are refused before decoding)',
      labelNames: ['encoding', 'outcome'],
      registers: [registry],
    });
    this.spans = new Counter({
      name: 'trace_intake_spans_total',
      help: 'Spans received by origin (probe: tracestate rag-immune=probe; user: the rest; none: rejected before reading): stored, ignored (unknown_kind, unread_kind, no_convention, user_traffic_off) or rejected (invalid_id, origin_not_allowed, trace_full)',
      labelNames: ['outcome', 'reason', 'convention', 'origin'],
      registers: [registry],
    });
    this.purged = new Counter({
      name: 'trace_intake_spans_purged_total',
      help: 'Spans deleted past their retention window, by origin (probe and user spans have their own)',
      labelNames: ['origin'],
      registers: [registry],
    });
    this.redactions = new Counter({
      name: 'trace_intake_redactions_total',
      help: "Personal data replaced by a placeholder in users' spans before they were stored, by redaction rule",
      labelNames: ['rule'],
      registers: [registry],
    });
    this.probeMarks = new Counter({
      name: 'trace_intake_probe_marks_total',
      help: 'Spans carrying the probe mark, by outcome: verified (filed as a probe), unsigned (trusted only without PROBE_MARK_KEY), bad_mac, expired, token_not_probe (the last three filed as user spans)',
      labelNames: ['outcome'],
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
