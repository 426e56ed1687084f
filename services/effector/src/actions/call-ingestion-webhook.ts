import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { PreconditionError, type ToolContext } from './repair-tool.ts';
import { AliasTargetPrior, defineTool, scopedKnowledgeIds, sourcesOf, switchAliasBackIfMoved } from './tool-helpers.ts';

/**
 * For a RAG without repair hooks whose adapter declares its ingestion job as a webhook
 * (`repair.ingestion`): asks that job to re-ingest the affected knowledge (re-parse, refresh from
 * its source), waits `settle_seconds`, and leaves the verdict to the probes. The job writes to the
 * RAG's collection, so the executor snapshots it first (touchesQdrant) and the alias target is
 * recorded before the call: undo restores the snapshot and, should the job have switched the alias
 * to a new build, switches it back.
 */
export const callIngestionWebhook = defineTool({
  name: 'call_ingestion_webhook',
  readme: {
    ragHook: "none: the adapter's `repair.ingestion` (the user's ingestion job) with the affected knowledge",
    undo: 'snapshot restore + the alias switched back if the job moved it',
  },
  version: '1',
  intent: 'refresh_knowledge_source',
  description: "Call the RAG's own ingestion job (the adapter's webhook) to re-ingest the affected knowledge",
  input: z
    .object({
      knowledge_ids: z.array(z.string().min(1)).min(1).max(10_000),
      sources: z.array(z.string().min(1)).max(20),
    })
    .strict(),
  touchesQdrant: true,
  reversible: true,
  availability: 'without_repair_hooks',
  async plan(ctx) {
    webhookOf(ctx);
    return { knowledge_ids: scopedKnowledgeIds(ctx), sources: sourcesOf(ctx) };
  },
  preconditions: async (ctx) => void webhookOf(ctx),
  capture: async (ctx) => ({ alias_target: await ctx.aliases.target(ctx.collection) }),
  async execute(ctx, args) {
    const webhook = webhookOf(ctx);
    const answer = await webhook.call(
      {
        knowledge_ids: args.knowledge_ids,
        sources: args.sources,
        incident_id: ctx.report.incident_id,
        action_id: ctx.idempotencyKey ?? '',
        root_cause: ctx.report.root_cause,
      },
      {
        timeoutMs: ctx.timeoutMs,
        ...(ctx.signal !== undefined ? { signal: ctx.signal } : {}),
        ...(ctx.idempotencyKey !== undefined ? { idempotencyKey: ctx.idempotencyKey } : {}),
      },
    );
    // An asynchronous job answers before its result is served: verification must not measure the old index.
    if (webhook.settleMs > 0) await sleep(webhook.settleMs, undefined, ctx.signal ? { signal: ctx.signal } : {});
    return { detail: { webhook: webhook.describe().url, status: answer.status, answer: answer.body, settled_ms: webhook.settleMs } };
  },
  verify: async () => null,
  async undoBlocker(ctx, _args, prior) {
    const before = AliasTargetPrior.parse(prior).alias_target;
    if (before === null) return null;
    return (await ctx.aliases.describe(before)) === null
      ? `${before}, the collection the alias served before the job, no longer exists: the alias cannot be switched back`
      : null;
  },
  // The collection's points come back from the pre-action snapshot; the alias, if the job moved it, here.
  undo: (ctx, _args, prior) => switchAliasBackIfMoved(ctx, prior),
  describeUndo: (_args, prior) => [
    'the collection as it was before the ingestion job comes back from the pre-action snapshot',
    ...(typeof prior.alias_target === 'string' ? [`the alias is switched back to ${prior.alias_target} if the job moved it`] : []),
    'what the job changed outside Qdrant (its own stores) is not undone',
  ],
});

function webhookOf(ctx: ToolContext) {
  const webhook = ctx.ragRepair?.ingestion ?? null;
  if (webhook === null) throw new PreconditionError('the adapter declares no ingestion webhook (repair.ingestion)');
  return webhook;
}
