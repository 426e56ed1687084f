import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The memory worker's Prometheus metrics. */
export class MemoryMetrics {
  readonly casesByStatus: Gauge<'status'>;
  readonly recommendLatency: Histogram<'source'>;
  readonly recommendations: Counter<'source' | 'degraded'>;
  readonly ruleFallbacks: Counter<'reason'>;
  readonly hitRatio: Gauge;
  readonly caseEvents: Counter<'kind' | 'result'>;
  readonly transitions: Counter<'field' | 'reason'>;
  private hits = 0;
  private calls = 0;

  constructor(registry: Registry) {
    this.casesByStatus = new Gauge({
      name: 'memory_cases',
      help: 'Healing cases by card status (active, superseded, archived), from an Elasticsearch aggregation',
      labelNames: ['status'],
      registers: [registry],
    });
    this.recommendLatency = new Histogram({
      name: 'memory_recommend_duration_seconds',
      help: 'Time to answer POST /recommend, by source of the answer (cases or rules)',
      labelNames: ['source'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
    this.recommendations = new Counter({
      name: 'memory_recommendations_total',
      help: 'Recommendations answered, by source and whether a store was unreachable',
      labelNames: ['source', 'degraded'],
      registers: [registry],
    });
    this.ruleFallbacks = new Counter({
      name: 'memory_rule_fallbacks_total',
      help: 'Recommendations answered from the expert rules, by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.hitRatio = new Gauge({
      name: 'memory_recommend_hit_ratio',
      help: 'Share of recommendations since start answered from similar cases (not rules)',
      registers: [registry],
    });
    this.caseEvents = new Counter({
      name: 'memory_case_events_total',
      help: 'Report and action events folded into cases, by kind and result (applied or duplicate)',
      labelNames: ['kind', 'result'],
      registers: [registry],
    });
    this.transitions = new Counter({
      name: 'memory_case_transitions_total',
      help: 'Recorded metadata card transitions made by forgetting, by field and reason',
      labelNames: ['field', 'reason'],
      registers: [registry],
    });
  }

  recordAnswer(source: 'cases' | 'rules', degraded: boolean, reason: string, seconds: number): void {
    this.recommendLatency.observe({ source }, seconds);
    this.recommendations.inc({ source, degraded: String(degraded) });
    if (source === 'rules') this.ruleFallbacks.inc({ reason });
    this.calls += 1;
    if (source === 'cases') this.hits += 1;
    this.hitRatio.set(this.hits / this.calls);
  }
}
