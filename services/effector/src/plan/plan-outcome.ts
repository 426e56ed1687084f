import type { RootCauseReport } from '@rag-immune/contracts';
import type { EscalationReason } from '../escalation/escalation.ts';

/** What handling one report came to. */
export type IncidentOutcome =
  | 'recovered'
  | 'escalated'
  | 'planned'
  | 'awaiting_grant'
  | 'superseded'
  | 'in_progress_elsewhere'
  | 'contended'
  | 'no_policy_branch'
  /** A failed repair's undo met an error and is still owed: nothing else runs until it is done. */
  | 'undo_pending'
  /** A person holds the incident (a manual rollback, a repair held after inconclusive verification). */
  | 'held_for_human'
  /** The report's revision is not believable (forged or broken): refused, nothing recorded. */
  | 'refused';

/**
 * What a part of the plan loop decided. The parts only decide; `PlanLoop.settle` is the one place
 * that acts on a decision (publishes the escalation, counts the report, holds the incident).
 */
export type PlanOutcome =
  /** Handled: nothing more to do. `counted`: the outcome the reports metric counts, when this decision is counted here. */
  | { kind: 'done'; outcome: IncidentOutcome; counted?: string }
  /**
   * A person takes over `report` (the whole report, or the slice of one cause of several). `hold`: the
   * incident is held for a human first, with this reason (a repair left applied, neither verified nor undone).
   */
  | { kind: 'escalate'; report: RootCauseReport; why: string; reason: EscalationReason; hold?: string }
  /** No policy branch matches the report: a failed pseudo-action records it. */
  | { kind: 'no_branch'; report: RootCauseReport; message: string; policyVersion: string }
  /**
   * One cause of several kept a repair that healed part of its probes and nothing planned healed the
   * rest: paged after the other causes' repairs if the rest still fails (runCauses measures it again).
   */
  | { kind: 'partial' };

export const done = (outcome: IncidentOutcome, counted?: string): PlanOutcome =>
  counted === undefined ? { kind: 'done', outcome } : { kind: 'done', outcome, counted };

export const escalate = (report: RootCauseReport, why: string, reason: EscalationReason, hold?: string): PlanOutcome =>
  hold === undefined ? { kind: 'escalate', report, why, reason } : { kind: 'escalate', report, why, reason, hold };
