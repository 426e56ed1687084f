import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { PreconditionError } from './repair-tool.ts';
import { defineTool, switchAliasBackIfMoved } from './tool-helpers.ts';

/**
 * For a RAG without repair hooks and without an ingestion webhook, when the repair needs the RAG's
 * own ingestion: the effector cannot run it, so it recommends it to a person. Always behind a human
 * grant, in every mode, whose request names the exact step. Approving means "I am about to run it":
 * the executor then takes the way back first (a snapshot of the collection, the alias target
 * recorded), waits `repair.operator_wait_seconds` for the step, and the probes verify it. Not healed:
 * the snapshot is restored (and the alias switched back if the step moved it), the plan escalates.
 */
export const recommendOperatorStep = defineTool({
  name: 'recommend_operator_step',
  readme: {
    ragHook: 'none: a grant request (every mode) naming the exact operator step; approved, it waits `operator_wait_seconds` for the step',
    undo: 'snapshot restore + the alias switched back if the step moved it',
  },
  version: '1',
  intent: 'refresh_knowledge_source',
  description: 'Recommend the exact re-ingestion step to an operator (the RAG serves no repair hook and declares no ingestion webhook)',
  input: z
    .object({
      operator_step: z.string().min(1),
      knowledge_ids: z.array(z.string().min(1)).max(10_000),
      wait_seconds: z.number().int().min(0).max(3600),
    })
    .strict(),
  // The operator's step writes to the collection: the executor snapshots it before the wait begins.
  touchesQdrant: true,
  reversible: true,
  availability: 'without_repair_hooks',
  async plan(ctx) {
    if (ctx.ragRepair?.ingestion)
      throw new PreconditionError('the adapter declares an ingestion webhook: call_ingestion_webhook re-ingests');
    const ids = [...new Set(ctx.report.affected_knowledge_ids)];
    const what = ctx.ragRepair?.operatorStep ?? "re-ingest with the RAG's own ingestion (re-parse / refresh from its source)";
    const scope =
      ids.length > 0
        ? `the knowledge ${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ` and ${ids.length - 20} more` : ''}`
        : 'all knowledge';
    return {
      operator_step: `${what} for ${scope} of collection ${ctx.collection} (cause: ${ctx.report.root_cause}, incident ${ctx.report.incident_id})`,
      knowledge_ids: ids,
      wait_seconds: Math.round((ctx.ragRepair?.operatorWaitMs ?? 0) / 1000),
    };
  },
  grantReason: async (_ctx, args) =>
    `operator step: ${args.operator_step}. Approve when you are about to run it: the effector first snapshots the collection ` +
    `and records its alias target (the way back), then waits ${args.wait_seconds} s for the step and verifies the affected probes; ` +
    'not healed, it restores the snapshot and escalates. Deny if it will not be run.',
  preconditions: async () => {},
  capture: async (ctx) => ({ alias_target: await ctx.aliases.target(ctx.collection) }),
  async execute(ctx, args) {
    // The person runs the step now; the probes are measured after the wait (abortable by the execute timeout).
    if (args.wait_seconds > 0) await sleep(args.wait_seconds * 1000, undefined, ctx.signal ? { signal: ctx.signal } : {});
    return { detail: { operator_step: args.operator_step, waited_seconds: args.wait_seconds } };
  },
  verify: async () => null,
  // The collection comes back from the pre-action snapshot; the alias, if the step moved it, here.
  undo: (ctx, _args, prior) => switchAliasBackIfMoved(ctx, prior),
  describeUndo: (_args, prior) => [
    "the collection as it was before the operator's step comes back from the pre-action snapshot",
    ...(typeof prior.alias_target === 'string' ? [`the alias is switched back to ${prior.alias_target} if the step moved it`] : []),
    'what the step changed outside Qdrant is not undone',
  ],
});
