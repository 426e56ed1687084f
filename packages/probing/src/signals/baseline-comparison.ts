import type { AnomalySeverity, AnomalySignal, BaselineComparison, ProbeObservation } from '@rag-immune/contracts';
import type { AnswerComparison } from './answer-agreement.ts';
import type { CallHealthComparison } from './call-health.ts';
import { misattributed } from './attribution.ts';
import { median, sampledDrop, sampledDropFires, type SampledDrop } from './sample-test.ts';
import type { PooledVerdict } from './pooled-test.ts';

export interface AnomalyThresholds {
  /** Online FCS this much below the baseline's is an anomaly (design default 0.15). */
  fcsDrop: number;
  icDrop: number;
  /**
   * Online knowledge this many days older than the frozen baseline's. Compared as dates, not as
   * ages: the baseline is pinned in the past, so its knowledge is the oldest the online RAG
   * should ever serve; ages would differ by however long ago each package last changed.
   */
  kfLagDays: number;
  /** Answers whose key-fact agreement is below this differ (default 1: any differing fact). */
  answerAgreementMin?: number;
  /** A differing online answer this unsupported by the baseline's evidence (or the reverse) disagrees (default 0.5). */
  crossFcsMin?: number;
  /** Online p95 latency this many times the baseline's is a regression (default 3)... */
  latencyP95Ratio?: number;
  /** ...and at least this many ms more, so jitter on fast calls is not one (default 1000). */
  latencyMinExtraMs?: number;
  /** Share of recent online calls timing out above which a timed-out run is flagged (default 0.2). */
  timeoutRate?: number;
}

export const defaultThresholds: AnomalyThresholds = { fcsDrop: 0.15, icDrop: 0.2, kfLagDays: 30 };

/** The optional thresholds' defaults, applied wherever a caller left them out. */
export const answerAndLatencyDefaults: Required<Omit<AnomalyThresholds, 'fcsDrop' | 'icDrop' | 'kfLagDays'>> = {
  answerAgreementMin: 1,
  crossFcsMin: 0.5,
  latencyP95Ratio: 3,
  latencyMinExtraMs: 1000,
  timeoutRate: 0.2,
};

/**
 * The sampled mode's scores: each side queried `count` times, the scores of the calls that were
 * scored. fcs_drop and ic_drop then compare the medians and fire only when the one-sided exact
 * Mann–Whitney test of online against baseline gives p < alpha (see sample-test.ts).
 */
export interface SampledScores {
  count: number;
  alpha: number;
  fcs: { online: readonly number[]; baseline: readonly number[] };
  ic: { online: readonly number[]; baseline: readonly number[] };
}

/** What the ProbeRunner measured beyond each side's own signals (all optional: older callers pass none). */
export interface ComparisonInputs {
  answers?: AnswerComparison;
  calls?: CallHealthComparison;
  /** Absent: one call a side, compared one against the other (the behaviour before the sampled mode). */
  samples?: SampledScores;
  /**
   * Sampled with the pooled test (pooled-test.ts): fcs_drop and ic_drop fire when their detector
   * alarms (instead of this run's p < alpha) and this run's median drop is past the threshold; a
   * facts detector's alarm is an answer_disagreement unless the online side's knowledge is a
   * legitimate update.
   */
  pooled?: PooledVerdict;
}

type SampleFields =
  | 'samples'
  | 'fcs_sample_test_p'
  | 'ic_sample_test_p'
  | 'online_fcs_median'
  | 'baseline_fcs_median'
  | 'online_ic_median'
  | 'baseline_ic_median'
  | 'pooled_test';

/** The comparison; the sampled mode's fields are present only when the run was sampled. */
export type ComparedSignals = Omit<BaselineComparison, SampleFields> & Partial<Pick<BaselineComparison, SampleFields>>;

export interface BaselineVerdict {
  comparison: ComparedSignals;
  anomaly: boolean;
  severity: AnomalySeverity;
  signals: AnomalySignal[];
}

function difference(a: number | null | undefined, b: number | null | undefined): number | null {
  return a === null || a === undefined || b === null || b === undefined ? null : a - b;
}

