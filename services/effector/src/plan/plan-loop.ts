import type { RootCauseReport } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import type { ToolBox } from '../actions/catalogue.ts';
import type { RepairTool } from '../actions/repair-tool.ts';
import { checkBreaker, claimRateSlot, releaseRateSlotUnlessStarted } from '../breaker/breaker-gate.ts';
import { errorMessage, toolContextFor, type EffectorDeps } from '../effector-deps.ts';
import type { Escalation } from '../escalation/escalation.ts';
import type { ActionEvents } from '../events/action-events.ts';
import type { GrantGate } from '../grants/grant-gate.ts';
import { decide, toolsNotToRetry, type RepairHistory } from '../policy/decision.ts';
import type { ActionRunner } from '../run/action-runner.ts';
import type { Undoer } from '../run/undo.ts';
import { IN_FLIGHT } from '../state/action-state.ts';
import type { EffectorMode } from '../state/mode-store.ts';
import { causeSlices, hasSeveralCauses } from '../verify/cause-scope.ts';
import { healedAlready, keptRepairOf } from './kept-repairs.ts';
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
    // Probes no cause explains yet: another cause may be filling in (its group still too small to name).
    // Repairing half the picture risks verifying a right repair against probes another fault still
    // breaks; a revision within the grace period is worth the wait.
    if (
      report.root_cause !== 'unknown' &&
      (report.unexplained_probes ?? []).length > 0 &&
      (await this.supersededWithin(report, deps.abstentionGraceMs ?? 0))
    ) {
      log.info({ unexplained_probes: report.unexplained_probes }, 'report leaving probes unexplained superseded within the grace period');
      deps.metrics.reports.inc({ outcome: 'superseded' });
      return 'superseded';
    }
    const slices = causeSlices(report);
    if (slices.length === 1) return (await this.runCause(report, mode)) as IncidentOutcome;
    return this.runCauses(report, slices, mode);
  }

  /**
   * Several causes: one plan per cause, primary first, each repair verified against the probes its
   * cause explains and kept when it healed them and made no other probe worse. A cause an earlier
   * kept repair already healed is not repaired again. The incident is recovered when every cause is;
   * a cause that cannot be healed pages (its plan's escalation) without undoing the kept repairs.
   */
  private async runCauses(report: RootCauseReport, slices: RootCauseReport[], mode: EffectorMode): Promise<IncidentOutcome> {
    const { deps } = this;
    const outcomes: IncidentOutcome[] = [];
    const partials: RootCauseReport[] = [];
    for (const slice of slices) {
      const actions = await deps.actions.list({ incident: report.incident_id });
      let healedBy = healedAlready(actions, slice);
      // A cause a kept repair was made for already (verified, or a partial recovery) whose group has grown
      // since: its probes measured now. Healthy, the kept repair covers them; not, the same repair is not
      // run twice (it is applied): what still fails is measured again after the other causes' repairs.
      const kept = healedBy === null ? keptRepairOf(actions, slice) : null;
      if (kept !== null) {
        if (await this.healthyNow(slice)) healedBy = kept;
        else {
          healingLog(
            deps.logger,
            { incident_id: report.incident_id, root_cause: slice.root_cause, action_id: kept.action_id, tool: kept.tool },
            `${slice.root_cause}: the kept ${kept.tool} stays; its probes still failing are measured again after the other causes' repairs`,
          );
          outcomes.push('escalated');
          partials.push(slice);
          continue;
        }
      }
      if (healedBy !== null) {
        healingLog(
          deps.logger,
          { incident_id: report.incident_id, root_cause: slice.root_cause, action_id: healedBy.action_id, tool: healedBy.tool },
          `${slice.root_cause}: its probes were healed by the kept ${healedBy.tool}: not repaired again`,
        );
        outcomes.push('recovered');
        continue;
      }
      const outcome = await this.runCause(slice, mode, { deferPartial: true });
      // A partial's placeholder until it is measured again below.
      outcomes.push(outcome === 'partial' ? 'escalated' : outcome);
      if (outcome === 'partial') partials.push(slice);
      // Something must finish (or a person decide) before the next cause is touched.
      if (outcome !== 'partial' && WAIT_BEFORE_NEXT_CAUSE.has(outcome)) return outcome;
    }
    // A cause whose repair healed only part of its probes: the rest may have been another cause's
    // doing, repaired since. Measured again now; what still fails is paged, the kept repairs stay.
    for (const slice of partials) {
      const index = slices.indexOf(slice);
      let now: Awaited<ReturnType<EffectorDeps['verifier']['measure']>> | null = null;
      try {
        now = await deps.verifier.measure(slice);
      } catch (error) {
        deps.logger.warn({ incident_id: report.incident_id, err: errorMessage(error) }, 'measuring a partly repaired cause again failed');
      }
      if (now !== null && now.recovered && !now.inconclusive) {
        healingLog(
          deps.logger,
          { incident_id: report.incident_id, root_cause: slice.root_cause },
          `${slice.root_cause}: the rest of its probes healed with the other causes' repairs`,
        );
        outcomes[index] = 'recovered';
      } else {
        await this.escalation.escalate(
          slice,
          `${slice.root_cause}: a kept repair healed part of its probes; ${now?.anomalies.join('; ') ?? 'they could not be measured again'}`,
          'partial_recovery',
        );
      }
    }
    if (outcomes.every((o) => o === 'recovered')) {
      await deps.incidents.setStatus(report.incident_id, 'recovered');
      return 'recovered';
    }
    return outcomes.find((o) => o !== 'recovered')!;
  }

  /** The plan for one cause (a report's only cause, or one slice of several). */
  private async runCause(
    report: RootCauseReport,
    mode: EffectorMode,
    options: { deferPartial?: boolean } = {},
  ): Promise<IncidentOutcome | 'partial'> {
    const { deps } = this;
    const log = deps.logger.child({
      incident_id: report.incident_id,
      report_revision: report.report_revision,
      root_cause: report.root_cause,
    });
    const several = hasSeveralCauses(report);
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
    const decision = decide(deps.policy, report, history, recommendation, deps.memoryMinConfidence, this.tools, deps.ragRepair);
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
    let keptPartial: string | null = null;
    for (const [position, step] of decision.steps.entries()) {
      const tool = this.tools.named(step.tool) as RepairTool;
      let v = await ensurePlanned(deps, this.events, report, tool, step, position, decision, ctx);
      if (v === null) continue;
      if (mode === 'observe') continue;
      const d = v.doc;
      // The same tool planned for another cause of this revision: its record is that cause's, not this one's.
      if (several && d.component !== report.affected_component) continue;
      if (d.status === 'succeeded' && d.verification?.outcome === 'partial') {
        keptPartial = d.tool;
        continue;
      }
      if (d.status === 'succeeded') {
        // Killed between the state change and the event: publish it now (at least once), close the incident.
        if (!several && (await deps.incidents.get(report.incident_id))?.doc.status === 'open') {
          await this.events.emit(d, 'succeeded');
          await deps.incidents.setStatus(report.incident_id, 'recovered');
        }
        return 'recovered';
      }
      if (d.status === 'escalated') return 'escalated';
      if (d.status === 'failed' || d.status === 'rolled_back') continue;
      if (IN_FLIGHT.has(d.status)) {
        if (d.owner !== deps.instanceId && (d.lease_until ?? 0) > Date.now()) return 'in_progress_elsewhere';
        const reset = await this.undoer.resetToBefore(v, tool, ctx, 'resume after an interrupted execution');
        if (reset.status === 'contended') return 'contended';
        if (reset.status === 'undo_failed') {
          // Never re-run on a collection that was not put back: a person decides.
          await this.escalation.escalate(report, `the interrupted ${tool.name} could not be put back: ${reset.message}`, 'undo_failed');
          return 'escalated';
        }
        v = reset.v;
      }
      if (tool.terminal) {
        // With other causes still to repair, the page for the rest waits until they are (runCauses).
        if (keptPartial !== null && options.deferPartial) return 'partial';
        if (keptPartial !== null) return this.pageForTheRest(report, keptPartial);
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
      if (outcome === 'partial') {
        // Kept, not undone: the next step may heal the rest; if none does, a person is paged for it.
        keptPartial = tool.name;
        continue;
      }
      if (outcome === 'contended') return 'contended';
      if (outcome === 'undo_pending') return 'undo_pending';
      if (outcome === 'undo_failed') {
        await this.escalation.escalate(report, `the undo of the failed ${tool.name} could not be done`, 'undo_failed');
        return 'escalated';
      }
      if (outcome === 'nothing_to_repair') {
        // Not run on a hunch: a person looks at why the identifier named probes that answer well now.
        await this.escalation.escalate(
          report,
          `${tool.name}: its probes showed no anomaly before the repair; not run`,
          'nothing_to_repair',
        );
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
    if (keptPartial !== null && options.deferPartial) return 'partial';
    if (keptPartial !== null) return this.pageForTheRest(report, keptPartial);
    await this.escalation.escalate(report, 'every planned repair failed', 'plan_exhausted');
    return 'escalated';
  }

  /**
   * A kept partial repair and nothing left to heal the rest: a page, unless a later revision arrives
   * within the grace period (the identifier may be naming the rest's own cause: that revision repairs it).
   */
  private async pageForTheRest(report: RootCauseReport, keptTool: string): Promise<IncidentOutcome> {
    if (await this.supersededWithin(report, this.deps.abstentionGraceMs ?? 0)) {
      healingLog(
        this.deps.logger,
        { incident_id: report.incident_id, tool: keptTool },
        `${keptTool} kept as a partial recovery; a later revision arrived: the rest is its to repair`,
      );
      return 'superseded';
    }
    await this.escalation.escalate(report, partialMessage(report, keptTool), 'partial_recovery');
    return 'escalated';
  }

  /** Whether every probe the slice's cause explains answers without an anomaly now (false when it cannot be measured). */
  private async healthyNow(slice: RootCauseReport): Promise<boolean> {
    try {
      const now = await this.deps.verifier.measure(slice);
      return now.recovered && !now.inconclusive;
    } catch {
      return false;
    }
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

/** Outcomes after which the next cause waits: a repair elsewhere, an owed undo, a grant or a person first. */
const WAIT_BEFORE_NEXT_CAUSE = new Set<IncidentOutcome>([
  'in_progress_elsewhere',
  'contended',
  'undo_pending',
  'awaiting_grant',
  'held_for_human',
  'refused',
]);

const partialMessage = (report: RootCauseReport, tool: string) =>
  `${tool} healed part of ${report.root_cause}'s probes and is kept; no planned repair healed the rest`;
