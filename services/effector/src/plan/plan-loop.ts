import type { RootCauseReport } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import type { RepairTool, ToolBox } from '../actions/repair-tool.ts';
import { checkBreaker, claimRateSlot, releaseRateSlotUnlessStarted } from '../breaker/breaker-gate.ts';
import { toolContextFor, type EffectorDeps } from '../effector-deps.ts';
import type { Escalation } from '../escalation/escalation.ts';
import type { ActionEvents } from '../events/action-events.ts';
import type { GrantGate } from '../grants/grant-gate.ts';
import { decide, toolsNotToRetry, type RepairHistory } from '../policy/decision.ts';
import type { ActionRunner } from '../run/action-runner.ts';
import type { Undoer } from '../run/undo.ts';
import { IN_FLIGHT } from '../state/action-state.ts';
import { consultMemory } from './memory-consultation.ts';
import { ensurePlanned } from './planned-actions.ts';

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
 * The plan loop for one report: decide the ordered steps (policy + memory), then walk them — each
 * step's durable record first, then (unless observing) resume or skip what an earlier pass left, the
 * breaker, the grant gate, and the run — until one verifies, one waits for a human, or the plan ends
 * in an escalation. It names no tool: the terminal one (escalation) is known by its flag.
 */
export class PlanLoop {
  constructor(
    private readonly deps: EffectorDeps,
    private readonly tools: ToolBox,
    private readonly events: ActionEvents,
    private readonly runner: ActionRunner,
    private readonly undoer: Undoer,
    private readonly grants: GrantGate,
    private readonly escalation: Escalation,
  ) {}

  async run(report: RootCauseReport): Promise<IncidentOutcome> {
    const { deps } = this;
    const log = deps.logger.child({ incident_id: report.incident_id, report_revision: report.report_revision });
    const recorded = await deps.incidents.record(report);
    if (recorded === 'implausible') return refuseImplausible(deps, report);
    if (recorded === 'superseded') {
      log.info('report superseded by a later revision: ignored');
      deps.metrics.reports.inc({ outcome: 'superseded' });
      return 'superseded';
    }
    const held = (await deps.incidents.get(report.incident_id))?.doc.held_for_human ?? null;
    if (held !== null) {
      log.info({ held_for_human: held }, 'incident held for a human: not repaired until a person re-opens it');
      deps.metrics.reports.inc({ outcome: 'held_for_human' });
      return 'held_for_human';
    }
    // A failed repair still owing its undo comes first: nothing runs on top of it.
    const owed = await this.finishOwedUndos(report);
    if (owed !== null) return owed;
    const mode = (await deps.modes.get()).mode;
    const all = await deps.actions.list({ incident: report.incident_id });
    // A whole-index rebuild verified after the revision's last anomaly already rebuilt the knowledge it
    // adds: those anomalies were seen before the rebuild finished, so there is nothing new to repair.
    // The rebuild this very revision ran is not such a cover: on a restart after a kill between its
    // `succeeded` state and event, the plan below must still publish that event and close the incident.
    const coveredBy = all.find(
      (a) =>
        a.status === 'succeeded' &&
        a.report_event_id !== report.event_id &&
        a.component === report.affected_component &&
        this.tools.named(a.tool)?.coversAllKnowledge === true &&
        a.finished_at !== null &&
        Date.parse(a.finished_at) > report.window_end,
    );
    if (coveredBy && report.root_cause !== 'unknown') {
      healingLog(
        log,
        { incident_id: report.incident_id, action_id: coveredBy.action_id, tool: coveredBy.tool },
        `revision ${report.report_revision}: every anomaly it names predates the verified ${coveredBy.tool}, which rebuilt all knowledge: nothing to repair`,
      );
      deps.metrics.reports.inc({ outcome: 'covered' });
      return 'recovered';
    }
    const failedHere = all.filter((a) => (a.status === 'failed' || a.status === 'rolled_back') && a.executions > 0);
    const history: RepairHistory = {
      failedAttempts: failedHere.length,
      failedTools: toolsNotToRetry(failedHere, report),
    };
    const recommendation = await consultMemory(deps, report, failedHere);
    const decision = decide(deps.policy, report, history, recommendation, deps.memoryMinConfidence, this.tools);
    if (!decision.ok) {
      await this.escalation.noBranch(report, decision.reason, decision.policyVersion);
      return 'no_policy_branch';
    }
    if (report.root_cause === 'unknown' && (await this.supersededWithin(report, deps.abstentionGraceMs ?? 0))) {
      log.info('abstention superseded by a later revision within the grace period: not escalated');
      deps.metrics.reports.inc({ outcome: 'superseded' });
      return 'superseded';
    }
    healingLog(
      log,
      { incident_id: report.incident_id, branch: decision.branch, mode, steps: decision.steps.map((s) => s.tool) },
      `plan: ${decision.steps.map((s) => s.tool).join(' → ')}`,
    );
    const ctx = toolContextFor(deps, report);
    for (const [position, step] of decision.steps.entries()) {
      const tool = this.tools.named(step.tool) as RepairTool;
      let v = await ensurePlanned(deps, this.events, report, tool, step, position, decision, ctx);
      if (v === null) continue;
      if (mode === 'observe') continue;
      const d = v.doc;
      if (d.status === 'succeeded') {
        // Killed between the state change and the event: publish it now (at least once), close the incident.
        if ((await deps.incidents.get(report.incident_id))?.doc.status === 'open') {
          await this.events.emit(d, 'succeeded');
          await deps.incidents.setStatus(report.incident_id, 'recovered');
        }
        return 'recovered';
      }
      if (d.status === 'escalated') return 'escalated';
      if (d.status === 'failed' || d.status === 'rolled_back') continue;
      if (IN_FLIGHT.has(d.status)) {
        if (d.owner !== deps.instanceId && (d.lease_until ?? 0) > Date.now()) return 'in_progress_elsewhere';
        v = await this.undoer.resetToBefore(v, tool, ctx, 'resume after an interrupted execution');
        if (v === null) return 'contended';
      }
      if (tool.terminal) {
        await this.escalation.escalate(report, step.reason, 'policy');
        return 'escalated';
      }
      const breaker = await checkBreaker(deps, report);
      if (breaker.open) {
        await this.escalation.escalate(report, `circuit breaker: ${breaker.message}`, breaker.reason);
        return 'escalated';
      }
      const gate = await this.grants.check(v, tool, mode, ctx);
      if (!gate.pass) {
        if (gate.denied) continue;
        return 'awaiting_grant';
      }
      // The rate limit's atomic half: a slot claimed right before the start, so replicas cannot both pass the count above.
      const claim = await claimRateSlot(deps, report, v.doc.key);
      if (claim.open) {
        await this.escalation.escalate(report, `circuit breaker: ${claim.message}`, claim.reason);
        return 'escalated';
      }
      const outcome = await this.runner.run(v, tool, report, ctx, gate.grant);
      await releaseRateSlotUnlessStarted(deps, report, v.doc.key);
      if (outcome === 'succeeded') return 'recovered';
      if (outcome === 'contended') return 'contended';
      if (outcome === 'undo_pending') return 'undo_pending';
      if (outcome === 'undo_failed') {
        await this.escalation.escalate(report, `the undo of the failed ${tool.name} could not be done`, 'undo_failed');
        return 'escalated';
      }
      if (outcome === 'snapshot_budget') {
        await this.escalation.escalate(report, `${tool.name}: no room for its snapshot within the snapshot budget`, 'snapshot_budget');
        return 'escalated';
      }
      if (outcome === 'held') {
        // Left applied, neither verified nor undone: no later revision may repair on top of it.
        await deps.incidents.holdForHuman(report.incident_id, `${tool.name} ${v.doc.action_id}: verification inconclusive`);
        await this.escalation.escalate(
          report,
          `${tool.name}: verification stayed inconclusive; the repair is held, not undone`,
          'verification_inconclusive',
        );
        return 'escalated';
      }
    }
    if (mode === 'observe') {
      await deps.incidents.setStatus(report.incident_id, 'observed');
      deps.metrics.reports.inc({ outcome: 'planned' });
      return 'planned';
    }
    await this.escalation.escalate(report, 'every planned repair failed', 'plan_exhausted');
    return 'escalated';
  }

