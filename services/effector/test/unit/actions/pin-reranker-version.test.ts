/**
 * The tool with a build to go back to (the case its undo is for); a RAG that does not say which build
 * it runs, and an undo with none recorded, are in test/unit/undo-way-back.test.ts with the other pins.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pinRerankerVersion } from '../../../src/actions/pin-reranker-version.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

test('pin-reranker-version plans the baseline’s reranker, or the version the policy names', async () => {
  const { ctx, baseline } = fakeContext();
  assert.deepEqual(await pinRerankerVersion.plan(ctx, {}), { version: 'v2.1' });
  assert.deepEqual(await pinRerankerVersion.plan(ctx, { version: 'pinned-by-policy' }), { version: 'pinned-by-policy' });
  baseline.capabilitiesNow.active_versions = {};
  await assert.rejects(pinRerankerVersion.plan(ctx, {}), PreconditionError);
});

test('pin-reranker-version refuses a RAG without the reranker_pin hook or without the planned version', async () => {
  const { ctx, rag } = fakeContext();
  await assert.rejects(pinRerankerVersion.preconditions(ctx, { version: 'not-installed' }), /has no reranker version not-installed/);
  await pinRerankerVersion.preconditions(ctx, { version: 'v2.1' });
  rag.capabilitiesNow.repair_hooks = ['reindex'];
  await assert.rejects(pinRerankerVersion.preconditions(ctx, { version: 'v2.1' }), /no reranker_pin hook/);
});

test('pin-reranker-version pins the reranker, verifies the pin took, and undo pins the reranker it replaced back', async () => {
  const { ctx, rag } = fakeContext({ ctx: { idempotencyKey: 'act-9' } });
  const args = await pinRerankerVersion.plan(ctx, {});
  const prior = await pinRerankerVersion.capture(ctx, args);
  assert.deepEqual(prior, { version: 'v2.2-drift' });
  await pinRerankerVersion.execute(ctx, args);
  assert.equal(rag.capabilitiesNow.active_versions?.reranker, 'v2.1');
  assert.equal(await pinRerankerVersion.verify(ctx, args), null);
  await pinRerankerVersion.undo(ctx, args, prior);
  assert.equal(rag.capabilitiesNow.active_versions?.reranker, 'v2.2-drift');
  assert.deepEqual(
    rag.repairs.map((c) => [c.method, c.request]),
    [
      ['pinReranker', { version: 'v2.1' }],
      ['pinReranker', { version: 'v2.2-drift' }],
    ],
  );
  assert.deepEqual(rag.repairs[0]!.options?.headers, { 'idempotency-key': 'act-9' });
  assert.deepEqual(pinRerankerVersion.describeUndo(args, prior), ['reranker pinned back from v2.1 to v2.2-drift']);
});

test('pin-reranker-version: a RAG that accepted the pin but runs another reranker fails verification', async () => {
  const { ctx, rag } = fakeContext();
  rag.ignoreRepairs = true;
  await pinRerankerVersion.execute(ctx, { version: 'v2.1' });
  assert.equal(await pinRerankerVersion.verify(ctx, { version: 'v2.1' }), 'reranker is v2.2-drift, not v2.1');
});
