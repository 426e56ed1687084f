import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recommendOperatorStep } from '../../../src/actions/recommend-operator-step.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { fakeContext, snapshotRecord } from '../support/fake-rag-client.ts';

const HOUR = 3_600_000;

test('recommend_operator_step names the declared step, the knowledge, the collection and the way back', async () => {
  const { ctx, aliases, snapshots } = fakeContext({
    ctx: {
      ragRepair: {
        hooks: 'none',
        rebuildFrom: null,
        ingestion: null,
        operatorStep: 'run `flowise upsert` on flow 7f3c (Document Store "kb")',
      },
    },
  });
  aliases.aliases.set('kb', 'kb-v2');
  snapshots.push(snapshotRecord('old.snapshot', 5 * HOUR), snapshotRecord('new.snapshot', HOUR));
  const args = await recommendOperatorStep.plan(ctx, {});
  assert.match(
    args.operator_step,
    /^run `flowise upsert` on flow 7f3c \(Document Store "kb"\) for the knowledge changelog\/curl, apt\/curl of collection kb/,
  );
  assert.match(args.way_back, /alias kb points at kb-v2 now/);
  assert.match(args.way_back, /snapshot new\.snapshot of kb/);
  const reason = await recommendOperatorStep.grantReason!(ctx, args);
  assert.ok(reason !== null, 'always behind a human grant, whatever the mode');
  assert.match(reason, /^operator step: run `flowise upsert`/);
  assert.match(reason, /then approve this action so the effector verifies/);
});

test('recommend_operator_step steps aside when the adapter declares a webhook, and changes nothing itself', async () => {
  const withHook = fakeContext({
    ctx: {
      ragRepair: {
        hooks: 'none',
        rebuildFrom: null,
        operatorStep: null,
        ingestion: {
          settleMs: 0,
          describe: () => ({ method: 'POST', url: 'http://x', headers: [] }),
          call: async () => ({ status: 200, body: '' }),
        },
      },
    },
  });
  await assert.rejects(recommendOperatorStep.plan(withHook.ctx, {}), PreconditionError);

  const { ctx, rag, aliases, restored } = fakeContext({
    ctx: { ragRepair: { hooks: 'none', rebuildFrom: null, ingestion: null, operatorStep: null } },
  });
  const args = await recommendOperatorStep.plan(ctx, {});
  assert.match(args.operator_step, /re-ingest with the RAG's own ingestion/);
  assert.match(args.way_back, /none recorded: snapshot kb before running the step/);
  await recommendOperatorStep.execute(ctx, args);
  await recommendOperatorStep.undo(ctx, args, {});
  assert.deepEqual([rag.calls, aliases.log, restored], [[], [], []]);
  assert.equal(recommendOperatorStep.touchesQdrant, false);
});
