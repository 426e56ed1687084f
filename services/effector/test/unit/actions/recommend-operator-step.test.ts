import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recommendOperatorStep } from '../../../src/actions/recommend-operator-step.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import type { RagRepairAccess } from '../../../src/actions/rag-repair-access.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

const VECTORS = { size: 384, distance: 'Cosine' };
const HOOKLESS: RagRepairAccess = {
  hooks: 'none',
  rebuildFrom: null,
  ingestion: null,
  operatorStep: 'run `flowise upsert` on flow 7f3c (Document Store "kb")',
  operatorWaitMs: 120_000,
};

test('recommend_operator_step names the declared step, the knowledge, the collection, and asks a person in every mode', async () => {
  const { ctx } = fakeContext({ ctx: { ragRepair: HOOKLESS } });
  const args = await recommendOperatorStep.plan(ctx, {});
  assert.match(
    args.operator_step,
    /^run `flowise upsert` on flow 7f3c \(Document Store "kb"\) for the knowledge changelog\/curl, apt\/curl of collection kb \(cause: /,
  );
  assert.equal(args.wait_seconds, 120);
  const reason = await recommendOperatorStep.grantReason!(ctx, args);
  assert.ok(reason !== null, 'always behind a human grant, whatever the mode');
  assert.match(reason, /^operator step: run `flowise upsert`/);
  assert.match(reason, /first snapshots the collection and records its alias target \(the way back\), then waits 120 s/);
  assert.equal(recommendOperatorStep.touchesQdrant, true, 'the way back (a snapshot) is taken before the operator changes anything');

  const generic = fakeContext({ ctx: { ragRepair: { ...HOOKLESS, operatorStep: null } } });
  assert.match((await recommendOperatorStep.plan(generic.ctx, {})).operator_step, /^re-ingest with the RAG's own ingestion/);
});

test('recommend_operator_step steps aside when the adapter declares a webhook', async () => {
  const { ctx } = fakeContext({
    ctx: {
      ragRepair: {
        ...HOOKLESS,
        ingestion: {
          settleMs: 0,
          describe: () => ({ method: 'POST', url: 'http://x', headers: [] }),
          call: async () => ({ status: 200, body: '' }),
        },
      },
    },
  });
  await assert.rejects(recommendOperatorStep.plan(ctx, {}), PreconditionError);
});

test('recommend_operator_step waits for the step (abortably), calls nothing, and its undo switches back an alias the step moved', async () => {
  const { ctx, rag, aliases } = fakeContext({ ctx: { ragRepair: HOOKLESS } });
  aliases.aliases.set('kb', 'kb-v1');
  aliases.collections.set('kb-v1', { points: 100, vectors: VECTORS });
  const args = { ...(await recommendOperatorStep.plan(ctx, {})), wait_seconds: 0 };
  const prior = await recommendOperatorStep.capture(ctx, args);
  assert.deepEqual(prior, { alias_target: 'kb-v1' });
  assert.deepEqual(await recommendOperatorStep.execute(ctx, args), { detail: { operator_step: args.operator_step, waited_seconds: 0 } });
  aliases.aliases.set('kb', 'kb-v2'); // the operator's ingestion built kb-v2 and switched to it
  await recommendOperatorStep.undo(ctx, args, prior);
  assert.equal(aliases.aliases.get('kb'), 'kb-v1');
  assert.deepEqual(rag.calls, [], 'no call to the RAG');

  const controller = new AbortController();
  const waiting = recommendOperatorStep.execute({ ...ctx, signal: controller.signal }, { ...args, wait_seconds: 60 });
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(waiting, /aborted/i);
});