/** The median of a side's sampled scores; null when no sample had the score. */
function medianOrNull(values: readonly number[]): number | null {
  return values.length === 0 ? null : median(values);
}

const DAY_MS = 86_400_000;

/**
 * Severity grows with how far past its threshold the worst signal is: up to 1.5x is low, 2.5x
 * medium, 4x high, beyond critical. An online RAG that fails while the baseline answers is high:
 * users are failing now. A failing baseline alone is low: nothing to compare against, but the
 * online side may be fine.
 */
export function compareWithBaseline(
  online: ProbeObservation,
  baseline: ProbeObservation,
  thresholds: AnomalyThresholds,
  inputs: ComparisonInputs = {},
): BaselineVerdict {
  const limits = { ...answerAndLatencyDefaults, ...definedOnly(thresholds) };
  const { answers, calls, samples, pooled } = inputs;
  const fcsTest = samples && sampledDrop(samples.fcs.online, samples.fcs.baseline);
  const icTest = samples && sampledDrop(samples.ic.online, samples.ic.baseline);
  const comparison: ComparedSignals = {
    fcs_drop: samples ? (fcsTest?.drop ?? null) : difference(baseline.signals?.fcs, online.signals?.fcs),
    ic_drop: samples ? (icTest?.drop ?? null) : difference(baseline.signals?.ic, online.signals?.ic),
    kf_lag_days: ((lag) => (lag === null ? null : lag / DAY_MS))(difference(baseline.signals?.kf_as_of, online.signals?.kf_as_of)),
    answer_agreement: answers?.answer_agreement ?? null,
    online_answer_vs_baseline_fcs: answers?.online_answer_vs_baseline_fcs ?? null,
    baseline_answer_vs_online_fcs: answers?.baseline_answer_vs_online_fcs ?? null,
    knowledge_update: answers?.knowledge_update ?? false,
    altered_chunks: answers?.altered_chunks ?? [],
    online_latency_p95_ms: calls?.online_latency_p95_ms ?? null,
    baseline_latency_p95_ms: calls?.baseline_latency_p95_ms ?? null,
    online_timeout_rate: calls?.online_timeout_rate ?? null,
    feed_check: answers?.feed_check?.status ?? null,
    unpublished_knowledge: answers?.feed_check?.unpublished ?? [],
    attribution: answers?.attribution ?? null,
    ...(samples
      ? {
          samples: samples.count,
          fcs_sample_test_p: fcsTest?.p ?? null,
          ic_sample_test_p: icTest?.p ?? null,
          // The medians the drops compare: online.signals carries the representative sample alone.
          online_fcs_median: medianOrNull(samples.fcs.online),
          baseline_fcs_median: medianOrNull(samples.fcs.baseline),
          online_ic_median: medianOrNull(samples.ic.online),
          baseline_ic_median: medianOrNull(samples.ic.baseline),
        }
      : {}),
  };
  const signals: AnomalySignal[] = [];
  let worstRatio = 0;
  const check = (value: number | null, threshold: number, signal: AnomalySignal) => {
    if (value === null || value <= threshold) return;
    signals.push(signal);
    worstRatio = Math.max(worstRatio, value / threshold);
  };
  // Sampled: a median drop the baseline's own spread explains is sampling noise, not a drop.
  const sampledCheck = (test: SampledDrop | null, threshold: number, signal: AnomalySignal, pooledAlarm?: boolean) => {
    const fires = pooledAlarm === undefined ? sampledDropFires(test, threshold, samples!.alpha) : pooledAlarm && test !== null;
    check(fires ? test!.drop : null, threshold, signal);
  };
  if (samples) {
    sampledCheck(fcsTest ?? null, thresholds.fcsDrop, 'fcs_drop', pooled?.fcs.alarm);
    sampledCheck(icTest ?? null, thresholds.icDrop, 'ic_drop', pooled?.ic.alarm);
  } else {
    check(comparison.fcs_drop, thresholds.fcsDrop, 'fcs_drop');
    check(comparison.ic_drop, thresholds.icDrop, 'ic_drop');
  }
  check(comparison.kf_lag_days, thresholds.kfLagDays, 'kf_stale');

  let severity: AnomalySeverity =
    worstRatio === 0 ? 'none' : worstRatio <= 1.5 ? 'low' : worstRatio <= 2.5 ? 'medium' : worstRatio <= 4 ? 'high' : 'critical';
  const raise = (signal: AnomalySignal, at: AnomalySeverity) => {
    signals.push(signal);
    if (SEVERITY_ORDER.indexOf(at) > SEVERITY_ORDER.indexOf(severity)) severity = at;
  };
  if (answers !== undefined && online.call_status === 'ok' && baseline.call_status === 'ok') {
    if (answers.online_answer_empty) raise('empty_answer', 'high');
    else if (disagrees(answers, limits) || (pooled?.facts.alarm === true && !answers.knowledge_update))
      // The pooled facts test: the online answers state other facts than the baseline's, run after run.
      raise('answer_disagreement', answers.altered_chunks.length > 0 ? 'high' : 'medium');
    // Served knowledge its feed never published: wrong whether or not this answer shows it yet.
    if ((answers.feed_check?.unpublished.length ?? 0) > 0) raise('unpublished_knowledge', 'high');
    // Citations that point at another document: the answer may read right, its source does not.
    if (misattributed(answers.attribution)) raise('wrong_attribution', 'medium');
  }
  if (calls !== undefined && online.call_status === 'ok' && slowerThanBaseline(calls, limits)) raise('latency_regression', 'medium');
  if (calls?.online_timed_out && (calls.online_timeout_rate ?? 0) > limits.timeoutRate) raise('timeout_rate', 'high');
  if (online.call_status !== 'ok') {
    signals.push('online_error');
    if (severity !== 'critical') severity = 'high';
  }
  if (baseline.call_status !== 'ok') {
    signals.push('baseline_error');
    if (severity === 'none') severity = 'low';
  }
  return { comparison, anomaly: signals.length > 0, severity, signals };
}

