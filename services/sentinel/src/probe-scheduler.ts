import type { Logger } from 'pino';
import type { GoldenProbe } from '@rag-immune/probing';

export interface ProbeSchedulerOptions {
  intervalMs: number;
  /** Each wait is intervalMs ± this fraction, so probes drift apart instead of firing together. */
  jitter: number;
  /** Probe runs in progress at once, across all probes. */
  maxConcurrent: number;
  run(probe: GoldenProbe): Promise<void>;
  logger?: Logger;
  random?: () => number;
}

/**
 * Runs every probe on its own interval. The next run of a probe is scheduled only when its current
 * run has finished, so a probe never runs twice at once and a slow RAG delays the schedule rather
 * than stacking calls on it. First runs are spread over one interval.
 */
export class ProbeScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private stopped = false;
  /** Probes an accepted rotation retired: not scheduled again (a run in progress finishes). */
  private readonly retired = new Set<string>();
  private readonly random: () => number;

  constructor(private readonly options: ProbeSchedulerOptions) {
    this.random = options.random ?? Math.random;
  }

  start(probes: readonly GoldenProbe[]): void {
    for (const probe of probes) this.schedule(probe, this.random() * this.options.intervalMs);
  }

  /** Runs a probe now (outside its schedule) unless it is already running; resolves when done. */
  runNow(probe: GoldenProbe): Promise<void> {
    const current = this.inFlight.get(probe.id);
    if (current !== undefined) return current;
    const run = this.execute(probe);
    return run;
  }

  /** Stops scheduling a probe the probe set no longer holds. */
  retire(probeId: string): void {
    this.retired.add(probeId);
    clearTimeout(this.timers.get(probeId));
    this.timers.delete(probeId);
  }

  /** Schedules a probe that joined the set, at a random point of the interval as at start. */
  add(probe: GoldenProbe): void {
    this.retired.delete(probe.id);
    if (!this.timers.has(probe.id)) this.schedule(probe, this.random() * this.options.intervalMs);
  }

  isRunning(probeId: string): boolean {
    return this.inFlight.has(probeId);
  }

  /** Stops scheduling and waits for the runs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private nextDelay(): number {
    const spread = this.options.intervalMs * this.options.jitter;
    return Math.max(0, this.options.intervalMs - spread + 2 * spread * this.random());
  }

  private schedule(probe: GoldenProbe, delayMs: number): void {
    if (this.stopped || this.retired.has(probe.id)) return;
    const timer = setTimeout(() => {
      this.timers.delete(probe.id);
      void this.runNow(probe).finally(() => this.schedule(probe, this.nextDelay()));
    }, delayMs);
    timer.unref?.();
    this.timers.set(probe.id, timer);
  }

  private async execute(probe: GoldenProbe): Promise<void> {
    const done = (async () => {
      await this.acquire();
      try {
        await this.options.run(probe);
      } catch (error) {
        this.options.logger?.error({ probeId: probe.id, err: error }, 'probe run failed');
      } finally {
        this.release();
      }
    })();
    this.inFlight.set(probe.id, done);
    try {
      await done;
    } finally {
      this.inFlight.delete(probe.id);
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.options.maxConcurrent) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => resolve()));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.running -= 1;
  }
}
