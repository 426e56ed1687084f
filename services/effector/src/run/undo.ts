import { RagHttpError } from '@rag-immune/rag-contract';
import { healingLog } from '@rag-immune/worker-runtime';
import type { PriorState, RepairTool, ToolContext } from '../actions/repair-tool.ts';
import { errorMessage, type EffectorDeps } from '../effector-deps.ts';
import type { ActionEvents } from '../events/action-events.ts';
import { SnapshotError } from '../snapshots/snapshot-store.ts';
import type { ActionDoc, Versioned } from '../state/action-store.ts';

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
    const args = JSON.parse(v.doc.args_json) as Record<string, unknown>;
    const prior = JSON.parse(v.doc.prior_json ?? '{}') as PriorState;
    let toolUndoRefused: string | null = null;
    try {
      try {
        await tool.undo(ctx, args, prior);
      } catch (error) {
        // The RAG refusing the undo (4xx) means it refused the change too: the snapshot still runs.
        if (!(error instanceof RagHttpError && error.status < 500)) throw error;
        toolUndoRefused = errorMessage(error);
      }
      if (v.doc.snapshot_id !== null) {
        const record = await deps.snapshots.get(v.doc.snapshot_id);
        if (record === null) throw new SnapshotError('restore', `snapshot ${v.doc.snapshot_id} is not recorded`);
        const stop = deps.metrics.snapshotSeconds.startTimer({ operation: 'restore' });
        await deps.snapshots.restore(record);
        stop();
      }
    } catch (error) {
      deps.logger.error(
        { incident_id: v.doc.incident_id, action_id: v.doc.action_id, err: errorMessage(error) },
        `undo of ${tool.name} failed: escalating`,
      );
      await deps.actions.update(v, { rollback_reason: `undo failed: ${errorMessage(error)}` });
      throw error;
    }
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

  /** An action interrupted mid-flight (crash, expired lease): put the RAG back to its before state, then it runs again. */
  async resetToBefore(v: Versioned<ActionDoc>, tool: RepairTool, ctx: ToolContext, reason: string): Promise<Versioned<ActionDoc> | null> {
    const { deps } = this;
    const owned = await deps.actions.update(v, { owner: deps.instanceId, lease_until: Date.now() + deps.leaseMs });
    if (owned === null) return null;
    const args = JSON.parse(owned.doc.args_json) as Record<string, unknown>;
    const prior = JSON.parse(owned.doc.prior_json ?? '{}') as PriorState;
    await tool.undo(ctx, args, prior);
    if (owned.doc.snapshot_id !== null) {
      const record = await deps.snapshots.get(owned.doc.snapshot_id);
      if (record) await deps.snapshots.restore(record);
    }
    deps.metrics.rollbacks.inc({ trigger: 'recovery' });
    healingLog(
      deps.logger,
      { incident_id: owned.doc.incident_id, action_id: owned.doc.action_id, tool: tool.name },
      `${reason}: ${tool.name} put back to its before state, resuming`,
    );
    return deps.actions.move(owned, 'planned', { owner: null, lease_until: null, resumes: owned.doc.resumes + 1 });
  }
}
