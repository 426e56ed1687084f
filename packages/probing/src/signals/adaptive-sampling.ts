/**
 * Samples spent where doubt is (issue 39, item 2): a probe whose pooled evidence is clean is asked
 * few calls a side; one whose evidence leans towards a change (a detector's statistic at or above
 * a fraction of the alarm threshold) is asked more, so the change is confirmed or cleared sooner.
 * The choice is made before the run from earlier runs only, so the pooled test stays valid. The
 * extra calls are capped per run (the larger count) and per hour (all probes together: a doubtful
 * run that would take the last hour's calls over the cap runs with the base count instead).
 */
export interface AdaptiveSamplingOptions {
  /** Calls a side while the probe's evidence is clean. */
  base: number;
  /** Calls a side while it leans towards a change (the cap per run); base when not adaptive. */
  max: number;
  /** Share of the alarm threshold at which the evidence leans (default 0.01). */
  leanFraction?: number;
  /** Most RAG calls (both sides, all probes) in any hour before doubtful runs stop escalating; none when absent. */
  callsPerHour?: number;
}

const HOUR_MS = 3_600_000;

export class AdaptiveSampling {
  /** Calls made, by the minute they were made in: a sliding hour at one-minute resolution, bounded at 61 entries. */
  private readonly callsByMinute = new Map<number, number>();

  constructor(
    private readonly options: AdaptiveSamplingOptions,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(options.base) || options.base < 1)
      throw new RangeError(`base samples must be an integer >= 1, got ${options.base}`);
    if (!Number.isInteger(options.max) || options.max < options.base)
      throw new RangeError(`max samples must be an integer >= base (${options.base}), got ${options.max}`);
  }

  /** Calls a side for the probe's next run, given its leaning statistic and the alarm threshold. */
  samplesFor(leaning: number, threshold: number): number {
    const { base, max, leanFraction = 0.01, callsPerHour } = this.options;
    if (max === base || leaning < leanFraction * threshold) return base;
    if (callsPerHour !== undefined && this.callsInLastHour() + 2 * max > callsPerHour) return base;
    return max;
  }

  /** Records the RAG calls a run made (both sides). */
  record(calls: number): void {
    const minute = Math.floor(this.now() / 60_000);
    this.callsByMinute.set(minute, (this.callsByMinute.get(minute) ?? 0) + calls);
    this.prune(minute);
  }

  callsInLastHour(): number {
    this.prune(Math.floor(this.now() / 60_000));
    let sum = 0;
    for (const calls of this.callsByMinute.values()) sum += calls;
    return sum;
  }

  private prune(minute: number): void {
    for (const key of this.callsByMinute.keys()) if (key <= minute - HOUR_MS / 60_000) this.callsByMinute.delete(key);
  }
}
