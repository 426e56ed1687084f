import type { ToolBox } from '../actions/catalogue.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import { UNFINISHED } from '../state/action-state.ts';
import type { ActionDoc } from '../state/action-store.ts';

type PruningDeps = Pick<
  EffectorDeps,
  'actions' | 'snapshots' | 'collection' | 'snapshotRetention' | 'snapshotBudgetBytes' | 'metrics' | 'logger'
>;

const DAY_MS = 86_400_000;

/** Whether a new snapshot fits EFFECTOR_SNAPSHOT_BUDGET_BYTES (after pruning for it); `message` says why not. */
export type BudgetCheck = { fits: true } | { fits: false; message: string };

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
    const protectedIds = await this.protectedIds();
    const pruned = await deps.snapshots.prune(deps.collection, deps.snapshotRetention, protectedIds);
    if (pruned.length === 0) return;
    deps.metrics.snapshotsPruned.inc(pruned.length);
    deps.logger.info(
      { collection: deps.collection, snapshots: pruned.map((r) => r.snapshot_id), policy: deps.snapshotRetention },
      `snapshot retention: deleted ${pruned.length} snapshot(s) of ${deps.collection}`,
    );
  }

  /**
   * Before a new snapshot of the collection: does it fit the byte budget? Its size is estimated as the
   * newest live snapshot's (0 when none is recorded). Over the budget, the oldest live snapshots are
   * deleted first, beyond keep-last, but never one an unfinished action needs nor one younger than
   * keep-within (the rollback window of recent repairs); if that is not enough, the answer is no.
   */
  async makeRoom(now: number = Date.now()): Promise<BudgetCheck> {
    const { deps } = this;
    const budget = deps.snapshotBudgetBytes;
    if (budget === undefined) return { fits: true };
    // Records name the collection behind an alias (snapshot-store.ts): count those.
    const collection = await deps.snapshots.physical(deps.collection);
    const live = await deps.snapshots.list({ collection, live: true }); // newest first
    const estimate = live[0]?.size_bytes ?? 0;
    let used = live.reduce((sum, r) => sum + (r.size_bytes ?? 0), 0);
    if (used + estimate <= budget) return { fits: true };
    const protectedIds = await this.protectedIds();
    const windowMs = (deps.snapshotRetention?.keepWithinDays ?? 0) * DAY_MS;
    const candidates = [...live].reverse().filter((r) => !protectedIds.has(r.snapshot_id) && now - Date.parse(r.created_at) > windowMs);
    const pruned: string[] = [];
    for (const record of candidates) {
      if (used + estimate <= budget) break;
      await deps.snapshots.delete(record);
      used -= record.size_bytes ?? 0;
      pruned.push(record.snapshot_id);
    }
    if (pruned.length > 0) {
      deps.metrics.snapshotsPruned.inc(pruned.length);
      deps.metrics.snapshotBudget.inc({ outcome: 'pruned' }, pruned.length);
      deps.logger.info(
        { collection, snapshots: pruned, budget_bytes: budget, used_bytes: used, estimate_bytes: estimate },
        `snapshot budget: deleted ${pruned.length} snapshot(s) of ${collection} to make room`,
      );
    }
    if (used + estimate <= budget) return { fits: true };
    deps.metrics.snapshotBudget.inc({ outcome: 'refused' });
    const message =
      `snapshot budget: the live snapshots of ${collection} take ${used} bytes and the next is estimated at ` +
      `${estimate} bytes, over EFFECTOR_SNAPSHOT_BUDGET_BYTES=${budget}; the ${live.length - pruned.length} left are needed by ` +
      `unfinished actions or younger than EFFECTOR_SNAPSHOT_KEEP_WITHIN_DAYS=${deps.snapshotRetention?.keepWithinDays ?? 0}: ` +
      'refusing the repair rather than filling the disk';
    deps.logger.error({ collection, budget_bytes: budget, used_bytes: used, estimate_bytes: estimate }, message);
    return { fits: false, message };
  }

  /** The snapshots unfinished actions still need. */
  private async protectedIds(): Promise<Set<string>> {
    const unfinished = await this.deps.actions.list({ statuses: [...UNFINISHED] });
    return new Set(unfinished.flatMap((action) => this.protectedBy(action)));
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
