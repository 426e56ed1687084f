import type { GoldenProbe } from '../golden-probe.ts';
import { defaultThresholds } from '../signals/baseline-comparison.ts';
import { BROKEN_FCS_FLOOR } from '../signals/detectability.ts';

export interface RotationOptions {
  /** A probe whose online FCS stayed above this has lost its warning value. */
  alwaysHealthyAbove: number;
  /** A probe whose online FCS stayed below this points at a dead knowledge source. */
  alwaysBrokenBelow: number;
  /** Fewer runs than this in the window is too little evidence to retire anything. */
  minRuns: number;
  /**
   * The sentinel's FCS drop threshold: a probe whose online FCS never rose above it plus the broken
   * floor cannot show a drop and is retired as unable to fire (default: the sentinel's default).
   */
  fcsDrop?: number;
}

export const defaultRotationOptions: RotationOptions = { alwaysHealthyAbove: 0.95, alwaysBrokenBelow: 0.3, minRuns: 6 };

export interface RotationDecision {
  probe: GoldenProbe;
  runs: number;
  min: number | null;
  max: number | null;
  retire: boolean;
  reason: string;
}

/**
 * Decides which active probes to retire from their recent online FCS history (design document
 * section 3.1: "retire probes whose FCS stays > 0.95 (too stable to warn) or < 0.3 (source gone)").
 */
export function planRotation(
  probes: readonly GoldenProbe[],
  history: ReadonlyMap<string, number[]>,
  options = defaultRotationOptions,
): RotationDecision[] {
  return probes.map((probe) => {
    const scores = history.get(probe.id) ?? [];
    const min = scores.length > 0 ? Math.min(...scores) : null;
    const max = scores.length > 0 ? Math.max(...scores) : null;
    const decision = (retire: boolean, reason: string): RotationDecision => ({ probe, runs: scores.length, min, max, retire, reason });
    if (scores.length < options.minRuns) return decision(false, `only ${scores.length} runs (< ${options.minRuns})`);
    if (min !== null && min > options.alwaysHealthyAbove)
      return decision(true, `always healthy: FCS stayed above ${options.alwaysHealthyAbove}`);
    if (max !== null && max < options.alwaysBrokenBelow)
      return decision(true, `always broken: FCS stayed below ${options.alwaysBrokenBelow}`);
    const canFireAbove = (options.fcsDrop ?? defaultThresholds.fcsDrop) + BROKEN_FCS_FLOOR;
    if (max !== null && max <= canFireAbove)
      return decision(true, `cannot fire: FCS never above ${canFireAbove.toFixed(2)}, so a drop by the threshold cannot show`);
    return decision(false, 'still informative');
  });
}

/** The probe list after retiring the decided probes at `now` and appending the replacements. */
export function applyRotation(
  probes: readonly GoldenProbe[],
  decisions: readonly RotationDecision[],
  replacements: readonly GoldenProbe[],
  now: Date,
): GoldenProbe[] {
  const retiring = new Map(decisions.filter((d) => d.retire).map((d) => [d.probe.id, d.reason]));
  const at = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const kept = probes.map((probe) => {
    const reason = retiring.get(probe.id);
    return reason === undefined ? probe : { ...probe, retired_at: at, retired_reason: reason };
  });
  const taken = new Set(kept.map((p) => p.id));
  return [...kept, ...replacements.filter((r) => !taken.has(r.id))];
}
