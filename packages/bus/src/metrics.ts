import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of the bus; register them on the worker's own registry. */
export class BusMetrics {
  readonly published: Counter<'topic'>;
  readonly consumed: Counter<'topic' | 'group' | 'outcome'>;
  readonly handlerErrors: Counter<'topic' | 'group' | 'kind'>;
  readonly handlerDuration: Histogram<'topic' | 'group'>;
  readonly consumerLag: Gauge<'topic' | 'partition' | 'group'>;

  constructor(readonly registry: Registry = new Registry()) {
    this.published = new Counter({
      name: 'rag_immune_bus_published_total',
      help: 'Events published, by topic.',
      labelNames: ['topic'],
      registers: [registry],
    });
    this.consumed = new Counter({
      name: 'rag_immune_bus_consumed_total',
      help: 'Messages consumed, by outcome: handled, duplicate (event_id seen before) or dead_lettered.',
      labelNames: ['topic', 'group', 'outcome'],
      registers: [registry],
    });
    this.handlerErrors = new Counter({
      name: 'rag_immune_bus_handler_errors_total',
      help: 'Handler or decode failures, by kind: poison (dead-lettered), transient (retried), exhausted (left for redelivery).',
      labelNames: ['topic', 'group', 'kind'],
      registers: [registry],
    });
    this.handlerDuration = new Histogram({
      name: 'rag_immune_bus_handler_duration_seconds',
      help: 'Time spent in the event handler, successful attempts only.',
      labelNames: ['topic', 'group'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers: [registry],
    });
    this.consumerLag = new Gauge({
      name: 'rag_immune_bus_consumer_lag',
      help: 'Messages between the group committed offset and the partition end offset.',
      labelNames: ['topic', 'partition', 'group'],
      registers: [registry],
    });
  }
}
