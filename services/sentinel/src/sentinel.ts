import type { Logger } from 'pino';
import type { ProbeResult } from '@rag-immune/contracts';
import type { GoldenProbe, ProbeRunner } from '@rag-immune/probing';
import { ProbeScheduler } from './probe-scheduler.ts';
import type { SentinelMetrics } from './metrics.ts';
import { testPause } from '@rag-immune/worker-runtime';

/** Where ProbeResults go: the bus publisher in production. */
export interface ProbeResultSink {
  publish(result: ProbeResult): Promise<void>;
}

export interface ProbeStatus {
  probe: GoldenProbe;
  lastResult?: Pick<ProbeResult, 'event_id' | 'occurred_at' | 'anomaly' | 'severity' | 'anomaly_signals'>;
  lastError?: string;
  running: boolean;
  /** When the probe last finished a run (published or not), ms since epoch. */
  lastFinishedAt?: number;
  /** No run finished within one interval plus the grace: the round could not complete for it. */
  overdue?: boolean;
}

export interface SentinelSchedule {
  intervalMs: number;
  jitter: number;
  maxConcurrent: number;
  /**
   * How long past one interval (with jitter) a probe may go without a finished run before its round
   * is reported incomplete (default: one interval). Use about twice the probe deadline.
   */
  roundGraceMs?: number;
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
  private startedAt = 0;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    private probes: readonly GoldenProbe[],
    private readonly runner: ProbeRunner,
    private readonly sink: ProbeResultSink,
    private readonly metrics: SentinelMetrics,
    private readonly schedule: SentinelSchedule,
    private readonly logger?: Logger,
  ) {
    for (const probe of probes) this.status.set(probe.id, { probe, running: false });
    this.scheduler = new ProbeScheduler({
      intervalMs: schedule.intervalMs,
      jitter: schedule.jitter,
      maxConcurrent: schedule.maxConcurrent,
      run: (probe) => this.runProbe(probe),
      ...(logger ? { logger } : {}),
    });
  }

  start(): void {
    this.started = true;
    this.startedAt = Date.now();
    this.scheduler.start(this.probes);
    // Checked every half interval, so an incomplete round is reported within 1.5 intervals + grace.
    this.watchdog = setInterval(() => this.checkRound(), Math.max(250, this.schedule.intervalMs / 2));
    this.watchdog.unref?.();
    this.logger?.info({ probes: this.probes.length }, 'sentinel started');
  }

  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.watchdog);
    await this.scheduler.stop();
  }

  /**
   * Probes with no finished run within one interval (with jitter) plus the grace: a hung RAG or
   * starved concurrency slots kept the round from completing. Reported (error log, metric, status)
   * once when it starts and again when it ends, so a round that could not complete is never silent.
   */
  overdueProbes(now = Date.now()): string[] {
    const { intervalMs, jitter, roundGraceMs = intervalMs } = this.schedule;
    const limit = intervalMs * (1 + jitter) + roundGraceMs;
    return [...this.status.values()].filter((s) => now - (s.lastFinishedAt ?? this.startedAt) > limit).map((s) => s.probe.id);
  }

  private checkRound(): void {
    const overdue = new Set(this.overdueProbes());
    const newly = [...overdue].filter((id) => this.status.get(id)?.overdue !== true);
    const recovered = [...this.status.values()].filter((s) => s.overdue === true && !overdue.has(s.probe.id)).map((s) => s.probe.id);
    for (const s of this.status.values()) s.overdue = overdue.has(s.probe.id);
    this.metrics.overdueProbes.set(overdue.size);
    if (newly.length > 0) {
      this.metrics.incompleteRounds.inc();
      this.logger?.error(
        { overdue: [...overdue], probes: this.probes.length, running: this.probes.filter((p) => this.scheduler.isRunning(p.id)).length },
        `round incomplete: ${overdue.size}/${this.probes.length} probes produced no result within one interval`,
      );
    }
    if (recovered.length > 0) this.logger?.info({ recovered }, 'overdue probes produced results again');
  }

  /**
   * Switches to an accepted probe set (a rotation): probes no longer in it stop, new ones start at a
   * random point of the interval, the others keep their schedule and status.
   */
  replaceProbes(next: readonly GoldenProbe[]): void {
    const keep = new Set(next.map((p) => p.id));
    for (const probe of this.probes)
      if (!keep.has(probe.id)) {
        this.scheduler.retire(probe.id);
        this.status.delete(probe.id);
      }
    const known = new Set(this.probes.map((p) => p.id));
    for (const probe of next)
      if (!known.has(probe.id)) {
        // Counted from now, so a probe that just joined is not reported overdue for the time before it.
        this.status.set(probe.id, { probe, running: false, lastFinishedAt: Date.now() });
        if (this.started) this.scheduler.add(probe);
      }
    this.probes = [...next];
    this.logger?.info({ probes: this.probes.length }, 'probe set replaced');
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
      // Chaos tests kill the sentinel here: an anomaly measured but not yet published (no-op unless armed).
      if (result.anomaly) await testPause('sentinel.before-publish-anomaly', this.logger, { probe_id: probe.id });
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
      entry.lastFinishedAt = Date.now();
      this.status.set(probe.id, entry);
      stopTimer();
    }
  }
}
