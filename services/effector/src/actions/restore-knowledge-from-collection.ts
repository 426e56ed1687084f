import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { CollectionName, SAME_VECTOR_MIN_COSINE, vectorCosine } from '@rag-immune/rag-contract';
import type { KnowledgePointsPort, PointId, StoredPoint } from '../snapshots/knowledge-points.ts';
import { PreconditionError, type ToolContext } from './repair-tool.ts';
import { defineTool, scopedKnowledgeIds } from './tool-helpers.ts';

/** Default cap on the points one restore may write or delete (policy param `max_points`). */
export const DEFAULT_MAX_RESTORED_POINTS = 2_000;

/** A restored vector counts as back when its cosine with the source's is at least this. */
export const RESTORED_MIN_COSINE = SAME_VECTOR_MIN_COSINE;

const PointKey = z.union([z.string(), z.number()]);

/** What capture recorded before anything changed: the live points of the knowledge, and the ones the source lacks. */
const Prior = z.object({ live_points: z.number().int(), to_delete: z.array(PointKey) });

function pointsPort(ctx: ToolContext): KnowledgePointsPort {
  if (ctx.points === undefined) throw new PreconditionError('the effector has no access to the points of its Qdrant collection');
  return ctx.points;
}

const key = (id: PointId) => String(id);

/** Reads the knowledge's points, refusing more than the cap (named) rather than writing an unbounded set. */
async function readBounded(ctx: ToolContext, collection: string, ids: readonly string[], max: number, withVectors: boolean) {
  const points = await pointsPort(ctx).ofKnowledge(collection, ids, { withVectors, limit: max });
  if (points.length > max)
    throw new PreconditionError(`${collection} holds more than max_points ${max} points for ${ids.join(', ')}: not restored in place`);
  return points;
}

const isDense = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => typeof x === 'number');

/**
 * Whether the live point's vectors are the source's: dense ones within RESTORED_MIN_COSINE (Qdrant
 * normalises cosine collections' vectors, so bytes need not match), named ones each, sparse ones equal.
 */
function sameVectors(live: unknown, source: unknown): boolean {
  if (isDense(source)) return isDense(live) && vectorCosine(live, source) >= RESTORED_MIN_COSINE;
  if (source !== null && typeof source === 'object' && !Array.isArray(source) && !('indices' in source)) {
    if (live === null || typeof live !== 'object') return false;
    const named = Object.entries(source as Record<string, unknown>);
    return (
      Object.keys(live).length === named.length &&
      named.every(([name, vector]) => sameVectors((live as Record<string, unknown>)[name], vector))
    );
  }
  return isDeepStrictEqual(live, source);
}

/**
 * For a RAG without repair hooks that reads its Qdrant collection BY NAME (a product such as Flowise:
 * no alias to switch, so neither switch_alias_back nor rebuild_from_collection reaches what it
 * serves), and with no snapshot from before the incident: puts the affected knowledge's points back
 * in place from the known-good collection the adapter names (`repair.rebuild_from`, the pinned
 * baseline copy). The executor snapshots the live collection first (touchesQdrant): that snapshot is
 * the way back, and undo restores it. Scoped to the report's knowledge ids, both payload layouts,
 * bounded by `max_points`; the source's points are upserted with their ids, vectors and payloads, and
 * live points of those ids the source lacks (the fault added them) are deleted. Upsert and delete are
 * idempotent, so an execute resumed after a crash (the recovery sweep restores the snapshot and runs
 * it again) writes the same result.
 */
