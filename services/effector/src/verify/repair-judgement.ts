/**
 * Keep or undo: a repair is judged probe by probe against the figures taken just before it ran. It
 * is kept when it healed what its cause explains (recovered) or some of it (partial) and made no
 * probe worse; it is undone when it made a probe worse or healed nothing. An on-call engineer keeps
 * a repair that helped and pages for the rest rather than taking the help back.
 */
import type { RepairAction } from '@rag-immune/contracts';
import { answerUnhealthy } from './answer-health.ts';
import type { ProbeMeasurement } from './recovery-verifier.ts';

export type RecoveryOutcome = 'recovered' | 'partial' | 'no_effect' | 'worse';

export interface RepairJudgement {
  outcome: RecoveryOutcome;
  /** Keep the repair applied (recovered, partial) or undo it (no_effect, worse). */
  keep: boolean;
  /** Anomalous before, healthy after (any probe measured). */
  healed: string[];
  /** Probes of the repaired cause still anomalous after. */
  unhealed: string[];
  /** Healthy before, anomalous after. */
  worsened: string[];
}

/**
 * Why a repair must not run on these before-figures, or null when it may: every probe its cause
 * explains already answers without an anomaly (the fault cleared, or the report names healthy probes),
 * so there is nothing for it to heal, and a verification afterwards would find it "recovered" for
 * having changed nothing. An inconclusive measurement (the baseline did not answer) says nothing
 * either way: the repair runs and its verification decides.
 */
export function nothingToRepair(before: ProbeMeasurement): string | null {
  if (before.inconclusive || !before.recovered) return null;
  const group = before.group_probe_ids ?? before.probe_ids;
  return `before the repair every probe of its cause answers without an anomaly against the baseline (${group.join(', ')}): nothing to repair`;
}

const sick = answerUnhealthy;

export function judgeRepair(before: ProbeMeasurement, after: ProbeMeasurement): RepairJudgement {
  const group = after.group_probe_ids ?? after.probe_ids;
  const beforeOf = new Map(before.results.map((r) => [r.probe_id, r]));
  const afterOf = new Map(after.results.map((r) => [r.probe_id, r]));
  // Without per-probe results (a measurement that only says recovered or not) there is nothing to
  // keep a part of: recovered, or healed nothing.
  if (group.some((id) => !afterOf.has(id)))
    return after.recovered
      ? { outcome: 'recovered', keep: true, healed: [], unhealed: [], worsened: [] }
      : { outcome: 'no_effect', keep: false, healed: [], unhealed: [...group], worsened: [] };
  const healed: string[] = [];
  const worsened: string[] = [];
  for (const [id, now] of afterOf) {
    const was = beforeOf.get(id);
    if (was === undefined) continue; // joined since: judged only as part of the group below
    if (sick(was) && !sick(now)) healed.push(id);
    if (!sick(was) && sick(now)) worsened.push(id);
  }
  const unhealed = group.filter((id) => sick(afterOf.get(id)!));
  const outcome: RecoveryOutcome =
    worsened.length > 0 ? 'worse' : unhealed.length === 0 ? 'recovered' : healed.some((id) => group.includes(id)) ? 'partial' : 'no_effect';
  return { outcome, keep: outcome === 'recovered' || outcome === 'partial', healed, unhealed, worsened };
}

/** The judgement's fields of the RepairAction's verification record. */
export function verificationOutcome(
  judgement: RepairJudgement | null,
): Pick<NonNullable<RepairAction['verification']>, 'outcome' | 'healed_probe_ids' | 'unhealed_probe_ids' | 'worsened_probe_ids'> {
  return {
    outcome: judgement?.outcome ?? 'unknown',
    healed_probe_ids: judgement?.healed ?? [],
    unhealed_probe_ids: judgement?.unhealed ?? [],
    worsened_probe_ids: judgement?.worsened ?? [],
  };
}
