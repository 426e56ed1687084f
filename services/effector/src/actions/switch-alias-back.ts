import { z } from 'zod';
import { CollectionName } from '@rag-immune/rag-contract';
import { PreconditionError } from './repair-tool.ts';
import { defineTool } from './tool-helpers.ts';
import { liveTarget, recordTarget, switchBackBlocker } from './alias-switch.ts';

const Prior = z.object({ from_collection: z.string().min(1) });

/**
 * For a RAG without repair hooks whose own ingestion switches its alias to each new build: points the
 * alias back at the collection it served before the incident began (from the alias history the
 * effector records), in one atomic request. Nothing is written, so no snapshot: undo switches it
 * forward again, and neither collection is deleted (both are the RAG's own, not the effector's).
 */
export const switchAliasBack = defineTool({
  name: 'switch_alias_back',
  readme: {
    ragHook: 'none (a RAG without hooks): the alias back to the collection it served before the incident, from the alias history',
    undo: 'the alias switched forward again; nothing deleted',
  },
  version: '1',
  intent: 'rebuild_index_incremental',
  description: "Switch the RAG's alias back to the collection it served before the incident (from the recorded alias history)",
  input: z.object({ alias: CollectionName, from_collection: CollectionName, to_collection: CollectionName }).strict(),
  touchesQdrant: false,
  reversible: true,
  availability: 'without_repair_hooks',
  readsCollection: 'alias',
  protectedCollections: (args) => [args.from_collection, args.to_collection],
  async plan(ctx) {
    const alias = ctx.collection;
    const live = await liveTarget(ctx, alias);
    if (ctx.aliasHistory === undefined) throw new PreconditionError(`no alias history is recorded for ${alias}`);
    // Served before the incident began: first seen before its window, and not the target now.
    const earlier = (await ctx.aliasHistory.sightings(alias))
      .filter((s) => s.collection !== live && Date.parse(s.first_seen) < ctx.report.window_start)
      .sort((a, b) => Date.parse(b.last_seen) - Date.parse(a.last_seen));
    for (const sighting of earlier) {
      const described = await ctx.aliases.describe(sighting.collection);
      if (described !== null && described.points > 0) return { alias, from_collection: live, to_collection: sighting.collection };
    }
    throw new PreconditionError(
      earlier.length === 0
        ? `alias ${alias} was seen pointing at no other collection than ${live} before the incident`
        : `the collections ${alias} served before the incident (${earlier.map((s) => s.collection).join(', ')}) are gone or empty`,
    );
  },
  async preconditions(ctx, args) {
    const live = await liveTarget(ctx, args.alias);
    if (live !== args.from_collection && live !== args.to_collection)
      throw new PreconditionError(`alias ${args.alias} moved to ${live} since the plan: not switched`);
    if ((await ctx.aliases.describe(args.to_collection)) === null) throw new PreconditionError(`${args.to_collection} no longer exists`);
  },
  capture: async (ctx, args) => ({ from_collection: await liveTarget(ctx, args.alias) }),
  async execute(ctx, args) {
    const from = await liveTarget(ctx, args.alias);
    if (from === args.to_collection) return { detail: { switched: false, collection: from, note: 'already live' } };
    await recordTarget(ctx, args.alias, from);
    await ctx.aliases.swap(args.alias, from, args.to_collection);
    await recordTarget(ctx, args.alias, args.to_collection);
    return { detail: { switched: true, alias: args.alias, from, to: args.to_collection } };
  },
  async verify(ctx, args) {
    const live = await ctx.aliases.target(args.alias);
    return live === args.to_collection ? null : `alias ${args.alias} points at ${live ?? 'nothing'}, not ${args.to_collection}`;
  },
  undoBlocker: (ctx, args, prior) => switchBackBlocker(ctx, args.alias, args.to_collection, Prior.parse(prior).from_collection),
  async undo(ctx, args, prior) {
    const { from_collection: from } = Prior.parse(prior);
    const blocked = await switchBackBlocker(ctx, args.alias, args.to_collection, from);
    if (blocked !== null) throw new Error(blocked);
    if ((await ctx.aliases.target(args.alias)) === args.to_collection) await ctx.aliases.swap(args.alias, args.to_collection, from);
    await recordTarget(ctx, args.alias, from);
  },
  describeUndo: (args, prior) => [
    `alias ${args.alias} is switched forward again from ${args.to_collection} to ${String(prior.from_collection ?? args.from_collection)} (one atomic request); no collection is deleted`,
  ],
});