export const restoreKnowledgeFromCollection = defineTool({
  name: 'restore_knowledge_from_collection',
  readme: {
    ragHook:
      "none (a RAG reading its collection by name): the affected knowledge's points upserted in place from `rebuild_from`, those the source lacks deleted",
    undo: 'snapshot restore (taken before the upsert)',
  },
  version: '1',
  intent: 'rebuild_index_incremental',
  description:
    'Restore the affected knowledge in place from a named known-good collection (the pinned baseline): upsert its points, delete those it lacks',
  input: z
    .object({
      collection: CollectionName,
      /** The source as named in the adapter (an alias or a collection). */
      rebuild_from: CollectionName,
      /** The collection it resolved to at planning: a baseline refreshed meanwhile is not silently used. */
      source_collection: CollectionName,
      knowledge_ids: z.array(z.string().min(1)).min(1),
      /** The source's points for those ids at planning (recorded with the action). */
      source_points: z.number().int().positive(),
      max_points: z.number().int().positive(),
    })
    .strict(),
  touchesQdrant: true,
  reversible: true,
  availability: 'without_repair_hooks',
  readsCollection: 'by_name',
  protectedCollections: (args) => [args.source_collection],
  async plan(ctx, params) {
    const from = ctx.ragRepair?.rebuildFrom ?? null;
    if (from === null) throw new PreconditionError('the adapter names no known-good collection to restore from (repair.rebuild_from)');
    const ids = scopedKnowledgeIds(ctx);
    const max = params.max_points !== undefined ? Number(params.max_points) : DEFAULT_MAX_RESTORED_POINTS;
    if (!Number.isInteger(max) || max <= 0) throw new PreconditionError(`max_points must be a positive integer, got ${params.max_points}`);
    const live = (await ctx.aliases.target(ctx.collection)) ?? ctx.collection;
    const source = (await ctx.aliases.target(from)) ?? from;
    if (source === live) throw new PreconditionError(`${from} is the live collection ${live}: nothing known-good to restore from`);
    await sameShape(ctx, source, live);
    const points = await readBounded(ctx, source, ids, max, false);
    const have = new Set(points.map((p) => knowledgeIdOf(p)));
    const lacking = ids.filter((id) => !have.has(id));
    // A knowledge id the source lacks would be deleted outright, not restored: a person decides that.
    if (lacking.length > 0) throw new PreconditionError(`${from} (${source}) holds no points for ${lacking.join(', ')}`);
    return {
      collection: ctx.collection,
      rebuild_from: from,
      source_collection: source,
      knowledge_ids: ids,
      source_points: points.length,
      max_points: max,
    };
  },
  async preconditions(ctx, args) {
    await sameShape(ctx, args.source_collection, args.collection);
  },
  // What it will change, recorded before the snapshot and the upsert: the action's record says how many and which points go.
  async capture(ctx, args) {
    const [source, live] = await Promise.all([
      readBounded(ctx, args.source_collection, args.knowledge_ids, args.max_points, false),
      readBounded(ctx, args.collection, args.knowledge_ids, args.max_points, false),
    ]);
    const keep = new Set(source.map((p) => key(p.id)));
    return { live_points: live.length, to_delete: live.filter((p) => !keep.has(key(p.id))).map((p) => p.id) };
  },
  async execute(ctx, args) {
    const port = pointsPort(ctx);
    const source = await readBounded(ctx, args.source_collection, args.knowledge_ids, args.max_points, true);
    if (source.length === 0)
      throw new PreconditionError(`${args.source_collection} no longer holds points for ${args.knowledge_ids.join(', ')}`);
    await port.upsert(args.collection, source, ctx.signal);
    ctx.signal?.throwIfAborted();
    // Read again after the upsert: on a resumed run the extra points are whatever is there now.
    const keep = new Set(source.map((p) => key(p.id)));
    const extra = (await readBounded(ctx, args.collection, args.knowledge_ids, args.max_points, false)).filter((p) => !keep.has(key(p.id)));
    await port.delete(
      args.collection,
      extra.map((p) => p.id),
    );
    return {
      detail: {
        collection: args.collection,
        source: args.source_collection,
        knowledge_ids: args.knowledge_ids,
        upserted: source.length,
        deleted: extra.length,
      },
    };
  },
  async verify(ctx, args) {
    const [source, live] = await Promise.all([
      readBounded(ctx, args.source_collection, args.knowledge_ids, args.max_points, true),
      readBounded(ctx, args.collection, args.knowledge_ids, args.max_points, true),
    ]);
    const byId = new Map(live.map((p) => [key(p.id), p]));
    const problems: string[] = [];
    const extra = live.filter((p) => !source.some((s) => key(s.id) === key(p.id)));
    if (extra.length > 0)
      problems.push(`${extra.length} point(s) the source lacks are still live (${extra.map((p) => key(p.id)).join(', ')})`);
    for (const s of source) {
      const l = byId.get(key(s.id));
      if (l === undefined) problems.push(`point ${key(s.id)} is missing`);
      else if (!sameVectors(l.vector, s.vector))
        problems.push(`point ${key(s.id)}'s vector is not the source's (cosine < ${RESTORED_MIN_COSINE})`);
      else if (!isDeepStrictEqual(l.payload, s.payload)) problems.push(`point ${key(s.id)}'s payload differs from the source's`);
    }
    return problems.length === 0 ? null : `${args.collection} after the restore: ${problems.slice(0, 5).join('; ')}`;
  },
  // Qdrant comes back from the snapshot the executor took before execute; nothing else changed.
  undo: async () => {},
  describeUndo: (args, prior) => {
    const parsed = Prior.safeParse(prior);
    return [
      `${args.collection} is restored from the snapshot taken before the repair: the points of ${args.knowledge_ids.join(', ')} as they were` +
        (parsed.success ? ` (${parsed.data.live_points} points, ${parsed.data.to_delete.length} of them deleted by the repair)` : ''),
    ];
  },
});

/** The knowledge id of a point in either payload layout. */
function knowledgeIdOf(point: StoredPoint): unknown {
  const metadata = point.payload.metadata;
  return (
    point.payload.knowledge_id ??
    (metadata !== null && typeof metadata === 'object' ? (metadata as Record<string, unknown>).knowledge_id : undefined)
  );
}

/** Refuses a source that is gone, or whose vector parameters are not the live collection's. */
async function sameShape(ctx: ToolContext, source: string, live: string): Promise<void> {
  const [known, serving] = await Promise.all([ctx.aliases.describe(source), ctx.aliases.describe(live)]);
  if (known === null || known.points === 0) throw new PreconditionError(`${source} does not exist or holds no points`);
  if (serving === null) throw new PreconditionError(`the live collection ${live} does not exist`);
  if (!isDeepStrictEqual(serving.vectors, known.vectors))
    throw new PreconditionError(
      `${source} has vector parameters ${JSON.stringify(known.vectors)}, the live ${live} ${JSON.stringify(serving.vectors)}`,
    );
}
