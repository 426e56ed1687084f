/**
 * Evidence pooled over a probe's runs (issue 39, item 1). One sampled run of k answers a side can
 * only fire on a near-perfect split (k = 5: p >= 1/252), so a change that moves the samples a little
 * every run is never seen, and re-testing a fixed window every run has no stated false-alarm rate.
 *
 * Here each run's test (its p and the exact permutation distribution of that p under "online and
 * baseline samples are exchangeable") becomes an e-value: a mixture of the calibrators p^(kappa-1),
 * each divided by its exact expectation over that null distribution, so E[e] = 1 exactly under the
 * null, given every run before. The e-values feed a CUSUM e-detector (Shin, Ramdas & Rinaldo,
 * "E-detectors", 2022): M_t = e_t * max(M_{t-1}, 1), alarming when M_t >= threshold. The CUSUM
 * statistic is below the Shiryaev–Roberts one, whose value minus t is a martingale under the null;
 * by optional stopping the expected number of clean runs before a false alarm is at least the
 * threshold. With `signals` detectors on one probe, each alarming at signals / alpha, the mean of
 * their SR statistics minus t is still a martingale and is >= 1 / alpha at any alarm, so the
 * expected clean runs of the probe between false anomalies (all its pooled signals together) are
 * at least 1 / alpha. All of a probe's detectors restart after any of them alarms (whether or not
 * the alarm raised its signal: a change too small to matter, or a legitimate knowledge update, must
 * not keep a probe alarmed and sampled at the most forever). Every alarm is then a fresh start, so
 * the bound holds between any two alarms, not only up to the first; a fault that persists fires
 * again as soon as its fresh evidence reaches the threshold (a repair is judged on fresh runs).
 */
import type { NullDistribution } from './sample-test.ts';

/** The calibrators mixed: small kappa bets on rare very small p, larger on frequent moderate ones. */
const KAPPAS = [0.1, 0.25, 0.5] as const;

/**
 * The e-value of one run's test: the mean over KAPPAS of p^(kappa-1) / E0[p^(kappa-1)], the
 * expectation taken over the exact null distribution of the p. Each term has expectation exactly 1
 * under the null, so the mean does too; a run whose samples cannot differ (every p is 1) gives 1.
 */
export function eValue(test: NullDistribution): number {
  let sum = 0;
  for (const kappa of KAPPAS) {
    const norm = test.nullPs.reduce((acc, { p, weight }) => acc + weight * p ** (kappa - 1), 0);
    sum += test.p ** (kappa - 1) / norm;
  }
  return sum / KAPPAS.length;
}

/** The pooled signals of one probe, each with its own detector. */
export const POOLED_SIGNALS = ['fcs', 'ic', 'facts'] as const;
export type PooledSignal = (typeof POOLED_SIGNALS)[number];

/** The alarm threshold of each detector for a per-probe level alpha: signals / alpha (see above). */
export function pooledThreshold(alpha: number): number {
  return POOLED_SIGNALS.length / alpha;
}

/** The CUSUM e-detector of one signal of one probe. */
export class EDetector {
  private value = 0;

  get statistic(): number {
    return this.value;
  }

  /** The statistic once this run's e-value is in (not yet kept: see keep). */
  next(e: number): number {
    if (!(e >= 0) || !Number.isFinite(e)) throw new RangeError(`an e-value is a finite number >= 0, got ${e}`);
    return e * Math.max(this.value, 1);
  }

  keep(value: number): void {
    this.value = value;
  }

  reset(): void {
    this.value = 0;
  }
}

/** What the pooled test says about one signal after this run. */
export interface PooledSignalState {
  /** This run's e-value; null when the run had nothing to test (a side without a score or answer). */
  e: number | null;
  /** This run's own p (the test the e-value came from); null as e. */
  p: number | null;
  /** The detector's statistic after this run (before any restart an alarm causes). */
  statistic: number;
  alarm: boolean;
}

export type PooledVerdict = Record<PooledSignal, PooledSignalState> & { alpha: number; threshold: number };

export interface PooledEvidenceOptions {
  /** Per-probe level: expected clean runs between false anomalies at least 1 / alpha. */
  alpha: number;
  /** Probes whose detectors are kept (least recently run dropped first; default 10,000). */
  maxProbes?: number;
}

/**
 * The detectors of every probe, in memory: a restart of the sentinel starts every probe afresh
 * (the guarantee holds from there; a fault present at restart is found again from fresh runs).
 * Bounded: at most maxProbes probes are kept, the least recently run forgotten first.
 */
export class PooledEvidence {
  private readonly probes = new Map<string, Record<PooledSignal, EDetector>>();
  readonly threshold: number;

  constructor(private readonly options: PooledEvidenceOptions) {
    if (!(options.alpha > 0 && options.alpha < 1)) throw new RangeError(`pooled test alpha must be in (0, 1), got ${options.alpha}`);
    this.threshold = pooledThreshold(options.alpha);
  }

  private detectors(probeId: string): Record<PooledSignal, EDetector> {
    let entry = this.probes.get(probeId);
    if (entry !== undefined) this.probes.delete(probeId);
    else entry = { fcs: new EDetector(), ic: new EDetector(), facts: new EDetector() };
    this.probes.set(probeId, entry); // most recently used last
    const max = this.options.maxProbes ?? 10_000;
    while (this.probes.size > max) this.probes.delete(this.probes.keys().next().value!);
    return entry;
  }

  /** The largest statistic of the probe's detectors (0 for a probe never run): how far its evidence leans. */
  leaning(probeId: string): number {
    const entry = this.probes.get(probeId);
    return entry === undefined ? 0 : Math.max(...POOLED_SIGNALS.map((s) => entry[s].statistic));
  }

  get size(): number {
    return this.probes.size;
  }

  /**
   * Adds one run's tests (null: nothing tested for that signal this run, the detector is unchanged)
   * and returns the verdict. `commit` then keeps the new statistics, or restarts every detector of
   * the probe when one alarmed; until then nothing changes (a run that throws leaves no trace).
   */
  observe(probeId: string, tests: Record<PooledSignal, NullDistribution | null>): { verdict: PooledVerdict; commit: () => void } {
    const detectors = this.detectors(probeId);
    const states = {} as Record<PooledSignal, PooledSignalState>;
    for (const signal of POOLED_SIGNALS) {
      const test = tests[signal];
      const e = test === null ? null : eValue(test);
      const statistic = e === null ? detectors[signal].statistic : detectors[signal].next(e);
      states[signal] = { e, p: test?.p ?? null, statistic, alarm: statistic >= this.threshold };
    }
    return {
      verdict: { ...states, alpha: this.options.alpha, threshold: this.threshold },
      commit: () => {
        const alarmed = POOLED_SIGNALS.some((signal) => states[signal].alarm);
        for (const signal of POOLED_SIGNALS) {
          if (alarmed) detectors[signal].reset();
          else detectors[signal].keep(states[signal].statistic);
        }
      },
    };
  }
}
