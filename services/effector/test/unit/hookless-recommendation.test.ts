/**
 * Issue 42: for a RAG without repair hooks and without an ingestion webhook, the effector's loop
 * recommends the operator step instead of repairing: even in auto mode it waits for a human grant
 * whose reason names the exact step; the `planned` RepairAction carries it; once approved the
 * collection is snapshotted first, the operator's step runs during the wait, and the probes verify
 * it; a step that did not heal is undone from the snapshot and the plan escalates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recommendOperatorStep } from '../../src/actions/recommend-operator-step.ts';
import { recommendGenerationRollback } from '../../src/actions/recommend-generation-rollback.ts';
import type { RagRepairAccess } from '../../src/actions/rag-repair-access.ts';
import type { CollectionAliases } from '../../src/snapshots/collection-aliases.ts';
import { FakeAliases } from './support/fake-rag-client.ts';
import { report, startLoop } from './support/loop-fixture.ts';

const HOOKLESS: RagRepairAccess = {
  hooks: 'none',
  rebuildFrom: null,
  ingestion: null,
  operatorStep: 'run the Flowise Document Store "kb" upsert',
  operatorWaitMs: 1_000,
};

/** The RAG's collection `kb` as a plain collection (no alias: nothing for the undo to switch back). */
const plainCollection = () => new FakeAliases() as unknown as CollectionAliases;

/** The operator: runs the step (the RAG heals) once the repair has started, i.e. after its snapshot. */
async function operatorRunsStepWhenStarted(loop: Awaited<ReturnType<typeof startLoop>>, incident: string, heals: boolean): Promise<void> {
  for (let i = 0; i < 500 && !loop.events.some((e) => e.incident_id === incident && e.status === 'started'); i += 1)
    await new Promise((resolve) => setTimeout(resolve, 5));
  loop.rag.points += 1; // what the re-ingestion writes
  loop.rag.healthy = heals;
}

test('auto mode: the recommendation waits for a grant naming the step; approved once done, the probes verify it', async () => {
  const loop = await startLoop({
    tools: [],
    realTools: [recommendOperatorStep],
    mode: 'auto',
    ragRepair: HOOKLESS,
    aliases: plainCollection(),
  });
  const r = report('inc-rec-1', { affected_knowledge_ids: ['apt/curl'] });
  assert.equal(await loop.effector.process(r), 'awaiting_grant');
  const planned = loop.events.find((e) => e.status === 'planned' && e.tool === 'recommend_operator_step');
  assert.match(
    planned?.arguments.operator_step ?? '',
    /^run the Flowise Document Store "kb" upsert for the knowledge apt\/curl of collection kb/,
  );
  const [pending] = await loop.deps.grants.list({ status: 'pending' });
  assert.equal(pending?.tool, 'recommend_operator_step');
  assert.match(
    pending?.reason ?? '',
    /^operator step: run the Flowise Document Store "kb" upsert .*\. Approve when you are about to run it: the effector first snapshots the collection/,
  );

  const pointsBefore = loop.rag.points;
  await loop.effector.decideGrant(pending!.key, 'approved', 'alice', 'running the upsert now');
  await operatorRunsStepWhenStarted(loop, 'inc-rec-1', true);
  await loop.effector.idle();
  assert.equal(loop.archive.taken.size, 1, 'the way back was taken before the step');
  assert.notEqual(loop.rag.points, pointsBefore, 'the step is kept');
  assert.deepEqual(loop.lifecycle('inc-rec-1'), [
    'recommend_operator_step:planned',
    'recommend_operator_step:started',
    'recommend_operator_step:succeeded',
  ]);
});

