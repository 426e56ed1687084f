/**
 * Replayed user queries a confirmed segment promoted to probes. The identifier closes an incident
 * only when every probe in it has had clean results again, and the sentinel never schedules a
 * replay probe, so the promoted ones are re-run here on their own interval, every result published
 * (clean or not, origin traffic), until each has `cleanRoundsToExpire` clean results in a row (the
 * incident can close: they expire) or `ttlMs` has passed. The effector's verification runs them too,
 * from the query each result carries. With a store, the promotions outlive a restart: restored on
 * the first run after it (due at once, their clean streak begun again), removed when they expire.
 */
import type { ProbeResult } from '@rag-immune/contracts';
import type { GoldenProbe, ProbeRunner } from '@rag-immune/probing';
import type { PromotedStore } from './promoted-store.ts';
import { replayProbe } from './shadow-replay.ts';

export interface PromotedReplayOptions {
  intervalMs: number;
  /** Clean results in a row after which a promoted probe expires (at least the identifier's IDENTIFIER_CLEAN_ROUNDS_TO_CLOSE). */
  cleanRoundsToExpire: number;
  /** A promoted probe expires this long after its promotion whatever its results. */
  ttlMs: number;
  /** Promoted probes kept at most (the oldest expire first). */
  maxProbes: number;
}

interface Promoted {
  probe: GoldenProbe;
  segment: string;
  promotedAt: number;
  nextRunAt: number;
  cleanStreak: number;
}

export interface PromotedRun {
  ran: number;
  anomalous: number;
  expired: string[];
  /**
   * Segments whose last promoted probe just expired clean (not by age): their incident is over, so a
   * new alarm on them is a new incident (the shadow replay's per-incident budget starts again).
   */
  healedSegments: string[];
}

export class PromotedReplays {
  private readonly promoted = new Map<string, Promoted>();
  private readonly now: () => number;
  private restored = false;

  constructor(
    private readonly runner: Pick<ProbeRunner, 'run'>,
    private readonly publish: (result: ProbeResult) => Promise<void>,
    private readonly options: PromotedReplayOptions,
    now?: () => number,
    private readonly store?: PromotedStore,
    /** A store write that failed: the promotion still runs, it only would not survive a restart. */
    private readonly onStoreError: (error: unknown) => void = () => undefined,
  ) {
    this.now = now ?? Date.now;
  }

  /** Promotes the confirmed replays of a segment (a probe already promoted restarts its streak). */
  promote(segment: string, results: readonly ProbeResult[]): void {
    const now = this.now();
    for (const result of results) {
      this.promoted.delete(result.probe_id);
      this.promoted.set(result.probe_id, {
        probe: replayProbe(segment, result.query, new Date(now)),
        segment,
        promotedAt: now,
        nextRunAt: now + this.options.intervalMs,
        cleanStreak: 0,
      });
      this.store?.put({ probe_id: result.probe_id, segment, query: result.query, promoted_at: now }).catch(this.onStoreError);
    }
    this.trim();
  }

  private trim(): void {
    while (this.promoted.size > this.options.maxProbes) this.drop(this.promoted.keys().next().value!);
  }

  private drop(id: string): void {
    this.promoted.delete(id);
    this.store?.remove(id).catch(this.onStoreError);
  }

  /** The promotions a previous process left in the store, due now (once, before the first run). */
  private async restore(): Promise<void> {
    if (this.restored || this.store === undefined) return;
    const now = this.now();
    const stored = await this.store.load(now, this.options.ttlMs);
    this.restored = true;
    for (const entry of stored) {
      if (this.promoted.has(entry.probe_id)) continue;
      this.promoted.set(entry.probe_id, {
        probe: replayProbe(entry.segment, entry.query, new Date(entry.promoted_at)),
        segment: entry.segment,
        promotedAt: entry.promoted_at,
        nextRunAt: now,
        cleanStreak: 0,
      });
    }
    this.trim();
  }

  probeIds(): string[] {
    return [...this.promoted.keys()];
  }

  /** Runs the promoted probes that are due, publishes every result, expires the healed and the old. */
  async runDue(): Promise<PromotedRun> {
    await this.restore().catch(this.onStoreError);
    const outcome: PromotedRun = { ran: 0, anomalous: 0, expired: [], healedSegments: [] };
    const cleanExpired = new Set<string>();
    for (const [id, entry] of [...this.promoted.entries()]) {
      const now = this.now();
      if (now - entry.promotedAt >= this.options.ttlMs) {
        this.drop(id);
        outcome.expired.push(id);
        continue;
      }
      if (entry.nextRunAt > now) continue;
      entry.nextRunAt = now + this.options.intervalMs;
      const result = { ...(await this.runner.run(entry.probe)), origin: 'traffic' as const, segment: entry.segment };
      outcome.ran++;
      await this.publish(result);
      if (result.anomaly) {
        outcome.anomalous++;
        entry.cleanStreak = 0;
      } else if (++entry.cleanStreak >= this.options.cleanRoundsToExpire) {
        this.drop(id);
        outcome.expired.push(id);
        cleanExpired.add(entry.segment);
      }
    }
    const stillPromoted = new Set([...this.promoted.values()].map((entry) => entry.segment));
    outcome.healedSegments = [...cleanExpired].filter((segment) => !stillPromoted.has(segment));
    return outcome;
  }
}
