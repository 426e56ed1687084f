import { z } from 'zod';
import { PreconditionError } from './repair-tool.ts';
import { defineTool, pinnedBackVersion, repairCallOptions, versionBeforePin } from './tool-helpers.ts';

/**
 * Pins the generator to the build the baseline runs (`POST /repair/generator/pin`). The contract has
 * no rollback_generator intent; this rides under enable_answer_validation_fallback (the generator-side repair).
 */
export const pinGeneratorVersion = defineTool({
  name: 'pin_generator_version',
  readme: { ragHook: "`POST /repair/generator/pin` (new: the baseline's build)", undo: 'pin the previous build' },
  version: '1',
  intent: 'enable_answer_validation_fallback',
  description: "Pin the generator to the baseline's (known-good) build",
  input: z.object({ version: z.string().min(1) }).strict(),
  touchesQdrant: false,
  reversible: true,
  availability: 'repair_hooks',
  async plan(ctx, params) {
    const version = params.version ?? (await ctx.baseline.capabilities()).active_versions?.generator;
    if (version === undefined) throw new PreconditionError('the baseline does not say which generator build it runs');
    return { version };
  },
  async preconditions(ctx, args) {
    const caps = await ctx.online.capabilities();
    if (!caps.repair_hooks.includes('generator_pin')) throw new PreconditionError('the RAG serves no generator_pin hook');
    if (caps.generator_versions && !caps.generator_versions.includes(args.version))
      throw new PreconditionError(`the RAG has no generator build ${args.version}`);
    versionBeforePin(caps, 'generator');
  },
  capture: async (ctx) => ({ version: versionBeforePin(await ctx.online.capabilities(), 'generator') }),
  execute: (ctx, args) => ctx.online.pinGenerator({ version: args.version }, repairCallOptions(ctx)),
  async verify(ctx, args) {
    const active = (await ctx.online.capabilities()).active_versions?.generator;
    return active === undefined || active === args.version ? null : `generator is ${active}, not ${args.version}`;
  },
  async undo(ctx, _args, prior) {
    await ctx.online.pinGenerator({ version: pinnedBackVersion(prior, 'version', 'generator') }, { timeoutMs: ctx.timeoutMs });
  },
  describeUndo: (args, prior) => [`generator pinned back from ${args.version} to ${String(prior.version)}`],
});
