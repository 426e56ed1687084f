import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RootCauseReport } from '@rag-immune/contracts';
import { recommendGenerationRollback } from '../../../src/actions/recommend-generation-rollback.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { CONTRACT_HOOKS, toolAvailable, type RagRepairAccess } from '../../../src/actions/rag-repair-access.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

const STEP = "redeploy the route with its previous RAG_PROMPT (the chain's prompt template)";
const HOOKLESS: RagRepairAccess = {
  hooks: 'none',
  rebuildFrom: 'kb-baseline',
  collectionMode: 'by_name',
  ingestion: null,
  operatorStep: null,
  operatorWaitMs: 90_000,
  generationStep: STEP,
};

/** What the generator detector reports for a prompt changed on the same context (services/identifier). */
const PROMPT_CHANGED: Partial<RootCauseReport> = {
  incident_id: 'inc-prompt',
  root_cause: 'generator_inconsistency',
  affected_component: 'generator',
  affected_knowledge_ids: [],
  window_start: Date.parse('2026-12-06T18:00:00Z'),
  affected_probes: [
    { probe_id: 'q-curl', probe_version: 1, query: 'What is the latest version of curl?' },
    { probe_id: 'q-acl', probe_version: 1, query: 'What is the latest version of acl?' },
  ],
  claims: [
    {
      claim_id: 'c1',
      kind: 'retrieved_set_change',
      subject: 'q-curl',
      metric: 'context_identical',
      observed: 1,
      baseline: 1,
      evidence_ids: ['ev-1'],
    },
    {
      claim_id: 'c2',
      kind: 'answer_fact_mismatch',
      subject: 'q-curl',
      metric: 'answer_equal_to_baseline',
      observed: 0,
      baseline: 1,
      evidence_ids: ['ev-2'],
    },
  ],
  index_diff: {
    online_collection: 'kb',
    baseline_collection: 'kb-baseline',
    online_target: null,
    baseline_target: null,
    online_target_before: null,
    knowledge_ids: ['apt/curl'],
    online_points: 10,
    baseline_points: 10,
    missing: 0,
    added_unexpected: 0,
    added_after_pin: 0,
    relabelled: 0,
    payload_changed: 0,
    text_changed: 0,
    vectors_moved: 0,
    min_vector_cosine: 1,
    explained_by: [],
    unexplained: [],
    examples: [],
    evidence_id: 'ev-3',
  },
};

test('recommend_generation_rollback names the adapter’s generation step, the cause and what changed, and asks a person in every mode', async () => {
  const { ctx, rag } = fakeContext({ report: PROMPT_CHANGED, ctx: { ragRepair: HOOKLESS } });
  const args = await recommendGenerationRollback.plan(ctx, {});
  assert.equal(
    args.generation_step,
    `${STEP} (cause: generator_inconsistency since 2026-12-06T18:00:00.000Z, incident inc-prompt: ` +
      'the answers of 1 probe (q-curl) changed, with the same retrieved context and an unchanged index)',
  );
  assert.equal(args.wait_seconds, 90);
  assert.equal(recommendGenerationRollback.input.safeParse(args).success, true);
  const reason = await recommendGenerationRollback.grantReason!(ctx, args);
  assert.ok(reason !== null, 'always behind a human grant, whatever the mode');
  assert.ok(reason.startsWith(`generation step: ${STEP} (cause: generator_inconsistency`), reason);
  assert.match(reason, /the effector changes nothing itself \(no snapshot: it writes nothing\), waits 90 s for the step/);
  assert.equal(recommendGenerationRollback.intent, 'enable_answer_validation_fallback');
  assert.deepEqual(rag.calls, [], 'planning calls nothing on the RAG');
});

test('without a declared generation_step the recommendation is generic, naming the cause and what the evidence shows changed', async () => {
  const { ctx } = fakeContext({
    report: {
      ...PROMPT_CHANGED,
      index_diff: null,
      claims: [
        ...PROMPT_CHANGED.claims!,
        {
          claim_id: 'c3',
          kind: 'component_version_change',
          subject: 'generator:gemma-few-shot-1->gemma-chatty-2',
          metric: 'generator_version_changed',
          observed: 1,
          baseline: 0,
          evidence_ids: ['ev-4'],
        },
      ],
    },
    ctx: { ragRepair: { ...HOOKLESS, generationStep: null } },
  });
  const args = await recommendGenerationRollback.plan(ctx, {});
  assert.match(args.generation_step, /^put the RAG's generation setting \(its prompt template, its chat model and their parameters\) back/);
  assert.match(args.generation_step, /cause: generator_inconsistency since 2026-12-06T18:00:00\.000Z, incident inc-prompt/);
  assert.match(
    args.generation_step,
    /the answers of 1 probe \(q-curl\) changed, with the same retrieved context and the index not compared/,
  );
  assert.match(args.generation_step, /the generator build changed \(gemma-few-shot-1->gemma-chatty-2\)\)$/);
  // An adapter written before the key (no generationStep at all) reads the same.
  const { generationStep: _omitted, ...older } = HOOKLESS;
  const before = fakeContext({ report: PROMPT_CHANGED, ctx: { ragRepair: older } });
  assert.match((await recommendGenerationRollback.plan(before.ctx, {})).generation_step, /^put the RAG's generation setting/);
});

test('recommend_generation_rollback is refused on a RAG with repair hooks (the generator pin is its repair)', async () => {
  assert.equal(toolAvailable(recommendGenerationRollback, CONTRACT_HOOKS), false);
  assert.equal(toolAvailable(recommendGenerationRollback, HOOKLESS), true);
  for (const ragRepair of [undefined, CONTRACT_HOOKS]) {
    const { ctx } = fakeContext({ report: PROMPT_CHANGED, ctx: ragRepair === undefined ? {} : { ragRepair } });
    await assert.rejects(recommendGenerationRollback.plan(ctx, {}), PreconditionError);
  }
});

test('it changes nothing: no snapshot, no RAG call, an abortable wait, an undo that puts nothing back and says so', async () => {
  assert.equal(recommendGenerationRollback.touchesQdrant, false, 'nothing written: no snapshot is its way back');
  const { ctx, rag, aliases } = fakeContext({ report: PROMPT_CHANGED, ctx: { ragRepair: HOOKLESS } });
  const args = { ...(await recommendGenerationRollback.plan(ctx, {})), wait_seconds: 0 };
  const prior = await recommendGenerationRollback.capture(ctx, args);
  assert.deepEqual(prior, {});
  assert.deepEqual(await recommendGenerationRollback.execute(ctx, args), {
    detail: { generation_step: args.generation_step, waited_seconds: 0 },
  });
  assert.equal(await recommendGenerationRollback.verify(ctx, args), null, 'the probes decide');
  await recommendGenerationRollback.undo(ctx, args, prior);
  assert.deepEqual(rag.calls, [], 'no call to the RAG');
  assert.deepEqual(aliases.log, [], 'no alias touched');
  assert.deepEqual(recommendGenerationRollback.describeUndo(args, prior), [
    "the effector changed nothing; the operator's redeploy is undone by redeploying the previous setting",
  ]);

  const controller = new AbortController();
  const waiting = recommendGenerationRollback.execute({ ...ctx, signal: controller.signal }, { ...args, wait_seconds: 60 });
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(waiting, /aborted/i);
});
