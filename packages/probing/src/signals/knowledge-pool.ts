/**
 * Evidence pooled across the probes that ask about the same knowledge (issue 39). A fault on one
 * knowledge id moves the answers of every probe that expects it, but each probe's own detector
 * (pooled-test.ts) sees only its own few samples a run. Here every run of any of those probes feeds
 * one CUSUM e-detector per signal for that knowledge id, so with m probes on it the evidence grows
 * about m times a round instead of once.
 *
 * Validity: each run's e-value has expectation exactly 1 under "online and baseline samples are
 * exchangeable" given the permutation null of that run's own samples (pooled-test.ts: eValue), and
 * the samples of different runs are independent RAG calls, so the runs of all probes on a knowledge
 * id, in the order they finish, are a sequence of e-values each of expectation 1 given everything
 * before. The same CUSUM bound then holds over that interleaved sequence: with the pool's detectors
 * alarming at signals / alphaPool, the expected runs (of all its probes together) between false
 * alarms of one pool are at least 1 / alphaPool. A probe's run can raise an anomaly from its own
 * detectors (rate <= alpha per run) or from each pool it feeds (<= alphaPool per pooled run); over
 * the whole sentinel the false anomalies per probe run are at most alpha + s x alphaPool, s the mean
 * knowledge ids per probe (1 for the generated probe sets).
 *
 * A pool alarms only once at least minProbes distinct probes have fed it since its last restart
 * (default 2): a knowledge id one probe alone asks about is already watched by that probe's own
 * detector, and pooling it would spend false-alarm budget twice on the same evidence. Holding an
 * alarm back only delays it, so the bound above still holds (the statistic at any alarm is still
 * past the threshold, which is all the optional-stopping argument needs). A pool restarts every
 * detector after any alarm, as a probe's do.
 *
 * Updates are made at once (no commit step, unlike PooledEvidence): runs of several probes on one
 * knowledge id finish concurrently, and a read-then-write across an await would lose one of them.
 */
import { POOLED_SIGNALS, pooledThreshold, EDetector, type PooledSignal, type PooledVerdict } from './pooled-test.ts';

export interface KnowledgePoolOptions {
  /** Level per pool: expected runs of its probes between false alarms of the pool at least 1 / alpha. */
  alpha: number;
  /** Distinct probes that must have fed a pool since its restart before it may alarm (default 2, >= 2). */
  minProbes?: number;
  /** Knowledge ids whose pools are kept (least recently fed forgotten first; default 10,000). */
  maxKnowledge?: number;
}

/** What one pool says after one run of one of its probes. */
export interface KnowledgePoolVerdict {
  knowledgeId: string;
  alpha: number;
  threshold: number;
  /** The distinct probes that fed the pool since its last restart, this one included (first 16 by arrival). */
  probeIds: string[];
  /** How many distinct probes that is (probeIds is bounded, this is not). */
  probes: number;
  /** Runs pooled since the last restart, this one included. */
  runs: number;
  /** Each detector's statistic after this run (before the restart an alarm causes). */
  statistic: Record<PooledSignal, number>;
  /** Which detectors alarmed on this run (never before minProbes probes fed the pool). */
  alarm: Record<PooledSignal, boolean>;
}

const MAX_LISTED_PROBES = 16;

interface Pool {
  detectors: Record<PooledSignal, EDetector>;
  probes: Set<string>;
  runs: number;
}

export class KnowledgePooledEvidence {
  private readonly pools = new Map<string, Pool>();
  readonly threshold: number;
  readonly minProbes: number;

  constructor(private readonly options: KnowledgePoolOptions) {
    if (!(options.alpha > 0 && options.alpha < 1)) throw new RangeError(`knowledge pool alpha must be in (0, 1), got ${options.alpha}`);
    this.minProbes = options.minProbes ?? 2;
    if (!Number.isInteger(this.minProbes) || this.minProbes < 2)
      throw new RangeError(`knowledge pool minProbes must be an integer >= 2, got ${options.minProbes}`);
    this.threshold = pooledThreshold(options.alpha);
  }

