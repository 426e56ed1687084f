import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escalateToHuman } from '../../../src/actions/escalate-to-human.ts';
import { CATALOGUE } from '../../../src/actions/catalogue.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

test('escalate_to_human is the terminal tool: it carries the policy’s reason and changes nothing in the RAG', async () => {
  assert.equal(escalateToHuman.terminal, true);
  assert.equal(CATALOGUE.escalation, escalateToHuman);
  const { ctx, rag } = fakeContext();
  assert.deepEqual(await escalateToHuman.plan(ctx, { reason: 'two repairs failed' }), { reason: 'two repairs failed' });
  const args = await escalateToHuman.plan(ctx, {});
  assert.deepEqual(args, { reason: 'policy escalates this incident' });
  await escalateToHuman.preconditions(ctx, args);
  assert.deepEqual(await escalateToHuman.capture(ctx, args), {});
  assert.deepEqual(await escalateToHuman.execute(ctx, args), { detail: {} });
  assert.equal(await escalateToHuman.verify(ctx, args), null);
  await escalateToHuman.undo(ctx, args, {});
  assert.deepEqual(rag.calls, [], 'no call to the RAG');
  assert.deepEqual(escalateToHuman.describeUndo(args, {}), ['nothing to undo']);
});
