import { z } from 'zod';
import { PreconditionError } from './repair-tool.ts';
import { defineTool, pinnedBackVersion, scopedKnowledgeIds, repairCallOptions, versionBeforePin } from './tool-helpers.ts';

/** Pins the parser to the baseline's build and re-parses the affected knowledge with it (`POST /repair/parser`). */
export const reparseDocuments = defineTool({
  name: 'reparse_documents',
  readme: {
    ragHook: "`POST /repair/parser {version, knowledge_ids}` (new: pin the baseline's parser build, re-parse)",
    undo: 'pin the previous build + snapshot restore',
  },
  version: '1',
  intent: 'reparse_documents',
  description: "Pin the document parser to the baseline's build and re-parse the affected knowledge",
  input: z.object({ parser_version: z.string().min(1), knowledge_ids: z.array(z.string().min(1)).min(1).max(10_000) }).strict(),
  touchesQdrant: true,
  reversible: true,
  availability: 'repair_hooks',
  async plan(ctx, params) {
    const knowledge_ids = scopedKnowledgeIds(ctx);
    const parser_version = params.parser_version ?? (await ctx.baseline.capabilities()).active_versions?.parser;
    if (parser_version === undefined) throw new PreconditionError('the baseline does not say which parser build it runs');
    return { parser_version, knowledge_ids };
  },
  async preconditions(ctx, args) {
    const caps = await ctx.online.capabilities();
    if (!caps.repair_hooks.includes('parser')) throw new PreconditionError('the RAG serves no parser hook');
    if (caps.parser_versions && !caps.parser_versions.includes(args.parser_version))
      throw new PreconditionError(`the RAG has no parser build ${args.parser_version}`);
    versionBeforePin(caps, 'parser');
  },
  capture: async (ctx) => ({ parser_version: versionBeforePin(await ctx.online.capabilities(), 'parser') }),
  execute: (ctx, args) =>
    ctx.online.repairParser({ version: args.parser_version, knowledge_ids: args.knowledge_ids }, repairCallOptions(ctx)),
  async verify(ctx, args) {
    const active = (await ctx.online.capabilities()).active_versions?.parser;
    return active === undefined || active === args.parser_version ? null : `parser is ${active}, not ${args.parser_version}`;
  },
  async undo(ctx, _args, prior) {
    // Only the pin: the re-parsed chunks come back with the snapshot.
    await ctx.online.repairParser({ version: pinnedBackVersion(prior, 'parser_version', 'parser') }, { timeoutMs: ctx.timeoutMs });
  },
  describeUndo: (args, prior) => [
    `parser pinned back from ${args.parser_version} to ${String(prior.parser_version)}`,
    `the ${args.knowledge_ids.length} re-parsed knowledge ids come back from the snapshot`,
  ],
});