  get size(): number {
    return this.pools.size;
  }

  /**
   * The largest statistic of the pools of these knowledge ids (0 when none was fed): how far the
   * evidence on the probe's knowledge leans, from earlier runs only (adaptive sampling may use it).
   */
  leaning(knowledgeIds: readonly string[]): number {
    let most = 0;
    for (const id of knowledgeIds) {
      const pool = this.pools.get(id);
      if (pool !== undefined) for (const signal of POOLED_SIGNALS) most = Math.max(most, pool.detectors[signal].statistic);
    }
    return most;
  }

  private pool(knowledgeId: string): Pool {
    let entry = this.pools.get(knowledgeId);
    if (entry !== undefined) this.pools.delete(knowledgeId);
    else entry = { detectors: { fcs: new EDetector(), ic: new EDetector(), facts: new EDetector() }, probes: new Set(), runs: 0 };
    this.pools.set(knowledgeId, entry); // most recently fed last
    const max = this.options.maxKnowledge ?? 10_000;
    while (this.pools.size > max) this.pools.delete(this.pools.keys().next().value!);
    return entry;
  }

  /**
   * Feeds one run's e-values (null: nothing tested for that signal, the detector is unchanged) into
   * the pool of each knowledge id the probe expects, and returns each pool's verdict. A pool that
   * alarms restarts at once; the verdict still shows the statistic that alarmed.
   */
  observe(probeId: string, knowledgeIds: readonly string[], es: Record<PooledSignal, number | null>): KnowledgePoolVerdict[] {
    return [...new Set(knowledgeIds)].map((knowledgeId) => {
      const pool = this.pool(knowledgeId);
      // A run that tested nothing (every call of a side failed) is no evidence: it neither counts
      // as a pooled run nor lets its probe open the pool.
      const tested = POOLED_SIGNALS.some((signal) => es[signal] !== null);
      if (tested) {
        pool.probes.add(probeId);
        pool.runs += 1;
      }
      const statistic = {} as Record<PooledSignal, number>;
      const alarm = {} as Record<PooledSignal, boolean>;
      const open = tested && pool.probes.size >= this.minProbes;
      for (const signal of POOLED_SIGNALS) {
        const e = es[signal];
        statistic[signal] = e === null ? pool.detectors[signal].statistic : pool.detectors[signal].next(e);
        alarm[signal] = open && statistic[signal] >= this.threshold;
      }
      const verdict: KnowledgePoolVerdict = {
        knowledgeId,
        alpha: this.options.alpha,
        threshold: this.threshold,
        probeIds: [...pool.probes].slice(0, MAX_LISTED_PROBES),
        probes: pool.probes.size,
        runs: pool.runs,
        statistic,
        alarm,
      };
      if (POOLED_SIGNALS.some((signal) => alarm[signal])) {
        for (const signal of POOLED_SIGNALS) pool.detectors[signal].reset();
        pool.probes.clear();
        pool.runs = 0;
      } else for (const signal of POOLED_SIGNALS) pool.detectors[signal].keep(statistic[signal]);
      return verdict;
    });
  }
}

/**
 * The probe's own verdict with each signal's alarm raised also when a knowledge pool it fed alarmed
 * on that signal this run (the statistics stay the probe's own; the pools are reported beside them).
 */
export function withPoolAlarms(own: PooledVerdict, pools: readonly KnowledgePoolVerdict[]): PooledVerdict {
  if (!pools.some((pool) => POOLED_SIGNALS.some((signal) => pool.alarm[signal]))) return own;
  const raised = { ...own };
  for (const signal of POOLED_SIGNALS) if (pools.some((pool) => pool.alarm[signal])) raised[signal] = { ...own[signal], alarm: true };
  return raised;
}
