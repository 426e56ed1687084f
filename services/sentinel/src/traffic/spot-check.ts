/**
 * Budgeted spot checks (issue 38, the watcher's blind spot): now and then one of a segment's recent
 * (redacted) user queries is replayed against the online RAG and the frozen baseline through the same
 * ProbeRunner the golden probes and the shadow replay use, even when no cheap signal moved, so a
 * content drift that leaves every per-answer signal quiet is still compared with the baseline.
 *
 * A spot check publishes nothing and opens nothing. One that disagrees with the baseline (its result
 * is anomalous) FLAGS the segment, and the flag goes through the normal confirmation (ShadowReplay:
 * the spot-checked query first, then the segment's other recent queries, confirmed only when
 * TRAFFIC_REPLAY_CONFIRM_SHARE of them are anomalous). It does not count as the confirmation although
 * the path is the same: one query is a sample of one, and the confirmation's bar is a share of
 * several of the segment's queries, re-asked (a single comparison that flickers, e.g. in sampled mode,
 * must not open an incident on its own). The cost is the spot-checked query asked once more.
 *
 * Budget: each segment at most `perSegmentPerHour` checks an hour (its first one at a random point of
 * its first interval, so segments first seen together do not check together), all segments together
 * at most `perHour` (each check is a call to both RAGs); either at 0 disables scheduled checks.
 *
 * Evidence-led checks: an answer with decisive evidence (`SignalReading.decisive`: the segment's own
 * chunks left or changed in the context its question cluster was answered from, which a deterministic
 * retriever does on about 1 clean answer in 100) asks for a check of its segment now, served before
 * the scheduled ones, at most once per segment per `ledIntervalMs`, within the same `perHour` cap. On
 * a slow RAG a segment's CUSUM needs about a dozen answers (minutes to hours); this spends the same
 * budget where the evidence is instead of on the schedule. It changes no false-alarm guarantee: the
 * CUSUM's budget is untouched, a led check opens nothing, and its false alarms cost replay calls only
 * (flagged, then rejected by the confirmation: counted and shown, as every rejected segment is).
 */
import type { ProbeRunner } from '@rag-immune/probing';
import { replayProbe } from './shadow-replay.ts';

export interface SpotCheckOptions {
  /** Checks per segment per hour (fractions allowed: 0.25 is one every 4 hours). */
  perSegmentPerHour: number;
  /** Checks per hour over all segments (the RAG's cap). */
  perHour: number;
  /** An evidence-led check of one segment at most this often (0 or absent: no led checks). */
  ledIntervalMs?: number;
  now?: () => number;
  random?: () => number;
}

export interface SpotCheckOutcome {
  segment: string;
  query: string;
  /** The online answer disagrees with the baseline's (the probe comparison's anomaly). */
  disagrees: boolean;
}

export interface DueCheck {
  segment: string;
  query: string;
  /** What asked for it: decisive evidence in an answer, or the segment's schedule. */
  trigger: 'evidence' | 'schedule';
}

export class SpotCheck {
  private readonly dueAt = new Map<string, number>();
  /** Led checks asked for, oldest first: segment to the query whose answer carried the evidence. */
  private readonly led = new Map<string, string>();
  private readonly ledAt = new Map<string, number>();
  private readonly hourly: number[] = [];
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly intervalMs: number;
  checks = 0;

  constructor(
    private readonly runner: Pick<ProbeRunner, 'run'>,
    private readonly options: SpotCheckOptions,
  ) {
    if (!(options.perSegmentPerHour >= 0) || !(options.perHour >= 0)) throw new RangeError('spot-check budgets must be >= 0');
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.intervalMs = options.perSegmentPerHour > 0 ? 3_600_000 / options.perSegmentPerHour : Infinity;
  }

  /** Scheduled checks run. */
  get enabled(): boolean {
    return this.options.perSegmentPerHour > 0 && this.options.perHour > 0;
  }

  /** Evidence-led checks run. */
  get ledEnabled(): boolean {
    return (this.options.ledIntervalMs ?? 0) > 0 && this.options.perHour > 0;
  }

  /**
   * An answer of `segment` carried decisive evidence: check the segment with `query` (the answer's,
   * redacted) before any scheduled check. False when not taken: led checks off, or the segment had
   * one within `ledIntervalMs` (a later request replaces the query of one not yet served).
   */
  lead(segment: string, query: string): boolean {
    if (!this.ledEnabled) return false;
    const last = this.ledAt.get(segment);
    if (last !== undefined && this.now() - last < this.options.ledIntervalMs!) return false;
    this.led.delete(segment);
    this.led.set(segment, query);
    return true;
  }

  /** Checks made within the last hour. */
  lastHour(): number {
    const now = this.now();
    while (this.hourly.length > 0 && this.hourly[0]! <= now - 3_600_000) this.hourly.shift();
    return this.hourly.length;
  }

  /**
   * The segment due for a check and the query to replay, or undefined (none due, or the hour's budget
   * spent). `recent`: each segment's recent distinct queries. Takes the budget: call `check` with it.
   */
  next(recent: ReadonlyMap<string, readonly string[]>): DueCheck | undefined {
    const now = this.now();
    if (this.led.size > 0 && this.lastHour() < this.options.perHour) {
      for (const [segment, query] of this.led) {
        this.led.delete(segment);
        // Not a candidate now (its replay is running: a stronger check than this one): dropped.
        if (!recent.has(segment)) continue;
        this.ledAt.set(segment, now);
        // It is being compared now: its scheduled check can wait a full interval.
        if (this.dueAt.has(segment)) this.dueAt.set(segment, now + this.intervalMs);
        this.hourly.push(now);
        this.checks++;
        return { segment, query, trigger: 'evidence' };
      }
    }
    if (!this.enabled) return undefined;
    let chosen: string | undefined;
    for (const [segment, queries] of recent) {
      if (queries.length === 0) continue;
      let due = this.dueAt.get(segment);
      if (due === undefined) {
        due = now + this.random() * this.intervalMs;
        this.dueAt.set(segment, due);
      }
      if (due <= now && (chosen === undefined || due < this.dueAt.get(chosen)!)) chosen = segment;
    }
    if (chosen === undefined || this.lastHour() >= this.options.perHour) return undefined;
    const queries = recent.get(chosen)!;
    this.dueAt.set(chosen, now + this.intervalMs);
    this.hourly.push(now);
    this.checks++;
    return { segment: chosen, query: queries[Math.floor(this.random() * queries.length)]!, trigger: 'schedule' };
  }

  /** Replays one query against online and baseline; publishes nothing. */
  async check(segment: string, query: string): Promise<SpotCheckOutcome> {
    const result = await this.runner.run(replayProbe(segment, query, new Date(this.now())));
    return { segment, query, disagrees: result.anomaly };
  }
}