test('a step that did not heal is not kept: the plan goes on to the escalation', async () => {
  const loop = await startLoop({
    tools: [],
    realTools: [recommendOperatorStep],
    mode: 'auto',
    ragRepair: HOOKLESS,
    aliases: plainCollection(),
  });
  const r = report('inc-rec-2', { affected_knowledge_ids: ['apt/curl'] });
  assert.equal(await loop.effector.process(r), 'awaiting_grant');
  const [pending] = await loop.deps.grants.list({ status: 'pending' });
  const pointsBefore = loop.rag.points;
  await loop.effector.decideGrant(pending!.key, 'approved', 'alice', null);
  await operatorRunsStepWhenStarted(loop, 'inc-rec-2', false);
  await loop.effector.idle();
  assert.equal(loop.rag.points, pointsBefore, 'the snapshot taken before the step is restored');
  const steps = loop.lifecycle('inc-rec-2');
  assert.deepEqual(steps.slice(0, 2), ['recommend_operator_step:planned', 'recommend_operator_step:started']);
  assert.ok(steps.includes('page_on_call:escalated'), steps.join(', '));
});

test('a RAG with repair hooks never gets the recommendation', async () => {
  const loop = await startLoop({ tools: [], realTools: [recommendOperatorStep], mode: 'auto' });
  assert.equal(await loop.effector.process(report('inc-rec-3')), 'escalated');
  assert.ok(!loop.lifecycle('inc-rec-3').some((s) => s.startsWith('recommend_operator_step')));
});

const GENERATION_STEP = "redeploy the route with its previous RAG_PROMPT (the chain's prompt template)";

test('a changed prompt: the generation recommendation waits for a grant naming the step; approved, no snapshot is taken and the probes verify it', async () => {
  const loop = await startLoop({
    tools: [],
    realTools: [recommendGenerationRollback],
    mode: 'auto',
    ragRepair: { ...HOOKLESS, generationStep: GENERATION_STEP },
    aliases: plainCollection(),
  });
  // The fixture's one policy branch matches the default report's cause; the tool reads whichever the report names.
  const r = report('inc-gen-1');
  assert.equal(await loop.effector.process(r), 'awaiting_grant');
  const [pending] = await loop.deps.grants.list({ status: 'pending' });
  assert.equal(pending?.tool, 'recommend_generation_rollback');
  assert.ok(pending?.reason?.startsWith(`generation step: ${GENERATION_STEP} (cause: vector_index_corruption since `), pending?.reason);

  await loop.effector.decideGrant(pending!.key, 'approved', 'alice', 'redeploying now');
  await operatorRunsStepWhenStarted(loop, 'inc-gen-1', true);
  await loop.effector.idle();
  // The recommendation writes nothing: the executor takes no snapshot for it (touchesQdrant: false).
  assert.equal(loop.archive.taken.size, 0, 'no snapshot for a tool that changes nothing');
  assert.deepEqual(loop.lifecycle('inc-gen-1'), [
    'recommend_generation_rollback:planned',
    'recommend_generation_rollback:started',
    'recommend_generation_rollback:succeeded',
  ]);
});

test('a generation step that did not heal: its (empty) undo runs and the plan escalates', async () => {
  const loop = await startLoop({
    tools: [],
    realTools: [recommendGenerationRollback],
    mode: 'auto',
    ragRepair: HOOKLESS,
    aliases: plainCollection(),
  });
  const r = report('inc-gen-2');
  assert.equal(await loop.effector.process(r), 'awaiting_grant');
  const [pending] = await loop.deps.grants.list({ status: 'pending' });
  assert.match(pending?.reason ?? '', /^generation step: put the RAG's generation setting/);
  await loop.effector.decideGrant(pending!.key, 'approved', 'alice', null);
  await operatorRunsStepWhenStarted(loop, 'inc-gen-2', false);
  await loop.effector.idle();
  const steps = loop.lifecycle('inc-gen-2');
  assert.deepEqual(steps.slice(0, 2), ['recommend_generation_rollback:planned', 'recommend_generation_rollback:started']);
  assert.deepEqual(steps, [
    'recommend_generation_rollback:planned',
    'recommend_generation_rollback:started',
    'recommend_generation_rollback:failed',
    'recommend_generation_rollback:rolled_back',
    'page_on_call:planned',
    'page_on_call:escalated',
  ]);
  assert.equal(loop.archive.taken.size, 0, 'nothing to restore: no snapshot was taken');
});
