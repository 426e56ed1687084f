import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refreshKnowledgeSource } from '../../../src/actions/refresh-knowledge-source.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { fakeContext } from '../support/fake-rag-client.ts';

test('refresh_knowledge_source plans the sources owning the affected knowledge, or the one the policy names', async () => {
  const { ctx } = fakeContext({ report: { affected_knowledge_ids: ['changelog/curl', 'changelog/zlib'] } });
  assert.deepEqual(await refreshKnowledgeSource.plan(ctx, {}), { sources: ['debian-changelog'] });
  assert.deepEqual(await refreshKnowledgeSource.plan(ctx, { source: 'apt-metadata' }), { sources: ['apt-metadata'] });
  const unowned = fakeContext({ report: { affected_knowledge_ids: ['wiki/page'] } });
  await assert.rejects(refreshKnowledgeSource.plan(unowned.ctx, {}), PreconditionError);
});

test('refresh_knowledge_source refuses a RAG without the hook or without the source', async () => {
  const { ctx, rag } = fakeContext();
  await assert.rejects(refreshKnowledgeSource.preconditions(ctx, { sources: ['no-such-source'] }), /no knowledge source no-such-source/);
  rag.capabilitiesNow.repair_hooks = ['reindex'];
  await assert.rejects(refreshKnowledgeSource.preconditions(ctx, { sources: ['debian-changelog'] }), PreconditionError);
});

test('refresh_knowledge_source refreshes each source as its own job; irreversible, its undo calls nothing', async () => {
  const { ctx, rag } = fakeContext({ ctx: { idempotencyKey: 'act-7' } });
  const args = await refreshKnowledgeSource.plan(ctx, {});
  assert.deepEqual(args, { sources: ['apt-metadata', 'debian-changelog'] });
  await refreshKnowledgeSource.preconditions(ctx, args);
  await refreshKnowledgeSource.execute(ctx, args);
  assert.deepEqual(
    rag.repairs.map((c) => [c.request, c.options?.headers]),
    [
      [{ action: 'refresh', source: 'apt-metadata' }, { 'idempotency-key': 'act-7:apt-metadata' }],
      [{ action: 'refresh', source: 'debian-changelog' }, { 'idempotency-key': 'act-7:debian-changelog' }],
    ],
  );
  assert.equal(refreshKnowledgeSource.reversible, false, 'a grant is needed: the knowledge clock cannot be moved back');
  rag.calls.length = 0;
  await refreshKnowledgeSource.undo(ctx, args, {});
  assert.deepEqual(rag.calls, []);
});
