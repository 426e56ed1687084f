/**
 * Per-segment (knowledge id) change detection on the rate of bad answers, against a clean profile
 * learned from the segment's own first answers.
 *
 * Profile: the segment's first `profileAnswers` answers give its clean bad rate, shrunk toward the
 * rate pooled over every profiled answer with `priorWeight` pseudo-answers (a rarely asked segment
 * borrows the RAG's rate instead of guessing from a handful), and taken at the upper bound of its
 * one-sided Wilson interval (z = `confidenceZ`) on (bad_s + m p_pool) of (n_s + m), never below
 * `minCleanRate`. The bound matters: a p0 learned too low from a few dozen answers puts the CUSUM's
 * neutral rate under the true clean rate and the false alarms go far over budget (a simulated day of
 * 40 segments gave 112 instead of 1 with the point estimate); and its usual top retrieval score (median). Profiled answers are
 * recounted with that median once it is known, so p0 includes the score signal it will be judged by.
 *
 * Detection: a Bernoulli CUSUM per segment from p0 to p1 = max(p0 + shift, 2 p0), h = ln(ARL0),
 * ARL0 = answersPerDay / alarmsPerDay: with every segment's CUSUM at that ARL0 (in its own answers),
 * the false alarms summed over segments are at most answersPerDay / ARL0 = alarmsPerDay.
 *
 * Re-profiling: the bound holds only if p0 is at least the segment's true clean rate. A profile of
 * a few answers can still miss it (a segment whose paraphrases retrieve lower scores than its first
 * askers' did: p0 0.34 learned, 0.55-0.63 observed, four alarms in six minutes in the traffic bench
 * of 2026-12-07). When the shadow replay rejects a segment's alarm, the answers since its profile
 * were judged clean by the baseline, so `relearn` re-estimates p0 over the profile and those answers
 * together (the same shrunk upper bound) and never lowers it: each rejection makes the next false
 * alarm of that segment less likely, and the replay caps are not spent on one noisy segment.
 */
import { BernoulliCusum, alternativeRate, bernoulliCusumDesign, type CusumDesign } from './bernoulli-cusum.ts';

export interface DriftMonitorOptions {
  profileAnswers: number;
  priorWeight: number;
  minCleanRate: number;
  /** z of the one-sided upper confidence bound on the clean rate (1.645: 95%). */
  confidenceZ: number;
  /** Bad-rate increase the CUSUM is tuned to catch fastest (p1 = p0 + shift). */
  shift: number;
  answersPerDay: number;
  alarmsPerDay: number;
  /** After an alarm the segment is not flagged again for this long (its replay and incident run meanwhile). */
  cooldownMs: number;
  now?: () => number;
}

interface ProfiledAnswer {
  /** Bad by a signal other than the score drop. */
  badOther: boolean;
  topScore: number | undefined;
}

interface SegmentState {
  profile: ProfiledAnswer[];
  usualTopScore?: number;
  cusum?: BernoulliCusum;
  quietUntil: number;
  answers: number;
  bad: number;
  /** What p0 is estimated from: the profile's answers, then those since, added at each re-profile. */
  learnedAnswers: number;
  learnedBad: number;
  /** Judged answers since the last (re-)profile. */
  sinceAnswers: number;
  sinceBad: number;
  relearned: number;
}

export interface SegmentSummary {
  segment: string;
  answers: number;
  bad: number;
  profiled: boolean;
  usual_top_score: number | null;
  design: CusumDesign | null;
  statistic: number | null;
  /** Times its p0 was re-learned after a rejected alarm. */
  relearned: number;
}

