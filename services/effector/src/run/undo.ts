import { RagHttpError } from '@rag-immune/rag-contract';
import { healingLog, testPause } from '@rag-immune/worker-runtime';
import { UndoImpossible, type PriorState, type RepairTool, type ToolContext } from '../actions/repair-tool.ts';
import { errorMessage } from '../error-message.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import type { ActionEvents } from '../events/action-events.ts';
import type { ActionDoc, Versioned } from '../state/action-store.ts';

/** Errors an undo may meet before a failed repair is declared impossible to undo (then a human looks). */
export const MAX_UNDO_ATTEMPTS = 3;

/** What finishing an owed undo came to. */
export type UndoOutcome =
  | { status: 'rolled_back' }
  /** Failed for now (a server unreachable): still `undoing`, tried again at the next pass or start-up. */
  | { status: 'undo_pending'; message: string }
  /** Cannot be done: the action is `failed` with the undo's error; the incident must go to a human. */
  | { status: 'undo_failed'; message: string }
  | { status: 'contended' };

export { UndoImpossible };

/** What putting an interrupted action back to its before state came to. */
export type ResetOutcome =
  | { status: 'reset'; v: Versioned<ActionDoc> }
  | { status: 'contended' }
  /** Its before state cannot be restored: the action is `failed` with why; the incident must go to a human. */
  | { status: 'undo_failed'; message: string };

type UndoDeps = Pick<EffectorDeps, 'actions' | 'snapshots' | 'metrics' | 'logger' | 'instanceId' | 'leaseMs'>;

/** Putting a repair back: after a failure, on escalation, on a person's rollback, and after a crash. */
export class Undoer {
  constructor(
    private readonly deps: UndoDeps,
    private readonly events: ActionEvents,
  ) {}

  /** Undo a repair: tool state first, then the collection from its snapshot (so Qdrant ends exactly as before). */
  async undo(
    v: Versioned<ActionDoc>,
    tool: RepairTool,
    ctx: ToolContext,
    reason: string,
    trigger: string,
  ): Promise<Versioned<ActionDoc> | null> {
    const { deps } = this;
    let toolUndoRefused: string | null;
    try {
      toolUndoRefused = await this.putBack(v, tool, ctx);
    } catch (error) {
      deps.logger.error(
        { incident_id: v.doc.incident_id, action_id: v.doc.action_id, err: errorMessage(error) },
        `undo of ${tool.name} failed: escalating`,
      );
      await deps.actions.update(v, { rollback_reason: `undo failed: ${errorMessage(error)}` });
      throw error;
    }
    return this.rolledBack(v, reason, toolUndoRefused, trigger);
  }

  /**
   * Finishes the undo a failed repair owes (status `undoing`), right after the failure or when a
   * restarted effector finds it. An error that may pass (the RAG, Qdrant or Elasticsearch
   * unreachable) leaves it `undoing` to be tried again; one that cannot (its snapshot is gone), or
   * MAX_UNDO_ATTEMPTS errors, fails it with the undo's error recorded: the caller escalates.
   */
  async finishUndo(v: Versioned<ActionDoc>, tool: RepairTool, ctx: ToolContext, trigger: string): Promise<UndoOutcome> {
    // Renewed while the undo runs (a snapshot restore can be long): another replica must not take it over meanwhile.
    const lease = this.deps.actions.hold(v, { owner: this.deps.instanceId, leaseMs: this.deps.leaseMs });
    try {
      return await this.finishUndoHeld(v, tool, ctx, trigger);
    } finally {
      lease.release();
    }
  }

  private async finishUndoHeld(v: Versioned<ActionDoc>, tool: RepairTool, ctx: ToolContext, trigger: string): Promise<UndoOutcome> {
    const { deps } = this;
    const reason = `undone after ${v.doc.failure?.reason ?? 'a failure'}`;
    // Chaos tests cut Elasticsearch here (test/integration/effector-chaos.test.ts); a no-op otherwise.
    await testPause('effector.mid-undo', deps.logger, { incident_id: v.doc.incident_id, action_id: v.doc.action_id });
    let toolUndoRefused: string | null;
    try {
      toolUndoRefused = await this.putBack(v, tool, ctx);
    } catch (error) {
      const attempts = (v.doc.undo_attempts ?? 0) + 1;
      const message = `undo of ${tool.name} failed (attempt ${attempts}): ${errorMessage(error)}`;
      if (error instanceof UndoImpossible || attempts >= MAX_UNDO_ATTEMPTS) {
        deps.logger.error(
          { incident_id: v.doc.incident_id, action_id: v.doc.action_id, err: errorMessage(error) },
          `${message}: escalating`,
        );
        const failed = await deps.actions.move(v, 'failed', {
          undo_attempts: attempts,
          rollback_reason: message,
          lease_until: null,
          finished_at: new Date().toISOString(),
        });
        return failed === null ? { status: 'contended' } : { status: 'undo_failed', message };
      }
      deps.logger.warn(
        { incident_id: v.doc.incident_id, action_id: v.doc.action_id, err: errorMessage(error) },
        `${message}: tried again later`,
      );
      const kept = await deps.actions.update(v, { undo_attempts: attempts, rollback_reason: message, lease_until: null });
      return kept === null ? { status: 'contended' } : { status: 'undo_pending', message };
    }
    const rolled = await this.rolledBack(v, reason, toolUndoRefused, trigger);
    return rolled === null ? { status: 'contended' } : { status: 'rolled_back' };
  }

