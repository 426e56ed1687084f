/**
 * What the tools that switch the RAG's alias without its repair hooks share: the live target (the
 * alias must exist: a rebuilt or earlier collection is reached only through it), the undo's blocker
 * (the way back must still exist and the alias must still be this repair's), and the record of each
 * switch in the alias history.
 */
import { PreconditionError, type ToolContext } from './repair-tool.ts';

export async function liveTarget(ctx: ToolContext, alias: string): Promise<string> {
  const live = await ctx.aliases.target(alias);
  if (live === null)
    throw new PreconditionError(`${alias} is not a Qdrant alias: the RAG must read its collection through an alias to be switched`);
  return live;
}

/**
 * Why switching `alias` back from `switchedTo` to `from` cannot be done now: a later change moved the
 * alias on (it owns it), or `from` is gone. Null when it can (or when it was never switched).
 */
export async function switchBackBlocker(ctx: ToolContext, alias: string, switchedTo: string, from: string): Promise<string | null> {
  const live = await ctx.aliases.target(alias);
  if (live === from) return null;
  if (live !== switchedTo)
    return `alias ${alias} now points at ${live ?? 'nothing'}, not this repair's ${switchedTo}: a later change owns it (roll that back first)`;
  if ((await ctx.aliases.describe(from)) === null)
    return `${from}, the collection before this repair, no longer exists: the alias cannot be switched back`;
  return null;
}

/** Records where the alias points now (best effort: the action's own record keeps its way back). */
export async function recordTarget(ctx: ToolContext, alias: string, collection: string): Promise<void> {
  await ctx.aliasHistory?.observe(alias, collection).catch(() => undefined);
}
