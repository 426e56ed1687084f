import type { AnomalySeverity, AnomalySignal, ProbeObservation } from '@rag-immune/contracts';

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
}

export const defaultThresholds: AnomalyThresholds = { fcsDrop: 0.15, icDrop: 0.2, kfLagDays: 30 };

export interface BaselineVerdict {
  comparison: { fcs_drop: number | null; ic_drop: number | null; kf_lag_days: number | null };
  anomaly: boolean;
  severity: AnomalySeverity;
  signals: AnomalySignal[];
}

function difference(a: number | null | undefined, b: number | null | undefined): number | null {
  return a === null || a === undefined || b === null || b === undefined ? null : a - b;
}

const DAY_MS = 86_400_000;

/**
 * Severity grows with how far past its threshold the worst signal is: up to 1.5x is low, 2.5x
 * medium, 4x high, beyond critical. An online RAG that fails while the baseline answers is high:
 * users are failing now. A failing baseline alone is low: nothing to compare against, but the
 * online side may be fine.
 */
export function compareWithBaseline(online: ProbeObservation, baseline: ProbeObservation, thresholds: AnomalyThresholds): BaselineVerdict {
  const comparison = {
    fcs_drop: difference(baseline.signals?.fcs, online.signals?.fcs),
    ic_drop: difference(baseline.signals?.ic, online.signals?.ic),
    kf_lag_days: ((lag) => (lag === null ? null : lag / DAY_MS))(difference(baseline.signals?.kf_as_of, online.signals?.kf_as_of)),
  };
  const signals: AnomalySignal[] = [];
  let worstRatio = 0;
  const check = (value: number | null, threshold: number, signal: AnomalySignal) => {
    if (value === null || value <= threshold) return;
    signals.push(signal);
    worstRatio = Math.max(worstRatio, value / threshold);
  };
  check(comparison.fcs_drop, thresholds.fcsDrop, 'fcs_drop');
  check(comparison.ic_drop, thresholds.icDrop, 'ic_drop');
  check(comparison.kf_lag_days, thresholds.kfLagDays, 'kf_stale');

  let severity: AnomalySeverity =
    worstRatio === 0 ? 'none' : worstRatio <= 1.5 ? 'low' : worstRatio <= 2.5 ? 'medium' : worstRatio <= 4 ? 'high' : 'critical';
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
