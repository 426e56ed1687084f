import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ProbeObservation, ProbeResult } from '@rag-immune/contracts';

/** The sentinel's Prometheus metrics; Grafana's healing dashboard reads these. */
export class SentinelMetrics {
  readonly fcs: Gauge<'probe_id' | 'side'>;
  readonly ic: Gauge<'probe_id' | 'side'>;
  readonly kfAgeDays: Gauge<'probe_id' | 'side'>;
  readonly fcsDrop: Histogram;
  readonly ragCallSeconds: Histogram<'side'>;
  readonly probeErrors: Counter<'probe_id' | 'side' | 'status'>;
  readonly anomalies: Counter<'probe_id' | 'severity'>;
  readonly anomalySignals: Counter<'signal'>;
  readonly runSeconds: Histogram;
  readonly published: Counter<'outcome'>;
  readonly overdueProbes: Gauge;
  readonly incompleteRounds: Counter;
  readonly ragCallsPerResult: Histogram;
  readonly pooledStatistic: Gauge<'probe_id' | 'signal'>;

  constructor(readonly registry: Registry = new Registry()) {
    collectDefaultMetrics({ register: registry, prefix: 'rag_immune_sentinel_' });
    const registers = [registry];
    this.fcs = new Gauge({
      name: 'rag_immune_sentinel_fcs',
      help: 'Latest fact consistency score per probe and side.',
      labelNames: ['probe_id', 'side'],
      registers,
    });
    this.ic = new Gauge({
      name: 'rag_immune_sentinel_ic',
      help: 'Latest intent coverage per probe and side.',
      labelNames: ['probe_id', 'side'],
      registers,
    });
    this.kfAgeDays = new Gauge({
      name: 'rag_immune_sentinel_kf_age_days',
      help: 'Latest knowledge freshness age in days per probe and side.',
      labelNames: ['probe_id', 'side'],
      registers,
    });
    this.fcsDrop = new Histogram({
      name: 'rag_immune_sentinel_fcs_drop',
      help: 'Baseline FCS minus online FCS per probe run (positive: online worse); histogram_quantile(0.95, ...) is the chronic-illness curve.',
      buckets: [-0.5, -0.2, -0.1, -0.05, 0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1],
      registers,
    });
    this.ragCallSeconds = new Histogram({
      name: 'rag_immune_sentinel_rag_call_seconds',
      help: 'Duration of each RAG call, retries included, by side.',
      labelNames: ['side'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.probeErrors = new Counter({
      name: 'rag_immune_sentinel_probe_errors_total',
      help: 'RAG calls that failed, by probe, side and call status.',
      labelNames: ['probe_id', 'side', 'status'],
      registers,
    });
    this.anomalies = new Counter({
      name: 'rag_immune_sentinel_anomalies_total',
      help: 'Anomalous probe runs by severity.',
      labelNames: ['probe_id', 'severity'],
      registers,
    });
    // One count per signal that made a run anomalous, for the healing dashboard's "anomalies by signal".
    this.anomalySignals = new Counter({
      name: 'rag_immune_sentinel_anomaly_signals_total',
      help: 'Signals behind anomalous probe runs (fcs_drop, ic_drop, kf_stale, online_error, ...); a run with two signals counts in both.',
      labelNames: ['signal'],
      registers,
    });
    this.runSeconds = new Histogram({
      name: 'rag_immune_sentinel_probe_run_seconds',
      help: 'Duration of a whole probe run: both calls, scoring and publishing.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.published = new Counter({
      name: 'rag_immune_sentinel_results_total',
      help: 'ProbeResults by publish outcome.',
      labelNames: ['outcome'],
      registers,
    });
    this.overdueProbes = new Gauge({
      name: 'rag_immune_sentinel_overdue_probes',
      help: 'Probes with no finished run within one interval plus the grace (a round that could not complete).',
      registers,
    });
    this.incompleteRounds = new Counter({
      name: 'rag_immune_sentinel_incomplete_rounds_total',
      help: 'Times probes became overdue: rounds that could not complete (a hung RAG, starved concurrency).',
      registers,
    });
    // What the sampled mode costs: with adaptive sampling it varies with each probe's doubt.
    this.ragCallsPerResult = new Histogram({
      name: 'rag_immune_sentinel_rag_calls_per_result',
      help: 'RAG calls (both sides; a retried call counts once) behind one ProbeResult.',
      buckets: [2, 4, 6, 8, 10, 14, 20, 30, 40],
      registers,
    });
    this.pooledStatistic = new Gauge({
      name: 'rag_immune_sentinel_pooled_statistic',
      help: "The pooled test's detector statistic per probe and signal (fcs, ic, facts) after its last run; it alarms at 3 / SENTINEL_SAMPLE_ALPHA.",
      labelNames: ['probe_id', 'signal'],
      registers,
    });
  }

  record(result: ProbeResult): void {
    const sides: [string, ProbeObservation][] = [
      ['online', result.online],
      ['baseline', result.baseline],
    ];
    for (const [side, observation] of sides) {
      const labels = { probe_id: result.probe_id, side };
      this.ragCallSeconds.observe({ side }, observation.latency_ms / 1000);
      if (observation.call_status !== 'ok') {
        this.probeErrors.inc({ ...labels, status: observation.call_status });
        continue;
      }
      const signals = observation.signals;
      if (signals?.fcs !== null && signals?.fcs !== undefined) this.fcs.set(labels, signals.fcs);
      if (signals?.ic !== null && signals?.ic !== undefined) this.ic.set(labels, signals.ic);
      if (signals?.kf_age_days !== null && signals?.kf_age_days !== undefined) this.kfAgeDays.set(labels, signals.kf_age_days);
    }
    if (result.comparison.fcs_drop !== null) this.fcsDrop.observe(result.comparison.fcs_drop);
    const pooled = result.comparison.pooled_test;
    // Without the pooled test's count: the calls asked (a side stops at its first failed call).
    this.ragCallsPerResult.observe(pooled?.rag_calls ?? 2 * (result.comparison.samples ?? 1));
    if (pooled)
      for (const signal of ['fcs', 'ic', 'facts'] as const)
        this.pooledStatistic.set({ probe_id: result.probe_id, signal }, pooled[`${signal}_statistic`]);
    if (result.anomaly) {
      this.anomalies.inc({ probe_id: result.probe_id, severity: result.severity });
      for (const signal of result.anomaly_signals) this.anomalySignals.inc({ signal });
    }
  }
}
