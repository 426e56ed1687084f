import type { RootCauseReport } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import type { ToolBox } from '../actions/catalogue.ts';
import type { RepairTool } from '../actions/repair-tool.ts';
import { toolContextFor } from '../actions/tool-context.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import { errorMessage } from '../error-message.ts';
import type { Escalation } from '../escalation/escalation.ts';
import type { ActionEvents } from '../events/action-events.ts';
import type { GrantGate } from '../grants/grant-gate.ts';
import type { ActionRunner } from '../run/action-runner.ts';
import type { Undoer } from '../run/undo.ts';
import type { ActionDoc } from '../state/action-store.ts';
import type { EffectorMode } from '../state/mode-store.ts';
import { causeSlices } from '../verify/cause-scope.ts';
import { planCause } from './cause-plan.ts';
import { healedAlready, keptRepairOf } from './kept-repairs.ts';
import { supersededWithin } from './later-revision.ts';
import { done, escalate, type IncidentOutcome, type PlanOutcome } from './plan-outcome.ts';
import { StepRunner } from './plan-step.ts';

export type { IncidentOutcome, PlanOutcome } from './plan-outcome.ts';

/**
 * The plan loop for one report: decide the ordered steps (policy + memory, plan/cause-plan.ts), then
 * take them (plan/plan-step.ts) until one verifies, one waits for a human, or the plan ends in an
 * escalation. Its parts only decide (a `PlanOutcome`); `settle` is the one place that acts on a
 * decision: escalating, recording a missing policy branch, counting the report. It names no tool:
 * the terminal one (escalation) is known by its flag.
 */
export class PlanLoop {
  private readonly steps: StepRunner;

  constructor(
    private readonly deps: EffectorDeps,
    private readonly tools: ToolBox,
    events: ActionEvents,
    runner: ActionRunner,
    private readonly undoer: Undoer,
    grants: GrantGate,
    private readonly escalation: Escalation,
  ) {
    this.steps = new StepRunner(deps, events, runner, undoer, grants);
  }

  async run(report: RootCauseReport): Promise<IncidentOutcome> {
    const { deps } = this;
    const recorded = await deps.incidents.record(report);
    if (recorded === 'implausible') return refuseImplausible(deps, report);
    const decided = await this.admit(report, recorded);
    if (decided !== null) return (await this.settle(decided)) as IncidentOutcome;
    const mode = (await deps.modes.get()).mode;
    // Probes no cause explains yet: another cause may be filling in (its group still too small to name).
    // Repairing half the picture risks verifying a right repair against probes another fault still
    // breaks; a revision within the grace period is worth the wait.
    if (
      report.root_cause !== 'unknown' &&
      (report.unexplained_probes ?? []).length > 0 &&
      (await supersededWithin(deps.incidents, report, deps.abstentionGraceMs ?? 0))
    ) {
      deps.logger.info(
        { incident_id: report.incident_id, report_revision: report.report_revision, unexplained_probes: report.unexplained_probes },
        'report leaving probes unexplained superseded within the grace period',
      );
      return (await this.settle(done('superseded', 'superseded'))) as IncidentOutcome;
    }
    const slices = causeSlices(report);
    if (slices.length === 1) {
      // A later revision of an incident a kept repair already healed (its group grew while the repair
      // ran): no repair to run and nobody to page when its probes answer well now.
      const healedBy = await this.healedByKeptRepair(report);
      if (healedBy !== null) {
        healingLog(
          deps.logger,
          { incident_id: report.incident_id, root_cause: report.root_cause, action_id: healedBy.action_id, tool: healedBy.tool },
          `${report.root_cause}: revision ${report.report_revision}'s probes were healed by the kept ${healedBy.tool}: not repaired again`,
        );
        await deps.incidents.setStatus(report.incident_id, 'recovered');
        return (await this.settle(done('recovered'))) as IncidentOutcome;
      }
      return (await this.settle(await this.runCause(report, mode))) as IncidentOutcome;
    }
    return this.runCauses(report, slices, mode);
  }

  /**
   * The one place a decision of the loop is acted on: a person paged (the incident held first when
   * the decision says so), a missing policy branch recorded, the report counted. `partial` (one cause
   * of several healed in part) is left to runCauses, which measures it again after the other causes.
   */
  private async settle(decision: PlanOutcome): Promise<IncidentOutcome | 'partial'> {
    const { deps } = this;
    switch (decision.kind) {
      case 'done':
        if (decision.counted !== undefined) deps.metrics.reports.inc({ outcome: decision.counted });
        return decision.outcome;
      case 'escalate':
        if (decision.hold !== undefined) await deps.incidents.holdForHuman(decision.report.incident_id, decision.hold);
        await this.escalation.escalate(decision.report, decision.why, decision.reason);
        return 'escalated';
      case 'no_branch':
        await this.escalation.noBranch(decision.report, decision.message, decision.policyVersion);
        return 'no_policy_branch';
      case 'partial':
        return 'partial';
    }
  }

