import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { aliasGeneration, CollectionName } from '@rag-immune/rag-contract';
import { PreconditionError } from './repair-tool.ts';
import { defineTool } from './tool-helpers.ts';
import { liveTarget, recordTarget, switchBackBlocker } from './alias-switch.ts';

const Prior = z.object({ from_collection: z.string().min(1) });

/**
 * For a RAG without repair hooks: rebuilds its collection from a named known-good one (the adapter's
 * `repair.rebuild_from`, e.g. the pinned baseline copy `immune baseline create` made) into a new
 * collection beside the live one, checks it (every point copied, the live generation's vector
 * parameters) and switches the RAG's alias to it in one request: blue/green, no snapshot needed, the
 * way back (the live generation) exists before anything changes. Undo switches the alias back and
 * deletes the build. What the source lacks (knowledge added since it was pinned) is lost until the
 * RAG's own ingestion runs again: the record says which source and how many points.
 */
export const rebuildFromCollection = defineTool({
  name: 'rebuild_from_collection',
  readme: {
    ragHook:
      "none: the adapter's `rebuild_from` (the pinned baseline copy) copied by scroll into a new generation, checked, the alias switched",
    undo: 'the alias switched back, the build deleted',
  },
  version: '1',
  intent: 'rebuild_index_incremental',
  description: "Copy a named known-good collection (the pinned baseline) into a new collection and switch the RAG's alias to it",
  input: z
    .object({
      alias: CollectionName,
      /** The source as named in the adapter (an alias or a collection). */
      rebuild_from: CollectionName,
      /** The collection it resolved to at planning: a baseline refreshed meanwhile is not silently used. */
      source_collection: CollectionName,
      target_collection: CollectionName,
    })
    .strict(),
  touchesQdrant: false,
  reversible: true,
  coversAllKnowledge: true,
  availability: 'without_repair_hooks',
  readsCollection: 'alias',
  protectedCollections: (args, prior) =>
    [args.target_collection, args.source_collection, prior.from_collection].filter((name): name is string => typeof name === 'string'),
  async plan(ctx) {
    const from = ctx.ragRepair?.rebuildFrom ?? null;
    if (from === null) throw new PreconditionError('the adapter names no collection to rebuild from (repair.rebuild_from)');
    const alias = ctx.collection;
    const live = await liveTarget(ctx, alias);
    const source = (await ctx.aliases.target(from)) ?? from;
    if (source === live) throw new PreconditionError(`${from} is the live collection ${live}: nothing earlier to rebuild from`);
    const [known, serving] = await Promise.all([ctx.aliases.describe(source), ctx.aliases.describe(live)]);
    if (known === null || known.points === 0) throw new PreconditionError(`${from} (${source}) does not exist or holds no points`);
    if (serving !== null && !isDeepStrictEqual(serving.vectors, known.vectors))
      throw new PreconditionError(
        `${source} has vector parameters ${JSON.stringify(known.vectors)}, the live ${live} ${JSON.stringify(serving.vectors)}`,
      );
    return { alias, rebuild_from: from, source_collection: source, target_collection: aliasGeneration(alias) };
  },
  async preconditions(ctx, args) {
    await liveTarget(ctx, args.alias);
    if ((await ctx.aliases.describe(args.source_collection)) === null)
      throw new PreconditionError(`${args.source_collection} no longer exists`);
  },
  capture: async (ctx, args) => ({ from_collection: await liveTarget(ctx, args.alias) }),
  async execute(ctx, args) {
    const from = await liveTarget(ctx, args.alias);
    if (from === args.target_collection) return { detail: { switched: false, collection: from, note: 'already live' } };
    const expected = await ctx.aliases.describe(args.source_collection);
    if (expected === null) throw new PreconditionError(`${args.source_collection} no longer exists`);
    const copied = await ctx.aliases.copy(args.source_collection, args.target_collection, ctx.signal);
    const [built, live] = await Promise.all([ctx.aliases.describe(args.target_collection), ctx.aliases.describe(from)]);
    // Checked before anyone reads it: short of the source, or shaped unlike the live generation, is never switched to.
    if (built === null) throw new Error(`${args.target_collection} does not exist after the copy`);
    if (built.points !== expected.points || copied.points !== expected.points)
      throw new Error(
        `${args.target_collection} holds ${built.points} points, ${args.source_collection} ${expected.points}: not switched to`,
      );
    if (live !== null && !isDeepStrictEqual(live.vectors, built.vectors))
      throw new Error(
        `${args.target_collection} has vector parameters ${JSON.stringify(built.vectors)}, the live ${JSON.stringify(live.vectors)}`,
      );
    await recordTarget(ctx, args.alias, from);
    await ctx.aliases.swap(args.alias, from, args.target_collection);
    await recordTarget(ctx, args.alias, args.target_collection);
    return {
      detail: { switched: true, alias: args.alias, from, to: args.target_collection, source: args.source_collection, points: built.points },
    };
  },
  async verify(ctx, args) {
    const live = await ctx.aliases.target(args.alias);
    return live === args.target_collection ? null : `alias ${args.alias} points at ${live ?? 'nothing'}, not ${args.target_collection}`;
  },
  undoBlocker: (ctx, args, prior) => switchBackBlocker(ctx, args.alias, args.target_collection, Prior.parse(prior).from_collection),
  async undo(ctx, args, prior) {
    const { from_collection: from } = Prior.parse(prior);
    const blocked = await switchBackBlocker(ctx, args.alias, args.target_collection, from);
    if (blocked !== null) throw new Error(blocked);
    if ((await ctx.aliases.target(args.alias)) === args.target_collection) await ctx.aliases.swap(args.alias, args.target_collection, from);
    await recordTarget(ctx, args.alias, from);
    // The build nobody reads any more (or one never switched to) goes; the way back and the source stay.
    if ((await ctx.aliases.describe(args.target_collection)) !== null)
      await ctx.aliases.deleteGeneration(args.alias, args.target_collection);
  },
  describeUndo: (args, prior) => [
    `alias ${args.alias} is switched back to ${String(prior.from_collection ?? 'the collection before the repair')} (one atomic request)`,
    `the rebuilt collection ${args.target_collection} is deleted; ${args.source_collection} is left as it is`,
  ],
});