const SEVERITY_ORDER: AnomalySeverity[] = ['none', 'low', 'medium', 'high', 'critical'];

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The answers state different facts, the online side has no newer knowledge to explain it, and
 * either a chunk changed content without a new version, or from the very same evidence the online
 * answer replaced a fact of the baseline's (only generation differs, and it got a fact wrong: FCS
 * misses a fact swapped in from another retrieved passage, since the passage does contain it), or
 * the online answer states a fact no evidence contains while the baseline's facts are all in its
 * evidence (a RAG whose baseline answers also carry facts beyond their evidence, an abstractive one,
 * gets no verdict from this), or one side's answer is not supported by the other side's evidence.
 */
function disagrees(answers: AnswerComparison, limits: typeof answerAndLatencyDefaults): boolean {
  if (answers.answer_agreement === null || answers.answer_agreement >= limits.answerAgreementMin) return false;
  if (answers.knowledge_update) return false;
  if (answers.altered_chunks.length > 0) return true;
  if (answers.fact_replaced_on_same_evidence) return true;
  if (answers.online_ungrounded_facts.length > 0 && answers.baseline_ungrounded_facts.length === 0) return true;
  const unsupported = (fcs: number | null) => fcs !== null && fcs < limits.crossFcsMin;
  return unsupported(answers.online_answer_vs_baseline_fcs) || unsupported(answers.baseline_answer_vs_online_fcs);
}

/** The online p95 is far above the baseline's, and this run's own online call was that slow too. */
function slowerThanBaseline(calls: CallHealthComparison, limits: typeof answerAndLatencyDefaults): boolean {
  const { online_latency_p95_ms: onlineP95, baseline_latency_p95_ms: baselineP95 } = calls;
  if (onlineP95 === null || baselineP95 === null) return false;
  const slowAt = Math.max(baselineP95 * limits.latencyP95Ratio, baselineP95 + limits.latencyMinExtraMs);
  return onlineP95 > slowAt && calls.online_latency_ms > slowAt;
}