  /**
   * Finishes the undo of every failed repair of the incident still `undoing` (a crash or an error
   * cut it short), whatever revision it ran for; null when none is owed any more. One another
   * replica holds a live lease on is left to it.
   */
  private async finishOwedUndos(report: RootCauseReport): Promise<IncidentOutcome | null> {
    const { deps } = this;
    for (const doc of await deps.actions.list({ incident: report.incident_id, statuses: ['undoing'] })) {
      if (doc.owner !== null && doc.owner !== deps.instanceId && (doc.lease_until ?? 0) > Date.now()) return 'in_progress_elsewhere';
      const current = await deps.actions.get(doc.key);
      if (current === null || current.doc.status !== 'undoing') continue;
      const owned = await deps.actions.update(current, { owner: deps.instanceId, lease_until: Date.now() + deps.leaseMs });
      if (owned === null) return 'contended';
      const tool = this.tools.named(doc.tool);
      const undone = tool
        ? await this.undoer.finishUndo(owned, tool, toolContextFor(deps, report), 'recovery')
        : await this.undoer.abandonUndo(owned, `no tool named ${doc.tool} to undo it with`);
      healingLog(
        deps.logger,
        { incident_id: report.incident_id, action_id: doc.action_id, tool: doc.tool },
        `owed undo of the failed ${doc.tool}: ${undone.status}`,
      );
      if (undone.status === 'contended') return 'contended';
      if (undone.status === 'undo_pending') return 'undo_pending';
      if (undone.status === 'undo_failed') {
        await this.escalation.escalate(report, `the undo of the failed ${doc.tool} could not be done: ${undone.message}`, 'undo_failed');
        return 'escalated';
      }
    }
    return null;
  }

  /**
   * Whether a later revision of the report's incident is recorded within `graceMs` of the report
   * (polled). Counted from when the identifier issued it, so a redelivery or a restart's recovery of
   * an old abstention does not wait again.
   */
  private async supersededWithin(report: RootCauseReport, graceMs: number): Promise<boolean> {
    const deadline = Math.min(report.occurred_at, Date.now()) + graceMs;
    for (;;) {
      const current = await this.deps.incidents.get(report.incident_id);
      if (current && current.doc.latest_revision > report.report_revision) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(0, deadline - Date.now()))));
    }
  }
}

/** A report whose revision cannot be believed: logged as forged or broken, counted, never used. */
export function refuseImplausible(deps: Pick<EffectorDeps, 'logger' | 'metrics'>, report: RootCauseReport): 'refused' {
  deps.metrics.reports.inc({ outcome: 'refused' });
  deps.logger.error(
    { incident_id: report.incident_id, report_revision: report.report_revision, report_event_id: report.event_id },
    'report refused as forged or broken: its revision is implausible for the incident; it supersedes nothing',
  );
  return 'refused';
}
