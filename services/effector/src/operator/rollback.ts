import type { RootCauseReport } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import type { ToolBox } from '../actions/catalogue.ts';
import type { PriorState } from '../actions/repair-tool.ts';
import { errorMessage } from '../error-message.ts';
import { toolContextFor } from '../actions/tool-context.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import type { Undoer } from '../run/undo.ts';
import { deletedSnapshot, type SnapshotRecord } from '../snapshots/snapshot-record.ts';
import type { ActionDoc } from '../state/action-store.ts';
import type { IncidentLease } from '../state/incident-lease.ts';

/**
 * What a person may roll back: a verified repair, or one held applied after an inconclusive
 * verification (no lease: nothing is measuring it any more) for the person to decide.
 */
function undoableByHand(a: ActionDoc): boolean {
  return a.status === 'succeeded' || (a.status === 'executed' && (a.hold_reason ?? null) !== null && a.lease_until === null);
}

/** A rollback the on-call engineer asked for: what will change, then (unless a dry run) what did. */
export interface RollbackPlan {
  target: string;
  kind: 'action' | 'incident' | 'snapshot';
  dry_run: boolean;
  steps: { action_id: string | null; tool: string | null; incident_id: string | null; changes: string[] }[];
  done: boolean;
}

export class RollbackRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RollbackRefused';
  }
}

/** A rollback whose incident lease was lost (not renewed in time, taken over) runs no further step. */
function refuseLostLease(target: string, lease: IncidentLease | undefined): void {
  if (lease?.signal.aborted)
    throw new RollbackRefused(409, `rollback of ${target} stopped before its next step: ${errorMessage(lease.signal.reason)}`);
}

/**
 * `immune rollback <target>`: an action, every succeeded repair of an incident (newest first), or a
 * snapshot. The plan says what will change; anything that cannot be undone (a snapshot retention
 * deleted) refuses the whole rollback before a single step runs. Audit-logged either way.
 */
export class Rollback {
  constructor(
    private readonly deps: EffectorDeps,
    private readonly tools: ToolBox,
    private readonly undoer: Undoer,
  ) {}

  /** The incident a rollback target belongs to (an action's, a snapshot's, or the incident itself); null when none. */
  async incidentOf(target: string): Promise<string | null> {
    const { deps } = this;
    const byId = (await deps.actions.getById(target)) ?? (await deps.actions.get(target));
    if (byId) return byId.doc.incident_id;
    const snapshot = await deps.snapshots.get(target);
    if (snapshot) return snapshot.incident_id;
    return (await deps.actions.list({ incident: target })).length > 0 ? target : null;
  }

