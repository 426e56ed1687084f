import { z } from 'zod';
import { PreconditionError, type ToolContext } from './repair-tool.ts';
import { defineTool } from './tool-helpers.ts';

/**
 * For a RAG without repair hooks and without an ingestion webhook, when the repair needs the RAG's
 * own ingestion: the effector cannot do it, so it recommends it. Always behind a human grant whose
 * request names the exact operator step, the knowledge and the way back; the person approves once
 * the step is done (the effector then measures the probes: healed, or on to escalation) or denies.
 * It changes nothing itself, so it needs no snapshot and its undo is empty.
 */
export const recommendOperatorStep = defineTool({
  name: 'recommend_operator_step',
  version: '1',
  intent: 'refresh_knowledge_source',
  description: 'Recommend the exact re-ingestion step to an operator (the RAG serves no repair hook and declares no ingestion webhook)',
  input: z
    .object({
      operator_step: z.string().min(1),
      knowledge_ids: z.array(z.string().min(1)).max(10_000),
      way_back: z.string().min(1),
    })
    .strict(),
  touchesQdrant: false,
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
      way_back: await wayBack(ctx),
    };
  },
  grantReason: async (_ctx, args) =>
    `operator step: ${args.operator_step}. Run it, then approve this action so the effector verifies the affected probes (deny if it will not be run). Way back: ${args.way_back}`,
  preconditions: async () => {},
  capture: async () => ({}),
  execute: async (_ctx, args) => ({ detail: { operator_step: args.operator_step, done_by: 'operator (confirmed by the grant)' } }),
  verify: async () => null,
  undo: async () => {},
  describeUndo: (args) => [`nothing the effector changed; to take back the operator's step: ${args.way_back}`],
});

/** The way back from the operator's step, as the effector knows it now: the alias target and the newest snapshot. */
async function wayBack(ctx: ToolContext): Promise<string> {
  const parts: string[] = [];
  const target = await ctx.aliases.target(ctx.collection);
  if (target !== null)
    parts.push(`alias ${ctx.collection} points at ${target} now (switch it back there if the step builds a new collection)`);
  const newest = (await ctx.listSnapshots(ctx.collection))
    .filter((s) => s.status !== 'deleted')
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0];
  if (newest !== undefined) parts.push(`snapshot ${newest.snapshot_id} of ${newest.collection} taken ${newest.created_at}`);
  return parts.length > 0 ? parts.join('; ') : `none recorded: snapshot ${ctx.collection} before running the step`;
}