  /**
   * What stops a recorded report before any plan: a later revision superseded it, a person holds the
   * incident, or a failed repair still owes its undo (nothing runs on top of it). Null: go on.
   */
  private async admit(
    report: RootCauseReport,
    recorded: Awaited<ReturnType<EffectorDeps['incidents']['record']>>,
  ): Promise<PlanOutcome | null> {
    const { deps } = this;
    const log = deps.logger.child({ incident_id: report.incident_id, report_revision: report.report_revision });
    if (recorded === 'superseded') {
      log.info('report superseded by a later revision: ignored');
      return done('superseded', 'superseded');
    }
    const held = (await deps.incidents.get(report.incident_id))?.doc.held_for_human ?? null;
    if (held !== null) {
      log.info({ held_for_human: held }, 'incident held for a human: not repaired until a person re-opens it');
      return done('held_for_human', 'held_for_human');
    }
    return this.finishOwedUndos(report);
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
      const outcome = await this.settle(await this.runCause(slice, mode, { deferPartial: true }));
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
        await this.settle(
          escalate(
            slice,
            `${slice.root_cause}: a kept repair healed part of its probes; ${now?.anomalies.join('; ') ?? 'they could not be measured again'}`,
            'partial_recovery',
          ),
        );
      }
    }
    if (outcomes.every((o) => o === 'recovered')) {
      await deps.incidents.setStatus(report.incident_id, 'recovered');
      return 'recovered';
    }
    return outcomes.find((o) => o !== 'recovered')!;
  }

  /** The plan for one cause (a report's only cause, or one slice of several), step by step: what it decided. */
  private async runCause(report: RootCauseReport, mode: EffectorMode, options: { deferPartial?: boolean } = {}): Promise<PlanOutcome> {
    const { deps } = this;
    const log = deps.logger.child({
      incident_id: report.incident_id,
      report_revision: report.report_revision,
      root_cause: report.root_cause,
    });
    const plan = await planCause(deps, this.tools, report, log);
    if (plan.kind !== 'plan') return plan;
    const { decision, ctx } = plan;
    healingLog(
      log,
      { incident_id: report.incident_id, branch: decision.branch, mode, steps: decision.steps.map((s) => s.tool) },
      `plan: ${decision.steps.map((s) => s.tool).join(' → ')}`,
    );
    let keptPartial: string | null = null;
    for (const [position, planned] of decision.steps.entries()) {
      const tool = this.tools.named(planned.tool) as RepairTool;
      const result = await this.steps.take({ report, tool, planned, position, provenance: decision, ctx, mode });
      if (result.kind === 'next') continue;
      if (result.kind === 'kept_partial') {
        keptPartial = result.tool;
        continue;
      }
      if (result.kind !== 'terminal') return result;
      // With other causes still to repair, the page for the rest waits until they are (runCauses).
      if (keptPartial !== null) return this.pageForTheRest(report, keptPartial, options);
      return escalate(report, result.why, 'policy');
    }
    if (mode === 'observe') {
      await deps.incidents.setStatus(report.incident_id, 'observed');
      return done('planned', 'planned');
    }
    if (keptPartial !== null) return this.pageForTheRest(report, keptPartial, options);
    return escalate(report, 'every planned repair failed', 'plan_exhausted');
  }

  /**
   * A kept partial repair and nothing left to heal the rest: a page, unless a later revision arrives
   * within the grace period (the identifier may be naming the rest's own cause: that revision repairs it).
   * One cause of several defers it (runCauses measures the rest again after the other causes' repairs).
   */
  private async pageForTheRest(report: RootCauseReport, keptTool: string, options: { deferPartial?: boolean }): Promise<PlanOutcome> {
    if (options.deferPartial) return { kind: 'partial' };
    if (await supersededWithin(this.deps.incidents, report, this.deps.abstentionGraceMs ?? 0)) {
      healingLog(
        this.deps.logger,
        { incident_id: report.incident_id, tool: keptTool },
        `${keptTool} kept as a partial recovery; a later revision arrived: the rest is its to repair`,
      );
      return done('superseded');
    }
    return escalate(report, partialMessage(report, keptTool), 'partial_recovery');
  }

  /** Whether every probe the slice's cause explains answers without an anomaly now (false when it cannot be measured). */
  /**
   * The single cause's kept repair of this incident, made for an earlier revision, that covers this
   * report's probes: verified on all of them, or (a group grown since) kept for its component and
   * every probe measured healthy now. A repair of this same revision is left to its own step (which
   * re-publishes a `succeeded` a crash cut short).
   */
  private async healedByKeptRepair(report: RootCauseReport): Promise<ActionDoc | null> {
    const earlier = (await this.deps.actions.list({ incident: report.incident_id })).filter(
      (a) => a.report_revision < report.report_revision,
    );
    const healed = healedAlready(earlier, report);
    if (healed !== null) return healed;
    const kept = keptRepairOf(earlier, report);
    return kept !== null && (await this.healthyNow(report)) ? kept : null;
  }

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
  private async finishOwedUndos(report: RootCauseReport): Promise<PlanOutcome | null> {
    const { deps } = this;
    for (const doc of await deps.actions.list({ incident: report.incident_id, statuses: ['undoing'] })) {
      if (doc.owner !== null && doc.owner !== deps.instanceId && (doc.lease_until ?? 0) > Date.now()) return done('in_progress_elsewhere');
      const current = await deps.actions.get(doc.key);
      if (current === null || current.doc.status !== 'undoing') continue;
      const owned = await deps.actions.update(current, { owner: deps.instanceId, lease_until: Date.now() + deps.leaseMs });
      if (owned === null) return done('contended');
      const tool = this.tools.named(doc.tool);
      const undone = tool
        ? await this.undoer.finishUndo(owned, tool, toolContextFor(deps, report), 'recovery')
        : await this.undoer.abandonUndo(owned, `no tool named ${doc.tool} to undo it with`);
      healingLog(
        deps.logger,
        { incident_id: report.incident_id, action_id: doc.action_id, tool: doc.tool },
        `owed undo of the failed ${doc.tool}: ${undone.status}`,
      );
      if (undone.status === 'contended') return done('contended');
      if (undone.status === 'undo_pending') return done('undo_pending');
      if (undone.status === 'undo_failed')
        return escalate(report, `the undo of the failed ${doc.tool} could not be done: ${undone.message}`, 'undo_failed');
    }
    return null;
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
