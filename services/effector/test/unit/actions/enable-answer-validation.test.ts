import { test } from 'node:test';
import assert from 'node:assert/strict';
import { enableAnswerValidation } from '../../../src/actions/enable-answer-validation.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

test('enable_answer_validation refuses a RAG without the answer_validation hook', async () => {
  const { ctx, rag } = fakeContext();
  rag.capabilitiesNow.repair_hooks = rag.capabilitiesNow.repair_hooks.filter((h) => h !== 'answer_validation');
  await assert.rejects(enableAnswerValidation.preconditions(ctx, { enabled: true }), PreconditionError);
});

test('enable_answer_validation turns validation on, verifies it took, and undo puts back what was there', async () => {
  const { ctx, rag } = fakeContext();
  const args = await enableAnswerValidation.plan(ctx, {});
  await enableAnswerValidation.preconditions(ctx, args);
  const prior = await enableAnswerValidation.capture(ctx, args);
  assert.deepEqual(prior, { enabled: false });
  await enableAnswerValidation.execute(ctx, args);
  assert.equal(rag.capabilitiesNow.answer_validation, true);
  assert.equal(await enableAnswerValidation.verify(ctx, args), null);
  await enableAnswerValidation.undo(ctx, args, prior);
  assert.equal(rag.capabilitiesNow.answer_validation, false, 'off again, as before the repair');
  assert.deepEqual(enableAnswerValidation.describeUndo(args, prior), ['answer validation set back to off']);
  // Validation already on before the repair (another incident's): undo leaves it on.
  await enableAnswerValidation.undo(ctx, args, { enabled: true });
  assert.equal(rag.capabilitiesNow.answer_validation, true);
});

test('enable_answer_validation: a RAG that accepted the call but still reports validation off fails verification', async () => {
  const { ctx, rag } = fakeContext();
  rag.ignoreRepairs = true;
  await enableAnswerValidation.execute(ctx, { enabled: true });
  assert.equal(await enableAnswerValidation.verify(ctx, { enabled: true }), 'answer validation is still off');
});
