/**
 * What several repair tools share: the typed declaration of a tool, the options of a repair-hook
 * call, the report's scope (knowledge ids and the sources owning them), and the build a pin replaces. The interface itself is
 * in repair-tool.ts, the registry in catalogue.ts.
 */
import type { CallOptions } from '@rag-immune/rag-contract';
import { z } from 'zod';
import { PreconditionError, UndoImpossible, type PriorState, type RepairTool, type ToolContext } from './repair-tool.ts';

/** Declares a tool: types its arguments against the interface (an identity at run time). */
export function defineTool<A extends Record<string, unknown>>(tool: RepairTool<A>): RepairTool<A> {
  return tool;
}

/**
 * The options of a repair-hook call: the context's timeout and, during execute, its abort signal and
 * the action's idempotency key (header `Idempotency-Key`: the RAG can tell a retry of the same job).
 */
export function repairCallOptions(ctx: ToolContext): CallOptions {
  return {
    timeoutMs: ctx.timeoutMs,
    ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
    ...(ctx.idempotencyKey !== undefined ? { headers: { 'idempotency-key': ctx.idempotencyKey } } : {}),
  };
}

/** The knowledge ids the report scopes a repair to; a tool needing a scope refuses an empty one. */
export function scopedKnowledgeIds(ctx: ToolContext): string[] {
  const ids = [...new Set(ctx.report.affected_knowledge_ids)];
  if (ids.length === 0) throw new PreconditionError('the report names no affected knowledge ids to scope the repair to');
  return ids;
}

/** Knowledge sources owning the report's knowledge ids, by the configured prefixes. */
export function sourcesOf(ctx: ToolContext): string[] {
  const sources = new Set<string>();
  for (const id of ctx.report.affected_knowledge_ids) {
    for (const [prefix, source] of Object.entries(ctx.sourceByPrefix)) if (id.startsWith(prefix)) sources.add(source);
  }
  return [...sources].sort();
}

export type PinnedComponent = 'generator' | 'reranker' | 'parser';

/**
 * The build a pin replaces, as the RAG reports it (`active_versions` is optional in the contract).
 * Without it the pin could never be undone: the tool is refused before it runs (preconditions), and
 * capture refuses too, should the RAG stop saying between the two.
 */
export function versionBeforePin(
  capabilities: { active_versions?: Partial<Record<PinnedComponent, string>> | undefined },
  component: PinnedComponent,
): string {
  const active = capabilities.active_versions?.[component];
  if (typeof active !== 'string' || active === '')
    throw new PreconditionError(`the RAG does not say which ${component} build it runs now: a pin could not be undone`);
  return active;
}

/** The build to pin back to on undo; none recorded fails the undo for good (a person looks) rather than do nothing. */
export function pinnedBackVersion(prior: PriorState, field: string, component: PinnedComponent): string {
  const version = prior[field];
  if (typeof version !== 'string' || version === '')
    throw new UndoImpossible(
      `no ${component} build was recorded before the pin (${field}: ${JSON.stringify(version ?? null)}): it cannot be pinned back`,
    );
  return version;
}

/** The alias target a tool that lets the RAG's own ingestion write records before it runs (`prior.alias_target`). */
export const AliasTargetPrior = z.object({ alias_target: z.string().min(1).nullable() });

/** Puts the RAG's alias back on the collection it served before the repair, when the repair moved it. */
export async function switchAliasBackIfMoved(ctx: ToolContext, prior: PriorState): Promise<void> {
  const before = AliasTargetPrior.parse(prior).alias_target;
  if (before === null) return;
  const now = await ctx.aliases.target(ctx.collection);
  if (now !== null && now !== before) await ctx.aliases.swap(ctx.collection, now, before);
}
