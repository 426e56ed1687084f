import { z } from 'zod';
import { PreconditionError } from './repair-tool.ts';
import { defineTool } from './tool-helpers.ts';

/** Default of EFFECTOR_RESTORE_MAX_SNAPSHOT_AGE_HOURS. */
export const DEFAULT_MAX_SNAPSHOT_AGE_MS = 24 * 3_600_000;

function formatAge(ms: number): string {
  const hours = ms / 3_600_000;
  return hours >= 48 ? `${(hours / 24).toFixed(1)} days` : `${hours.toFixed(1)} h`;
}

/**
 * Restores the RAG's collection from the newest snapshot recorded before the incident began (a
 * known-good index). Intent rebuild_index_incremental: the contract has no separate restore intent.
 */
export const restoreCollectionSnapshot = defineTool({
  name: 'restore_collection_snapshot',
  readme: { ragHook: 'Qdrant `snapshots/recover` (newest snapshot before the incident window)', undo: 'snapshot restore' },
  version: '1',
  intent: 'rebuild_index_incremental',
  description: 'Restore the Qdrant collection from the newest snapshot taken before the incident window',
  input: z.object({ collection: z.string().min(1), snapshot_id: z.string().min(1), checksum: z.string().optional() }).strict(),
  touchesQdrant: true,
  reversible: true,
  // The snapshot it chose must survive retention until the restore ran.
  protectedSnapshots: (args) => [args.snapshot_id],
  async plan(ctx) {
    const before = (await ctx.listSnapshots(ctx.collection))
      .filter((s) => s.status !== 'deleted' && Date.parse(s.created_at) < ctx.report.window_start)
      .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
    const chosen = before[0];
    if (chosen === undefined) throw new PreconditionError(`no snapshot of ${ctx.collection} was taken before the incident window`);
    return { collection: chosen.collection, snapshot_id: chosen.snapshot_id, ...(chosen.checksum ? { checksum: chosen.checksum } : {}) };
  },
  // Restoring rolls the knowledge back to the snapshot's day: every update since is lost. Recent
  // enough, that is the repair; older, a person decides, seeing which snapshot and how old.
  async grantReason(ctx, args) {
    const maxAgeMs = ctx.restoreMaxSnapshotAgeMs ?? DEFAULT_MAX_SNAPSHOT_AGE_MS;
    const record = (await ctx.listSnapshots(args.collection)).find((s) => s.snapshot_id === args.snapshot_id);
    if (record === undefined) return `snapshot ${args.snapshot_id} is not recorded: its age is unknown`;
    const ageMs = Date.now() - Date.parse(record.created_at);
    if (!(ageMs > maxAgeMs)) return null;
    return `snapshot ${args.snapshot_id} is ${formatAge(ageMs)} old (taken ${record.created_at}), older than ${formatAge(maxAgeMs)}: restoring it discards every knowledge update since`;
  },
  preconditions: async () => {},
  capture: async () => ({}),
  async execute(ctx, args) {
    const record = (await ctx.listSnapshots(args.collection)).find((s) => s.snapshot_id === args.snapshot_id);
    if (record === undefined) throw new PreconditionError(`snapshot ${args.snapshot_id} is not recorded`);
    await ctx.restoreSnapshot(record);
    return { detail: { restored: args.snapshot_id } };
  },
  verify: async () => null,
  undo: async () => {},
  describeUndo: () => ['the collection as it was before the restore comes back from the pre-action snapshot'],
});
