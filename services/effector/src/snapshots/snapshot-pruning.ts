import type { ToolBox } from '../actions/repair-tool.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import { UNFINISHED } from '../state/action-state.ts';
import type { ActionDoc } from '../state/action-store.ts';

type PruningDeps = Pick<EffectorDeps, 'actions' | 'snapshots' | 'collection' | 'snapshotRetention' | 'metrics' | 'logger'>;

/**
 * Deletes the snapshots the retention policy lets go. Snapshots of actions not yet finished are kept
 * whatever their age: an interrupted or failed action is put back through its snapshot, and a planned
 * tool that will read a snapshot (the restore tool's source) must still find it.
 */
export class SnapshotPruner {
  constructor(
    private readonly deps: PruningDeps,
    private readonly tools: ToolBox,
  ) {}

  async prune(): Promise<void> {
    const { deps } = this;
    if (!deps.snapshotRetention) return;
    const unfinished = await deps.actions.list({ statuses: [...UNFINISHED] });
    const protectedIds = new Set(unfinished.flatMap((action) => this.protectedBy(action)));
    const pruned = await deps.snapshots.prune(deps.collection, deps.snapshotRetention, protectedIds);
    if (pruned.length === 0) return;
    deps.metrics.snapshotsPruned.inc(pruned.length);
    deps.logger.info(
      { collection: deps.collection, snapshots: pruned.map((r) => r.snapshot_id), policy: deps.snapshotRetention },
      `snapshot retention: deleted ${pruned.length} snapshot(s) of ${deps.collection}`,
    );
  }

  /** Its own pre-action snapshot, and those its tool says the planned run will read. */
  private protectedBy(action: ActionDoc): string[] {
    const ids = action.snapshot_id ? [action.snapshot_id] : [];
    const tool = this.tools.named(action.tool);
    if (tool?.protectedSnapshots === undefined) return ids;
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(action.args_json) as Record<string, unknown>;
    } catch {
      return ids;
    }
    return [...ids, ...tool.protectedSnapshots(args).filter((id): id is string => typeof id === 'string' && id !== '')];
  }
}