  /** `lease`: the incident's lease this rollback holds (Effector.rollback); lost, no further step runs. */
  async run(target: string, options: { dryRun: boolean; actor: string; lease?: IncidentLease }): Promise<RollbackPlan> {
    const { deps } = this;
    const byId = (await deps.actions.getById(target)) ?? (await deps.actions.get(target));
    let kind: RollbackPlan['kind'];
    let actions: ActionDoc[] = [];
    let snapshot: SnapshotRecord | null = null;
    if (byId) {
      kind = 'action';
      actions = [byId.doc];
    } else if ((snapshot = await deps.snapshots.get(target))) {
      kind = 'snapshot';
    } else {
      const ofIncident = await deps.actions.list({ incident: target });
      if (ofIncident.length === 0) throw new RollbackRefused(404, `no action, snapshot or incident named ${target}`);
      kind = 'incident';
      actions = ofIncident.filter((a) => undoableByHand(a)).reverse();
    }
    const plan: RollbackPlan = { target, kind, dry_run: options.dryRun, steps: [], done: false };
    // A snapshot retention deleted cannot be restored: say so before anything is undone, not halfway.
    const pruned =
      kind === 'snapshot'
        ? [snapshot]
        : await Promise.all(actions.filter((a) => undoableByHand(a) && a.snapshot_id).map((a) => deps.snapshots.get(a.snapshot_id!)));
    const gone = pruned.filter((r): r is SnapshotRecord => r !== null && r.status === 'deleted');
    if (gone.length > 0)
      throw new RollbackRefused(
        409,
        `cannot roll back ${target}: ${gone.map(deletedSnapshot).join('; ')} (EFFECTOR_SNAPSHOT_KEEP_LAST / EFFECTOR_SNAPSHOT_KEEP_WITHIN_DAYS); a person must restore the collection another way`,
      );
    // Another repair working on the collection would be raced (its undo restores over ours, or ours over its change).
    await this.refuseInFlight(target, actions);
    if (kind === 'snapshot' && snapshot) {
      plan.steps.push({
        action_id: snapshot.action_id,
        tool: null,
        incident_id: snapshot.incident_id,
        changes: [
          `a snapshot of collection ${snapshot.collection} as it is now is taken first (the way back from this restore)`,
          `collection ${snapshot.collection} restored from snapshot ${snapshot.snapshot_id} (${snapshot.points_count} points, taken ${snapshot.created_at})`,
          ...(snapshot.incident_id ? [`incident ${snapshot.incident_id} held for a human (no repair until it is re-opened)`] : []),
        ],
      });
    } else {
      const undoable = actions.filter((a) => undoableByHand(a));
      if (undoable.length === 0)
        throw new RollbackRefused(
          409,
          `nothing to roll back for ${target}: no succeeded repair (${actions.map((a) => `${a.tool} ${a.status}`).join(', ') || 'none'})`,
        );
      // A way back that is gone, or a later change that owns the state: refused before anything is
      // undone. Steps run newest first, so each later step is asked again once the ones before it ran.
      await this.refuseBlockedUndo(target, undoable[0]!);
      for (const a of undoable) {
        const tool = this.tools.named(a.tool);
        const changes = tool ? tool.describeUndo(JSON.parse(a.args_json) as never, JSON.parse(a.prior_json ?? '{}') as PriorState) : [];
        if (a.snapshot_id) changes.push(`collection ${deps.collection} restored from snapshot ${a.snapshot_id}`);
        plan.steps.push({ action_id: a.action_id, tool: a.tool, incident_id: a.incident_id, changes });
      }
    }
    if (options.dryRun) {
      await deps.audit.record({
        actor: options.actor,
        command: 'rollback',
        target,
        outcome: 'dry_run',
        detail: { kind, steps: plan.steps.length },
      });
      return plan;
    }
    try {
      if (kind === 'snapshot' && snapshot) {
        await this.restoreSnapshot(snapshot, plan, options.actor, target, options.lease);
      } else {
        for (const step of plan.steps) {
          refuseLostLease(target, options.lease);
          await this.undoStep(step, options.actor, target);
        }
      }
    } catch (error) {
      await deps.audit.record({
        actor: options.actor,
        command: 'rollback',
        target,
        outcome: 'error',
        detail: { kind, error: errorMessage(error) },
      });
      throw error;
    }
    plan.done = true;
    await deps.audit.record({ actor: options.actor, command: 'rollback', target, outcome: 'ok', detail: { kind, steps: plan.steps } });
    healingLog(
      deps.logger,
      { incident_id: plan.steps[0]?.incident_id ?? target, actor: options.actor },
      `manual rollback of ${kind} ${target}`,
    );
    return plan;
  }

