/**
 * A Bernoulli CUSUM (Page 1954; Reynolds & Stoumbos 1999) on one segment's stream of answers, each
 * bad (1) or not (0): S_t = max(0, S_{t-1} + x_t ln(p1/p0) + (1 - x_t) ln((1 - p1)/(1 - p0))),
 * an alarm when S_t >= h. p0 is the segment's clean bad rate (learned from its own traffic), p1 the
 * rate worth an alarm.
 *
 * The threshold is CHOSEN from the alarm budget, not tuned to faults: h = ln(ARL0). The increments
 * are log-likelihood ratios, so each excursion of S above 0 is a one-sided SPRT whose probability of
 * reaching h under p0 is at most e^-h (Wald's inequality; Lorden 1971); excursions are at least one
 * answer long, so the average run length to a false alarm is at least e^h = ARL0 answers. The bound
 * is conservative (the true ARL0 is larger), which spends less than the budget, never more.
 */
export interface CusumDesign {
  /** Clean bad rate. */
  p0: number;
  /** Bad rate to detect. */
  p1: number;
  /** Decision threshold, ln(arl0). */
  h: number;
  /** Answers between false alarms the threshold guarantees at least. */
  arl0: number;
}

/** The rate to detect for a clean rate p0: p0 + shift, at least twice p0, below 1. */
export function alternativeRate(p0: number, shift: number): number {
  return Math.min(0.99, Math.max(p0 + shift, 2 * p0));
}

export function bernoulliCusumDesign(p0: number, p1: number, arl0: number): CusumDesign {
  if (!(p0 > 0 && p0 < 1)) throw new RangeError(`p0 must be in (0, 1), got ${p0}`);
  if (!(p1 > p0 && p1 < 1)) throw new RangeError(`p1 must be in (p0, 1), got ${p1}`);
  if (!(arl0 > 1)) throw new RangeError(`arl0 must be > 1, got ${arl0}`);
  return { p0, p1, h: Math.log(arl0), arl0 };
}

/** Mean increment of S per answer when the true bad rate is p (positive above the design's neutral rate). */
export function meanIncrement(design: CusumDesign, p: number): number {
  const { p0, p1 } = design;
  return p * Math.log(p1 / p0) + (1 - p) * Math.log((1 - p1) / (1 - p0));
}

/**
 * Wald's approximation of the answers needed to alarm from S = 0 after a shift to bad rate p
 * (h over the mean increment, plus one increment of overshoot); Infinity when S drifts down.
 */
export function expectedDelay(design: CusumDesign, p: number): number {
  const drift = meanIncrement(design, p);
  if (drift <= 0) return Infinity;
  return (design.h + Math.log(design.p1 / design.p0)) / drift;
}

export class BernoulliCusum {
  private s = 0;
  private readonly up: number;
  private readonly down: number;

  constructor(readonly design: CusumDesign) {
    this.up = Math.log(design.p1 / design.p0);
    this.down = Math.log((1 - design.p1) / (1 - design.p0));
  }

  get statistic(): number {
    return this.s;
  }

  /** Adds one answer; true when the statistic reaches h (the caller decides what an alarm does, then resets). */
  observe(bad: boolean): boolean {
    this.s = Math.max(0, this.s + (bad ? this.up : this.down));
    return this.s >= this.design.h;
  }

  reset(): void {
    this.s = 0;
  }
}
