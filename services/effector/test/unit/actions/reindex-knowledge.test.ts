import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reindexKnowledge } from '../../../src/actions/reindex-knowledge.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

test('reindex_knowledge plans the report’s knowledge ids once each, and refuses a report that names none', async () => {
  const { ctx } = fakeContext({ report: { affected_knowledge_ids: ['apt/curl', 'changelog/curl', 'apt/curl'] } });
  assert.deepEqual(await reindexKnowledge.plan(ctx, {}), { knowledge_ids: ['apt/curl', 'changelog/curl'] });
  const unscoped = fakeContext({ report: { affected_knowledge_ids: [] } });
  await assert.rejects(reindexKnowledge.plan(unscoped.ctx, {}), PreconditionError);
});

test('reindex_knowledge re-embeds exactly the planned ids, sending the action id as the idempotency key', async () => {
  const { ctx, rag } = fakeContext({ ctx: { idempotencyKey: 'act-1' } });
  const args = await reindexKnowledge.plan(ctx, {});
  await reindexKnowledge.execute(ctx, args);
  assert.deepEqual(
    rag.repairs.map((c) => [c.method, c.request, c.options?.headers]),
    [['reindex', { knowledge_ids: ['changelog/curl', 'apt/curl'] }, { 'idempotency-key': 'act-1' }]],
  );
});

test('reindex_knowledge writes to Qdrant, so its way back is the snapshot: undo itself calls nothing', async () => {
  const { ctx, rag } = fakeContext();
  assert.equal(reindexKnowledge.touchesQdrant, true);
  assert.equal(reindexKnowledge.reversible, true);
  await reindexKnowledge.undo(ctx, { knowledge_ids: ['apt/curl'] }, {});
  assert.deepEqual(rag.calls, []);
  assert.match(reindexKnowledge.describeUndo({ knowledge_ids: ['apt/curl', 'apt/zlib'] }, {}).join(' '), /2 reindexed .* snapshot/);
});
