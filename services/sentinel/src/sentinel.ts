import type { Logger } from 'pino';
import type { ProbeResult } from '@rag-immune/contracts';
import type { GoldenProbe, ProbeRunner } from '@rag-immune/probing';
import { ProbeScheduler } from './probe-scheduler.ts';
import type { SentinelMetrics } from './sentinel-metrics.ts';

/** Where ProbeResults go: the bus publisher in production. */
export interface ProbeResultSink {
  publish(result: ProbeResult): Promise<void>;
}

export interface ProbeStatus {
  probe: GoldenProbe;
  lastResult?: Pick<ProbeResult, 'event_id' | 'occurred_at' | 'anomaly' | 'severity' | 'anomaly_signals'>;
  lastError?: string;
  running: boolean;
}

/**
 * The sentinel worker: its probes on a schedule, each run scored and published. A run whose
 * publication fails is logged and counted; the next run publishes afresh (the bus retries
 * transient Kafka errors itself).
 */
export class Sentinel {
  private readonly scheduler: ProbeScheduler;
  private readonly status = new Map<string, ProbeStatus>();
  private started = false;

  constructor(
    private readonly probes: readonly GoldenProbe[],
    private readonly runner: ProbeRunner,
    private readonly sink: ProbeResultSink,
    private readonly metrics: SentinelMetrics,
    schedule: { intervalMs: number; jitter: number; maxConcurrent: number },
    private readonly logger?: Logger,
  ) {
    for (const probe of probes) this.status.set(probe.id, { probe, running: false });
    this.scheduler = new ProbeScheduler({ ...schedule, run: (probe) => this.runProbe(probe), logger });
  }

  start(): void {
    this.started = true;
    this.scheduler.start(this.probes);
    this.logger?.info({ probes: this.probes.length }, 'sentinel started');
  }

  async stop(): Promise<void> {
    this.started = false;
    await this.scheduler.stop();
  }

  get isStarted(): boolean {
    return this.started;
  }

  /** Runs every probe once now (the CLI's `immune probes run` and the verification after a repair). */
  async runAll(): Promise<void> {
    await Promise.all(this.probes.map((probe) => this.scheduler.runNow(probe)));
  }

  probeStatus(): ProbeStatus[] {
    return [...this.status.values()].map((s) => ({ ...s, running: this.scheduler.isRunning(s.probe.id) }));
  }

  private async runProbe(probe: GoldenProbe): Promise<void> {
    const stopTimer = this.metrics.runSeconds.startTimer();
    const entry = this.status.get(probe.id) ?? { probe, running: true };
    try {
      const result = await this.runner.run(probe);
      this.metrics.record(result);
      await this.sink.publish(result);
      this.metrics.published.inc({ outcome: 'published' });
      entry.lastResult = {
        event_id: result.event_id,
        occurred_at: result.occurred_at,
        anomaly: result.anomaly,
        severity: result.severity,
        anomaly_signals: result.anomaly_signals,
      };
      delete entry.lastError;
      if (result.anomaly)
        this.logger?.warn(
          { probeId: probe.id, severity: result.severity, signals: result.anomaly_signals, comparison: result.comparison },
          'probe anomaly',
        );
      else this.logger?.debug({ probeId: probe.id }, 'probe healthy');
    } catch (error) {
      this.metrics.published.inc({ outcome: 'failed' });
      entry.lastError = error instanceof Error ? error.message : String(error);
      this.logger?.error({ probeId: probe.id, err: error }, 'probe run not published');
    } finally {
      this.status.set(probe.id, entry);
      stopTimer();
    }
  }
}