  /**
   * A manual restore has a way back, and nothing repairs on top of it or under it: the snapshot's
   * incident is held for a human first (no revision plans a repair meanwhile), the in-flight check is
   * made again after the hold (a repair that started in between refuses it), then the collection as
   * it is now is snapshotted (its id is in the plan: `immune rollback <id>` undoes this restore), and
   * only then restored. A failed safety snapshot refuses the restore.
   */
  private async restoreSnapshot(
    snapshot: SnapshotRecord,
    plan: RollbackPlan,
    actor: string,
    target: string,
    lease: IncidentLease | undefined,
  ): Promise<void> {
    const { deps } = this;
    if (snapshot.incident_id)
      await deps.incidents.holdForHuman(snapshot.incident_id, `manual restore of snapshot ${snapshot.snapshot_id} by ${actor}`);
    await this.refuseInFlight(target, []);
    const wayBack = await deps.snapshots.create(snapshot.collection, snapshot.incident_id, null);
    plan.steps[0]?.changes.splice(
      0,
      1,
      `collection ${snapshot.collection} as it was is kept as snapshot ${wayBack.snapshot_id} (immune rollback ${wayBack.snapshot_id} undoes this restore)`,
    );
    refuseLostLease(target, lease);
    await deps.snapshots.restore(snapshot);
    deps.metrics.rollbacks.inc({ trigger: 'manual' });
  }

  /**
   * 409 while a repair is in flight on the collection (every repair of this effector works on
   * EFFECTOR_QDRANT_COLLECTION): started, executed or undoing (a dead replica's too: the recovery
   * sweep resets it), or planned under a live claim (taking its snapshot). Those being rolled back and
   * one held for a human after an inconclusive verification (nothing works on it) do not count.
   */
  private async refuseInFlight(target: string, own: readonly ActionDoc[]): Promise<void> {
    const { deps } = this;
    const mine = new Set(own.map((a) => a.key));
    const now = Date.now();
    const busy = (await deps.actions.list({ statuses: ['planned', 'started', 'executed', 'undoing'] })).filter(
      (a) =>
        !mine.has(a.key) &&
        !(a.status === 'executed' && (a.hold_reason ?? null) !== null && a.lease_until === null) &&
        (a.status !== 'planned' || (a.lease_until ?? 0) > now),
    );
    if (busy.length > 0)
      throw new RollbackRefused(
        409,
        `cannot roll back ${target} now: a repair is in flight on collection ${deps.collection} (${busy
          .map((a) => `${a.tool} ${a.action_id} ${a.status} for ${a.incident_id}`)
          .join(', ')}); try again once it has finished`,
      );
  }

  /** 409 when the action's tool says its undo cannot run now (its way back deleted, or a later change owns the state). */
  private async refuseBlockedUndo(target: string, action: ActionDoc): Promise<void> {
    const tool = this.tools.named(action.tool);
    const ctx = toolContextFor(this.deps, { incident_id: action.incident_id } as RootCauseReport);
    const why = await tool?.undoBlocker?.(ctx, JSON.parse(action.args_json) as never, JSON.parse(action.prior_json ?? '{}') as PriorState);
    if (why) throw new RollbackRefused(409, `cannot roll back ${target}: ${action.tool} ${action.action_id}: ${why}`);
  }

  private async undoStep(step: RollbackPlan['steps'][number], actor: string, target: string): Promise<void> {
    const { deps } = this;
    const v = await deps.actions.getById(step.action_id as string);
    const tool = this.tools.named(step.tool as string);
    if (v === null || tool === undefined || !undoableByHand(v.doc))
      throw new RollbackRefused(409, `action ${step.action_id} changed meanwhile`);
    await this.refuseBlockedUndo(target, v.doc);
    const incident = await deps.incidents.get(v.doc.incident_id);
    const report = incident ? deps.incidents.report(incident.doc) : ({ incident_id: v.doc.incident_id } as RootCauseReport);
    const rolled = await this.undoer.undo(v, tool, toolContextFor(deps, report), `manual rollback by ${actor}`, 'manual');
    if (rolled === null) throw new RollbackRefused(409, `action ${step.action_id} changed meanwhile`);
    // A human rolled the repair back: the effector must not redo it on its own, whatever revision
    // comes next, until a person re-opens the incident (operator/reopen.ts).
    await deps.incidents.holdForHuman(v.doc.incident_id, `manual rollback of ${v.doc.tool} ${v.doc.action_id} by ${actor}`);
  }
}