/** Upper bound of the Wilson score interval for `successes` of `n` at normal quantile z. */
export function wilsonUpper(successes: number, n: number, z: number): number {
  const p = successes / n;
  const z2 = z * z;
  return (p + z2 / (2 * n) + z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
}

export class DriftMonitor {
  private readonly segments = new Map<string, SegmentState>();
  private pooledAnswers = 0;
  private pooledBad = 0;
  private readonly now: () => number;
  readonly arl0: number;

  constructor(private readonly options: DriftMonitorOptions) {
    this.now = options.now ?? Date.now;
    this.arl0 = options.answersPerDay / options.alarmsPerDay;
  }

  usualTopScore(segment: string): number | undefined {
    return this.segments.get(segment)?.usualTopScore;
  }

  /**
   * Adds one answer of a segment. `badOther`: bad by any signal but the score drop; `scoreDropped`:
   * its top score is far below the usual (meaningful only once profiled). True when the segment alarms.
   */
  observe(
    segment: string,
    answer: { badOther: boolean; scoreDropped: boolean; topScore: number | undefined },
    scoreDropRatio: number,
  ): boolean {
    let state = this.segments.get(segment);
    if (state === undefined) {
      state = {
        profile: [],
        quietUntil: 0,
        answers: 0,
        bad: 0,
        learnedAnswers: 0,
        learnedBad: 0,
        sinceAnswers: 0,
        sinceBad: 0,
        relearned: 0,
      };
      this.segments.set(segment, state);
    }
    state.answers++;
    if (state.cusum === undefined) {
      state.profile.push({ badOther: answer.badOther, topScore: answer.topScore });
      if (answer.badOther) state.bad++;
      if (state.profile.length >= this.options.profileAnswers) this.finishProfile(state, scoreDropRatio);
      return false;
    }
    const bad = answer.badOther || answer.scoreDropped;
    if (bad) state.bad++;
    state.sinceAnswers++;
    if (bad) state.sinceBad++;
    const alarm = state.cusum.observe(bad);
    if (!alarm) return false;
    state.cusum.reset();
    if (this.now() < state.quietUntil) return false;
    state.quietUntil = this.now() + this.options.cooldownMs;
    return true;
  }

  private finishProfile(state: SegmentState, scoreDropRatio: number): void {
    const scores = state.profile
      .map((a) => a.topScore)
      .filter((s): s is number => s !== undefined)
      .sort((a, b) => a - b);
    if (scores.length > 0) state.usualTopScore = scores[Math.floor(scores.length / 2)]!;
    const usual = state.usualTopScore;
    const bad = state.profile.filter(
      (a) => a.badOther || (usual !== undefined && a.topScore !== undefined && a.topScore < scoreDropRatio * usual),
    ).length;
    this.pooledAnswers += state.profile.length;
    this.pooledBad += bad;
    state.learnedAnswers = state.profile.length;
    state.learnedBad = bad;
    state.cusum = new BernoulliCusum(this.design(state.learnedBad, state.learnedAnswers));
    state.profile = [];
  }

  /** The CUSUM design for a clean rate estimated from `bad` of `n` answers (shrunk, upper bound). */
  private design(bad: number, n: number): CusumDesign {
    const pooled = (this.pooledBad + 1) / (this.pooledAnswers + 2);
    const m = this.options.priorWeight;
    const p0 = Math.min(0.9, Math.max(this.options.minCleanRate, wilsonUpper(bad + m * pooled, n + m, this.options.confidenceZ)));
    return bernoulliCusumDesign(p0, alternativeRate(p0, this.options.shift), this.arl0);
  }

  /**
   * The shadow replay rejected this segment's alarm: its answers since the last profile count as
   * clean evidence, and p0 is re-estimated over them and the profile (never lowered). False when
   * the segment has no profile yet. The cooldown set by the alarm stays.
   */
  relearn(segment: string): boolean {
    const state = this.segments.get(segment);
    if (state?.cusum === undefined) return false;
    state.learnedAnswers += state.sinceAnswers;
    state.learnedBad += state.sinceBad;
    state.sinceAnswers = 0;
    state.sinceBad = 0;
    const next = this.design(state.learnedBad, state.learnedAnswers);
    const current = state.cusum.design;
    state.cusum = new BernoulliCusum(next.p0 > current.p0 ? next : current);
    state.relearned++;
    return true;
  }

  summary(): SegmentSummary[] {
    return [...this.segments.entries()].map(([segment, s]) => ({
      segment,
      answers: s.answers,
      bad: s.bad,
      profiled: s.cusum !== undefined,
      usual_top_score: s.usualTopScore ?? null,
      design: s.cusum?.design ?? null,
      statistic: s.cusum?.statistic ?? null,
      relearned: s.relearned,
    }));
  }
}
