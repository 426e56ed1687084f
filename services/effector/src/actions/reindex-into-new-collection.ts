import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { aliasGeneration, CollectionName } from '@rag-immune/rag-contract';
import { PreconditionError, type ToolContext } from './repair-tool.ts';
import { defineTool, scopedKnowledgeIds, repairCallOptions } from './tool-helpers.ts';

const Prior = z.object({ from_collection: z.string().min(1) });

/**
 * Undo switches the alias back only from this repair's own build: if the alias has moved on (a later
 * repair or a person switched it), that later change owns it; if the way back was deleted, nothing can.
 */
async function undoBlocker(ctx: ToolContext, args: { alias: string; target_collection: string }, from: string): Promise<string | null> {
  const live = await ctx.aliases.target(args.alias);
  if (live === from) return null; // never switched to: undo only removes the build
  if (live !== args.target_collection)
    return `alias ${args.alias} now points at ${live ?? 'nothing'}, not this repair's ${args.target_collection}: a later change owns it (roll that back first)`;
  if ((await ctx.aliases.describe(from)) === null)
    return `${from}, the generation before this repair, was deleted by retention (EFFECTOR_RETIRED_COLLECTIONS_KEEP_LAST / _KEEP_WITHIN_DAYS): the alias cannot be switched back`;
  return null;
}

async function liveGeneration(ctx: ToolContext, alias: string): Promise<string> {
  const live = await ctx.aliases.target(alias);
  if (live === null) throw new PreconditionError(`${alias} is not a Qdrant alias: a new collection could not be switched to`);
  return live;
}

/**
 * Qdrant's blue/green reindex: the RAG rebuilds its whole index into a new collection beside the live
 * one (`POST /repair/reindex` with target_collection); the effector checks the build (points as the
 * RAG reported, the live generation's vector parameters) and switches the alias in one atomic
 * request. Nothing is written in place, so no snapshot is needed: undo switches the alias back, which
 * is instant, and the retired generation stays until retention lets it go. Chosen before the in-place
 * reindex when the RAG's capabilities offer it; otherwise it steps aside (PreconditionError).
 */
export const reindexIntoNewCollection = defineTool({
  name: 'reindex_into_new_collection',
  readme: {
    ragHook:
      "`POST /repair/reindex {target_collection}`: the RAG rebuilds its whole index into a new collection beside the live one; the effector checks it (points as reported, non-empty, the live generation's vector parameters) and re-points the alias in one `POST /collections/aliases`. Steps aside (inapplicable) when `capabilities.vector_store` names no alias",
    undo: 'the alias switched back (instant), the build deleted; refused (409) when retention deleted the way back or a later switch owns the alias',
  },
  version: '1',
  intent: 'rebuild_index_incremental',
  description: 'Rebuild the whole index into a new collection beside the live one, check it, and switch the alias to it',
  input: z
    .object({
      alias: CollectionName,
      target_collection: CollectionName,
      /** The knowledge the report names (the build covers everything; recorded for the audit). */
      knowledge_ids: z.array(z.string().min(1)).min(1).max(10_000),
    })
    .strict(),
  touchesQdrant: false,
  reversible: true,
  availability: 'repair_hooks',
  coversAllKnowledge: true,
  // Its build and the generation it retired are its way forward and back: retention keeps both meanwhile.
  protectedCollections: (args, prior) =>
    [args.target_collection, prior.from_collection].filter((name): name is string => typeof name === 'string'),
  async plan(ctx) {
    const knowledgeIds = scopedKnowledgeIds(ctx);
    const store = (await ctx.online.capabilities({ timeoutMs: ctx.timeoutMs })).vector_store;
    if (!store?.blue_green_reindex || store.alias === null)
      throw new PreconditionError('the RAG does not serve its collection through an alias with a blue/green reindex hook');
    if (store.alias !== ctx.collection)
      throw new PreconditionError(`the RAG's alias ${store.alias} is not the collection this effector guards (${ctx.collection})`);
    return { alias: store.alias, target_collection: aliasGeneration(store.alias), knowledge_ids: knowledgeIds };
  },
  async preconditions(ctx, args) {
    await liveGeneration(ctx, args.alias);
  },
  capture: async (ctx, args) => ({ from_collection: await liveGeneration(ctx, args.alias) }),
  async execute(ctx, args) {
    const from = await liveGeneration(ctx, args.alias);
    if (from === args.target_collection) return { detail: { switched: false, collection: from, note: 'already live' } };
    const result = await ctx.online.reindex({ target_collection: args.target_collection }, repairCallOptions(ctx));
    const [built, live] = await Promise.all([ctx.aliases.describe(args.target_collection), ctx.aliases.describe(from)]);
    // Checked before anyone reads it: a build that is empty, short of what the RAG says it wrote, or
    // shaped differently from the live generation is never switched to.
    if (built === null) throw new Error(`the RAG reported a reindex into ${args.target_collection}, which does not exist`);
    const reported = typeof result.detail?.points === 'number' ? result.detail.points : null;
    if (built.points === 0) throw new Error(`${args.target_collection} holds no points: not switched to`);
    if (reported !== null && reported !== built.points)
      throw new Error(`${args.target_collection} holds ${built.points} points, the RAG reported ${reported}: not switched to`);
    if (live !== null && !isDeepStrictEqual(live.vectors, built.vectors))
      throw new Error(
        `${args.target_collection} has vector parameters ${JSON.stringify(built.vectors)}, the live generation ${JSON.stringify(live.vectors)}`,
      );
    await ctx.aliases.swap(args.alias, from, args.target_collection);
    // Off the repair's path: a failed prune only leaves an extra generation for the next switch to retire.
    const pruned = await ctx.aliases
      .pruneRetired(args.alias, new Set([from, args.target_collection, ...(await ctx.collectionsInFlight())]))
      .catch((error: unknown) => `prune failed: ${error instanceof Error ? error.message : String(error)}`);
    return {
      detail: {
        switched: true,
        alias: args.alias,
        from,
        to: args.target_collection,
        points: built.points,
        live_points: live?.points ?? null,
        pruned,
      },
    };
  },
  async verify(ctx, args) {
    const live = await ctx.aliases.target(args.alias);
    return live === args.target_collection ? null : `alias ${args.alias} points at ${live ?? 'nothing'}, not ${args.target_collection}`;
  },
  undoBlocker: (ctx, args, prior) => undoBlocker(ctx, args, Prior.parse(prior).from_collection),
  async undo(ctx, args, prior) {
    const { from_collection: from } = Prior.parse(prior);
    const blocked = await undoBlocker(ctx, args, from);
    if (blocked !== null) throw new Error(blocked);
    if ((await ctx.aliases.target(args.alias)) === args.target_collection) await ctx.aliases.swap(args.alias, args.target_collection, from);
    // The build nobody reads any more (or one that was never switched to) goes; the way back stays.
    if ((await ctx.aliases.describe(args.target_collection)) !== null)
      await ctx.aliases.deleteGeneration(args.alias, args.target_collection);
  },
  describeUndo: (args, prior) => [
    `alias ${args.alias} is switched back to ${String(prior.from_collection ?? 'the generation before the repair')} (one atomic request)`,
    `the rebuilt collection ${args.target_collection} is deleted`,
  ],
});