  /** An owed undo nothing can carry out (its tool is gone): failed with why, for a human. */
  async abandonUndo(v: Versioned<ActionDoc>, why: string): Promise<UndoOutcome> {
    const message = `undo of ${v.doc.tool} cannot be done: ${why}`;
    const failed = await this.deps.actions.move(v, 'failed', {
      rollback_reason: message,
      lease_until: null,
      finished_at: new Date().toISOString(),
    });
    return failed === null ? { status: 'contended' } : { status: 'undo_failed', message };
  }

  /** Tool undo, then the snapshot restore; the RAG's refusal of the tool undo (4xx) is returned, not thrown. */
  private async putBack(v: Versioned<ActionDoc>, tool: RepairTool, ctx: ToolContext): Promise<string | null> {
    const { deps } = this;
    const args = JSON.parse(v.doc.args_json) as Record<string, unknown>;
    const prior = JSON.parse(v.doc.prior_json ?? '{}') as PriorState;
    let toolUndoRefused: string | null = null;
    try {
      await tool.undo(ctx, args, prior);
    } catch (error) {
      // The RAG refusing the undo (4xx) means it refused the change too: the snapshot still runs.
      if (!(error instanceof RagHttpError && error.status < 500)) throw error;
      toolUndoRefused = errorMessage(error);
    }
    if (v.doc.snapshot_id !== null) {
      const record = await deps.snapshots.get(v.doc.snapshot_id);
      // A way back that is gone fails the same way on every try: no use trying again.
      if (record === null || record.status === 'deleted')
        throw new UndoImpossible(
          `snapshot ${v.doc.snapshot_id} is ${record === null ? 'not recorded' : 'deleted by retention'}: it cannot be restored`,
        );
      const stop = deps.metrics.snapshotSeconds.startTimer({ operation: 'restore' });
      await deps.snapshots.restore(record);
      stop();
    }
    return toolUndoRefused;
  }

  private async rolledBack(
    v: Versioned<ActionDoc>,
    reason: string,
    toolUndoRefused: string | null,
    trigger: string,
  ): Promise<Versioned<ActionDoc> | null> {
    const { deps } = this;
    const rolled = await deps.actions.move(v, 'rolled_back', {
      rollback_reason: toolUndoRefused === null ? reason : `${reason} (the RAG refused the tool undo: ${toolUndoRefused})`,
      lease_until: null,
      finished_at: new Date().toISOString(),
    });
    if (rolled) {
      await this.events.emit(rolled.doc, 'rolled_back', v.doc.action_id);
      deps.metrics.rollbacks.inc({ trigger });
    }
    return rolled;
  }

  /**
   * An action interrupted mid-flight (crash, expired lease): put the RAG back to its before state, then
   * it runs again. One whose before state cannot be restored (its snapshot record is gone, its tool
   * recorded nothing to go back to) is failed with why, never re-run on top: the caller escalates.
   */
  async resetToBefore(v: Versioned<ActionDoc>, tool: RepairTool, ctx: ToolContext, reason: string): Promise<ResetOutcome> {
    const { deps } = this;
    const owned = await deps.actions.update(v, { owner: deps.instanceId, lease_until: Date.now() + deps.leaseMs });
    if (owned === null) return { status: 'contended' };
    const lease = deps.actions.hold(owned, { owner: deps.instanceId, leaseMs: deps.leaseMs });
    try {
      return await this.resetHeld(owned, tool, ctx, reason);
    } finally {
      lease.release();
    }
  }

  private async resetHeld(owned: Versioned<ActionDoc>, tool: RepairTool, ctx: ToolContext, reason: string): Promise<ResetOutcome> {
    const { deps } = this;
    const args = JSON.parse(owned.doc.args_json) as Record<string, unknown>;
    const prior = JSON.parse(owned.doc.prior_json ?? '{}') as PriorState;
    try {
      // The snapshot's record first: without it nothing is undone (a half reset would be neither state).
      const record = owned.doc.snapshot_id === null ? null : await deps.snapshots.get(owned.doc.snapshot_id);
      if (owned.doc.snapshot_id !== null && (record === null || record.status === 'deleted'))
        throw new UndoImpossible(
          `snapshot ${owned.doc.snapshot_id} is ${record === null ? 'not recorded' : 'deleted by retention'}: the collection cannot be restored`,
        );
      await tool.undo(ctx, args, prior);
      if (record !== null) await deps.snapshots.restore(record);
    } catch (error) {
      if (!(error instanceof UndoImpossible)) throw error;
      return this.failUnrestorable(owned, tool, `${reason}: ${tool.name} cannot be put back to its before state: ${error.message}`);
    }
    deps.metrics.rollbacks.inc({ trigger: 'recovery' });
    healingLog(
      deps.logger,
      { incident_id: owned.doc.incident_id, action_id: owned.doc.action_id, tool: tool.name },
      `${reason}: ${tool.name} put back to its before state, resuming`,
    );
    const planned = await deps.actions.move(owned, 'planned', { owner: null, lease_until: null, resumes: owned.doc.resumes + 1 });
    return planned === null ? { status: 'contended' } : { status: 'reset', v: planned };
  }

  /** Loudly: failed with why (and published), for the caller to escalate; it may still be applied. */
  private async failUnrestorable(owned: Versioned<ActionDoc>, tool: RepairTool, message: string): Promise<ResetOutcome> {
    const { deps } = this;
    deps.logger.error({ incident_id: owned.doc.incident_id, action_id: owned.doc.action_id, tool: tool.name }, `${message}: escalating`);
    const failed = await deps.actions.move(owned, 'failed', {
      failure: owned.doc.failure ?? { reason: 'tool_error', message },
      rollback_reason: message,
      lease_until: null,
      finished_at: new Date().toISOString(),
    });
    if (failed === null) return { status: 'contended' };
    await this.events.emit(failed.doc, 'failed');
    return { status: 'undo_failed', message };
  }
}
