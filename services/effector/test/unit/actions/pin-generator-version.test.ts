/**
 * The tool with a build to go back to (the case its undo is for); a RAG that does not say which build
 * it runs, and an undo with none recorded, are in test/unit/undo-way-back.test.ts with the other pins.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pinGeneratorVersion } from '../../../src/actions/pin-generator-version.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

test('pin-generator-version plans the baseline’s generator, or the version the policy names', async () => {
  const { ctx, baseline } = fakeContext();
  assert.deepEqual(await pinGeneratorVersion.plan(ctx, {}), { version: 'extractive-template-1.0' });
  assert.deepEqual(await pinGeneratorVersion.plan(ctx, { version: 'pinned-by-policy' }), { version: 'pinned-by-policy' });
  baseline.capabilitiesNow.active_versions = {};
  await assert.rejects(pinGeneratorVersion.plan(ctx, {}), PreconditionError);
});

test('pin-generator-version refuses a RAG without the generator_pin hook or without the planned version', async () => {
  const { ctx, rag } = fakeContext();
  await assert.rejects(pinGeneratorVersion.preconditions(ctx, { version: 'not-installed' }), /has no generator build not-installed/);
  await pinGeneratorVersion.preconditions(ctx, { version: 'extractive-template-1.0' });
  rag.capabilitiesNow.repair_hooks = ['reindex'];
  await assert.rejects(pinGeneratorVersion.preconditions(ctx, { version: 'extractive-template-1.0' }), /no generator_pin hook/);
});

test('pin-generator-version pins the generator, verifies the pin took, and undo pins the generator it replaced back', async () => {
  const { ctx, rag } = fakeContext({ ctx: { idempotencyKey: 'act-9' } });
  const args = await pinGeneratorVersion.plan(ctx, {});
  const prior = await pinGeneratorVersion.capture(ctx, args);
  assert.deepEqual(prior, { version: 'extractive-template-1.0+swap' });
  await pinGeneratorVersion.execute(ctx, args);
  assert.equal(rag.capabilitiesNow.active_versions?.generator, 'extractive-template-1.0');
  assert.equal(await pinGeneratorVersion.verify(ctx, args), null);
  await pinGeneratorVersion.undo(ctx, args, prior);
  assert.equal(rag.capabilitiesNow.active_versions?.generator, 'extractive-template-1.0+swap');
  assert.deepEqual(
    rag.repairs.map((c) => [c.method, c.request]),
    [
      ['pinGenerator', { version: 'extractive-template-1.0' }],
      ['pinGenerator', { version: 'extractive-template-1.0+swap' }],
    ],
  );
  assert.deepEqual(rag.repairs[0]!.options?.headers, { 'idempotency-key': 'act-9' });
  assert.deepEqual(pinGeneratorVersion.describeUndo(args, prior), [
    'generator pinned back from extractive-template-1.0 to extractive-template-1.0+swap',
  ]);
});

test('pin-generator-version: a RAG that accepted the pin but runs another generator fails verification', async () => {
  const { ctx, rag } = fakeContext();
  rag.ignoreRepairs = true;
  await pinGeneratorVersion.execute(ctx, { version: 'extractive-template-1.0' });
  assert.equal(
    await pinGeneratorVersion.verify(ctx, { version: 'extractive-template-1.0' }),
    'generator is extractive-template-1.0+swap, not extractive-template-1.0',
  );
});
