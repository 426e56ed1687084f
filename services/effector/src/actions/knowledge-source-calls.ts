import { z } from 'zod';
import { PreconditionError, type ToolContext } from './repair-tool.ts';
import { sourcesOf, repairCallOptions } from './tool-helpers.ts';

/** What the knowledge-source tools take: the sources to act on (from the report's affected knowledge). */
export const knowledgeSourcesInput = z.object({ sources: z.array(z.string().min(1)).min(1).max(20) }).strict();

/** Plans the sources: an explicit `source` parameter, else the owners of the affected knowledge ids. */
export function planSources(ctx: ToolContext, params: Readonly<Record<string, string>>): { sources: string[] } {
  const sources = params.source !== undefined ? [params.source] : sourcesOf(ctx);
  if (sources.length === 0) throw new PreconditionError('no knowledge source owns the affected knowledge ids');
  return { sources };
}

/** The RAG must serve the knowledge_source hook and know every planned source. */
export async function checkSources(ctx: ToolContext, sources: string[]): Promise<void> {
  const caps = await ctx.online.capabilities();
  if (!caps.repair_hooks.includes('knowledge_source')) throw new PreconditionError('the RAG serves no knowledge_source hook');
  const unknown = sources.filter((s) => caps.knowledge_sources !== undefined && !caps.knowledge_sources.includes(s));
  if (unknown.length > 0) throw new PreconditionError(`the RAG has no knowledge source ${unknown.join(', ')}`);
}

type SourceAction = 'switch_to_backup' | 'switch_to_primary' | 'refresh';

/** Calls `POST /repair/knowledge-source` for each source in turn; the RAG's answers are the detail. */
export async function onEachSource(ctx: ToolContext, sources: readonly string[], action: SourceAction): Promise<unknown[]> {
  const results = [];
  for (const source of sources) {
    // One job per source: each call's idempotency key names its source.
    const key = ctx.idempotencyKey === undefined ? {} : { idempotencyKey: `${ctx.idempotencyKey}:${source}` };
    results.push(await ctx.online.knowledgeSource({ action, source }, repairCallOptions({ ...ctx, ...key })));
  }
  return results;
}
