import type { RootCauseReport } from '@rag-immune/contracts';
import type { RepairTool, ToolContext } from '../actions/repair-tool.ts';
import { checkBreaker, claimRateSlot, releaseRateSlotUnlessStarted } from '../breaker/breaker-gate.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import type { ActionEvents } from '../events/action-events.ts';
import type { GrantGate } from '../grants/grant-gate.ts';
import type { PlannedStep } from '../policy/decision.ts';
import type { ActionRunner } from '../run/action-runner.ts';
import type { Undoer } from '../run/undo.ts';
import { IN_FLIGHT } from '../state/action-state.ts';
import type { EffectorMode } from '../state/mode-store.ts';
import { hasSeveralCauses } from '../verify/cause-scope.ts';
import { done, escalate, type PlanOutcome } from './plan-outcome.ts';
import { ensurePlanned, type PlanProvenance } from './planned-actions.ts';

/** What one step came to: the loop's decision, or go on to the next step. */
export type StepResult =
  | PlanOutcome
  /** Not run here (does not apply, observing, another cause's, failed or denied before): the next step. */
  | { kind: 'next' }
  /** Applied and kept though it healed only part of its probes: the next step may heal the rest. */
  | { kind: 'kept_partial'; tool: string }
  /** The plan's terminal step (escalation) is reached: the loop decides what it pages for. */
  | { kind: 'terminal'; why: string };

/** One step of a cause's plan, in the order the plan loop takes it. */
export interface Step {
  report: RootCauseReport;
  tool: RepairTool;
  planned: PlannedStep;
  position: number;
  provenance: PlanProvenance;
  ctx: ToolContext;
  mode: EffectorMode;
}

/**
 * Takes one step of a plan: its durable record first, then (unless observing) what an earlier pass
 * left of it (published, resumed or skipped), the breaker, the grant gate, the rate slot and the run.
 * It decides; it acts on nothing but the step's own action (the plan loop settles the decision).
 */
export class StepRunner {
  constructor(
    private readonly deps: EffectorDeps,
    private readonly events: ActionEvents,
    private readonly runner: ActionRunner,
    private readonly undoer: Undoer,
    private readonly grants: GrantGate,
  ) {}

  async take(step: Step): Promise<StepResult> {
    const { deps } = this;
    const { report, tool, ctx, mode } = step;
    let v = await ensurePlanned(deps, this.events, report, tool, step.planned, step.position, step.provenance, ctx);
    if (v === null) return NEXT;
    if (mode === 'observe') return NEXT;
    const d = v.doc;
    const several = hasSeveralCauses(report);
    // The same tool planned for another cause of this revision: its record is that cause's, not this one's.
    if (several && d.component !== report.affected_component) return NEXT;
    if (d.status === 'succeeded' && d.verification?.outcome === 'partial') return { kind: 'kept_partial', tool: d.tool };
    if (d.status === 'succeeded') {
      // Killed between the state change and the event: publish it now (at least once), close the incident.
      if (!several && (await deps.incidents.get(report.incident_id))?.doc.status === 'open') {
        await this.events.emit(d, 'succeeded');
        await deps.incidents.setStatus(report.incident_id, 'recovered');
      }
      return done('recovered');
    }
    if (d.status === 'escalated') return done('escalated');
    if (d.status === 'failed' || d.status === 'rolled_back') return NEXT;
    if (IN_FLIGHT.has(d.status)) {
      if (d.owner !== deps.instanceId && (d.lease_until ?? 0) > Date.now()) return done('in_progress_elsewhere');
      const reset = await this.undoer.resetToBefore(v, tool, ctx, 'resume after an interrupted execution');
      if (reset.status === 'contended') return done('contended');
      // Never re-run on a collection that was not put back: a person decides.
      if (reset.status === 'undo_failed')
        return escalate(report, `the interrupted ${tool.name} could not be put back: ${reset.message}`, 'undo_failed');
      v = reset.v;
    }
    if (tool.terminal) return { kind: 'terminal', why: step.planned.reason };
    const breaker = await checkBreaker(deps, report);
    if (breaker.open) return escalate(report, `circuit breaker: ${breaker.message}`, breaker.reason);
    const gate = await this.grants.check(v, tool, mode, ctx);
    if (!gate.pass) return gate.denied ? NEXT : done('awaiting_grant');
    // The rate limit's atomic half: a slot claimed right before the start, so replicas cannot both pass the count above.
    const claim = await claimRateSlot(deps, report, v.doc.key);
    if (claim.open) return escalate(report, `circuit breaker: ${claim.message}`, claim.reason);
    const outcome = await this.runner.run(v, tool, report, ctx, gate.grant);
    await releaseRateSlotUnlessStarted(deps, report, v.doc.key);
    switch (outcome) {
      case 'succeeded':
        return done('recovered');
      case 'partial':
        // Kept, not undone: the next step may heal the rest; if none does, a person is paged for it.
        return { kind: 'kept_partial', tool: tool.name };
      case 'contended':
        return done('contended');
      case 'undo_pending':
        return done('undo_pending');
      case 'undo_failed':
        return escalate(report, `the undo of the failed ${tool.name} could not be done`, 'undo_failed');
      case 'nothing_to_repair':
        // Not run on a hunch: a person looks at why the identifier named probes that answer well now.
        return escalate(report, `${tool.name}: its probes showed no anomaly before the repair; not run`, 'nothing_to_repair');
      case 'snapshot_budget':
        return escalate(report, `${tool.name}: no room for its snapshot within the snapshot budget`, 'snapshot_budget');
      case 'held':
        // Left applied, neither verified nor undone: no later revision may repair on top of it.
        return escalate(
          report,
          `${tool.name}: verification stayed inconclusive; the repair is held, not undone`,
          'verification_inconclusive',
          `${tool.name} ${v.doc.action_id}: verification inconclusive`,
        );
      case 'failed':
        // Failed and undone: the next step.
        return NEXT;
    }
  }
}

const NEXT: StepResult = { kind: 'next' };
