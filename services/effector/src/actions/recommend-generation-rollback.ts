import { setTimeout as sleep } from 'node:timers/promises';
import type { RootCauseReport } from '@rag-immune/contracts';
import { z } from 'zod';
import { PreconditionError } from './repair-tool.ts';
import { defineTool } from './tool-helpers.ts';

/** The context-identical claim the generator detector makes when the generator got the baseline's context. */
const SAME_CONTEXT_METRIC = 'context_identical';
/** The claim saying a probe's answer is no longer the baseline's (observed 0). */
const ANSWER_EQUAL_METRIC = 'answer_equal_to_baseline';

/**
 * What the report's evidence says changed, in its own words: the probes whose answers differ from the
 * baseline's, whether their retrieved context was the baseline's, whether the index diff shows a
 * change, the generator build when its trace names one. Nothing the evidence does not carry is said.
 */
export function generationChange(report: RootCauseReport): string {
  const differing = [
    ...new Set(
      report.claims
        .filter((c) => c.kind === 'answer_fact_mismatch' && c.metric === ANSWER_EQUAL_METRIC && c.observed === 0)
        .map((c) => c.subject),
    ),
  ];
  const probes = differing.length > 0 ? differing : report.affected_probes.map((p) => p.probe_id);
  const answers =
    probes.length > 0
      ? `the answers of ${probes.length} probe${probes.length === 1 ? '' : 's'} (${probes.slice(0, 5).join(', ')}${probes.length > 5 ? ', …' : ''})`
      : 'the answers';
  const sameContext = report.claims.some((c) => c.kind === 'retrieved_set_change' && c.metric === SAME_CONTEXT_METRIC && c.observed === 1);
  const diff = report.index_diff;
  const indexChanges =
    diff === null
      ? null
      : diff.missing +
        diff.added_unexpected +
        diff.relabelled +
        diff.payload_changed +
        diff.text_changed +
        diff.vectors_moved +
        diff.unexplained.length;
  const index = indexChanges === null ? 'the index not compared' : indexChanges === 0 ? 'an unchanged index' : 'the index changed too';
  const build = report.claims.find((c) => c.kind === 'component_version_change' && c.subject.startsWith('generator:'));
  return (
    `${answers} changed, ${sameContext ? 'with the same retrieved context' : 'the retrieved context not shown identical'} and ${index}` +
    (build !== undefined ? `; the generator build changed (${build.subject.slice('generator:'.length)})` : '')
  );
}

/**
 * For a RAG without repair hooks whose generation setting changed (its prompt, its chat model: a
 * product's users change these in its UI or in the deployment's settings, not through an API the
 * effector could call): the effector cannot pin the generator, so it recommends putting the setting
 * back to a person. Always behind a human grant, in every mode, whose request names the exact step
 * (the adapter's `repair.generation_step`, else a generic one naming the cause and what changed).
 * Approving means "I am about to run it": the executor waits `repair.operator_wait_seconds` for the
 * step and the probes verify it; not healed, the plan escalates.
 *
 * The safety rules hold because the tool itself changes nothing: it calls no RAG hook and writes no
 * Qdrant point, so there is no snapshot to take (touchesQdrant: false) and nothing for its undo to put
 * back. It is declared reversible for that reason only (the effector's own change is none), not as a
 * way past the grant: the grant is asked by `grantReason`, whatever the mode. The operator's redeploy
 * is theirs to undo, by redeploying the previous setting: describeUndo says so.
 */
export const recommendGenerationRollback = defineTool({
  name: 'recommend_generation_rollback',
  readme: {
    ragHook:
      "none: a grant request (every mode) naming the exact step that puts the RAG's prompt / chat model back (`repair.generation_step`); approved, it waits `operator_wait_seconds` for the step",
    undo: "nothing: the effector changed nothing (the operator's redeploy is undone by redeploying the previous setting)",
  },
  version: '1',
  // The generator-side intent of the contract (it has no rollback_generator), as pin_generator_version.
  intent: 'enable_answer_validation_fallback',
  description: "Recommend the exact step that puts the RAG's generation setting back to an operator (the RAG serves no repair hook)",
  input: z
    .object({
      generation_step: z.string().min(1),
      wait_seconds: z.number().int().min(0).max(3600),
    })
    .strict(),
  // A recommendation executes nothing: no Qdrant write, so no snapshot is needed as its way back.
  touchesQdrant: false,
  // Nothing the effector does needs undoing (see above); the human grant is asked by grantReason in every mode.
  reversible: true,
  availability: 'without_repair_hooks',
  async plan(ctx) {
    // The plan keeps only the tools this RAG has; refused here too, so no caller can aim it at a RAG with hooks.
    if (ctx.ragRepair?.hooks !== 'none')
      throw new PreconditionError('the RAG serves repair hooks: pin_generator_version puts its generator back');
    const what =
      ctx.ragRepair.generationStep ??
      "put the RAG's generation setting (its prompt template, its chat model and their parameters) back as it was before the incident, and redeploy it";
    const since = new Date(ctx.report.window_start).toISOString();
    return {
      generation_step: `${what} (cause: ${ctx.report.root_cause} since ${since}, incident ${ctx.report.incident_id}: ${generationChange(ctx.report)})`,
      wait_seconds: Math.round(ctx.ragRepair.operatorWaitMs / 1000),
    };
  },
  grantReason: async (_ctx, args) =>
    `generation step: ${args.generation_step}. Approve when you are about to run it: the effector changes nothing itself ` +
    `(no snapshot: it writes nothing), waits ${args.wait_seconds} s for the step and verifies the affected probes; ` +
    'not healed, the plan escalates (your redeploy is undone by redeploying the previous setting). Deny if it will not be run.',
  preconditions: async () => {},
  // Nothing to record: the effector changes nothing the undo would put back.
  capture: async () => ({}),
  async execute(ctx, args) {
    // The person runs the step now; the probes are measured after the wait (abortable by the execute timeout).
    if (args.wait_seconds > 0) await sleep(args.wait_seconds * 1000, undefined, ctx.signal ? { signal: ctx.signal } : {});
    return { detail: { generation_step: args.generation_step, waited_seconds: args.wait_seconds } };
  },
  verify: async () => null,
  undo: async () => {},
  describeUndo: () => ["the effector changed nothing; the operator's redeploy is undone by redeploying the previous setting"],
});
