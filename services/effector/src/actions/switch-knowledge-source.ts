import { z } from 'zod';
import { PreconditionError, defineTool, sourcesOf, type ToolContext } from './repair-tool.ts';

const input = z.object({ sources: z.array(z.string().min(1)).min(1).max(20) }).strict();

async function checkSources(ctx: ToolContext, sources: string[]): Promise<void> {
  const caps = await ctx.online.capabilities();
  if (!caps.repair_hooks.includes('knowledge_source')) throw new PreconditionError('the RAG serves no knowledge_source hook');
  const unknown = sources.filter((s) => caps.knowledge_sources !== undefined && !caps.knowledge_sources.includes(s));
  if (unknown.length > 0) throw new PreconditionError(`the RAG has no knowledge source ${unknown.join(', ')}`);
}

function planSources(ctx: ToolContext, params: Readonly<Record<string, string>>): { sources: string[] } {
  const sources = params.source !== undefined ? [params.source] : sourcesOf(ctx);
  if (sources.length === 0) throw new PreconditionError('no knowledge source owns the affected knowledge ids');
  return { sources };
}

/** Switches the failing source(s) to their backup feed and re-syncs the index (`POST /repair/knowledge-source`). */
export const switchToBackupSource = defineTool({
  name: 'switch_to_backup_source',
  version: '1',
  intent: 'switch_backup_source',
  description: 'Switch the knowledge source owning the affected knowledge to its backup feed, then re-sync',
  input,
  touchesQdrant: true,
  reversible: true,
  plan: async (ctx, params) => planSources(ctx, params),
  preconditions: (ctx, args) => checkSources(ctx, args.sources),
  capture: async () => ({}),
  async execute(ctx, args) {
    const results = [];
    for (const source of args.sources)
      results.push(await ctx.online.knowledgeSource({ action: 'switch_to_backup', source }, { timeoutMs: ctx.timeoutMs }));
    return { detail: { results } };
  },
  verify: async () => null,
  async undo(ctx, args) {
    for (const source of args.sources)
      await ctx.online.knowledgeSource({ action: 'switch_to_primary', source }, { timeoutMs: ctx.timeoutMs });
  },
  describeUndo: (args) => [`${args.sources.join(', ')} switched back to the primary feed`, 'the index comes back from the snapshot'],
});

/**
 * Refreshes the source(s) from their feed now. Irreversible: the RAG's knowledge clock moves forward
 * and no hook moves it back (the index itself comes back from the snapshot), so it needs a grant.
 */
export const refreshKnowledgeSource = defineTool({
  name: 'refresh_knowledge_source',
  version: '1',
  intent: 'refresh_knowledge_source',
  description: 'Refresh the knowledge source owning the affected knowledge from its feed now',
  input,
  touchesQdrant: true,
  reversible: false,
  plan: async (ctx, params) => planSources(ctx, params),
  preconditions: (ctx, args) => checkSources(ctx, args.sources),
  capture: async () => ({}),
  async execute(ctx, args) {
    const results = [];
    for (const source of args.sources)
      results.push(await ctx.online.knowledgeSource({ action: 'refresh', source }, { timeoutMs: ctx.timeoutMs }));
    return { detail: { results } };
  },
  verify: async () => null,
  undo: async () => {},
  describeUndo: () => ["the index comes back from the snapshot; the RAG's knowledge clock stays advanced (irreversible)"],
});
