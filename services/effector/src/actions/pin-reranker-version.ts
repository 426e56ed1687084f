import { z } from 'zod';
import { PreconditionError } from './repair-tool.ts';
import { defineTool, pinnedBackVersion, repairCallOptions, versionBeforePin } from './tool-helpers.ts';

/** Pins the reranker to the version the baseline runs (`POST /repair/reranker/pin`). */
export const pinRerankerVersion = defineTool({
  name: 'pin_reranker_version',
  readme: { ragHook: "`POST /repair/reranker/pin` (the baseline's version)", undo: 'pin the previous version' },
  version: '1',
  intent: 'rollback_reranker',
  description: "Pin the reranker to the baseline's (known-good) weights version",
  input: z.object({ version: z.string().min(1) }).strict(),
  touchesQdrant: false,
  reversible: true,
  availability: 'repair_hooks',
  async plan(ctx, params) {
    const version = params.version ?? (await ctx.baseline.capabilities()).active_versions?.reranker;
    if (version === undefined) throw new PreconditionError('the baseline does not say which reranker version it runs');
    return { version };
  },
  async preconditions(ctx, args) {
    const caps = await ctx.online.capabilities();
    if (!caps.repair_hooks.includes('reranker_pin')) throw new PreconditionError('the RAG serves no reranker_pin hook');
    if (caps.reranker_versions && !caps.reranker_versions.includes(args.version))
      throw new PreconditionError(`the RAG has no reranker version ${args.version}`);
    versionBeforePin(caps, 'reranker');
  },
  capture: async (ctx) => ({ version: versionBeforePin(await ctx.online.capabilities(), 'reranker') }),
  execute: (ctx, args) => ctx.online.pinReranker({ version: args.version }, repairCallOptions(ctx)),
  async verify(ctx, args) {
    const active = (await ctx.online.capabilities()).active_versions?.reranker;
    return active === undefined || active === args.version ? null : `reranker is ${active}, not ${args.version}`;
  },
  async undo(ctx, _args, prior) {
    await ctx.online.pinReranker({ version: pinnedBackVersion(prior, 'version', 'reranker') }, { timeoutMs: ctx.timeoutMs });
  },
  describeUndo: (args, prior) => [`reranker pinned back from ${args.version} to ${String(prior.version)}`],
});
