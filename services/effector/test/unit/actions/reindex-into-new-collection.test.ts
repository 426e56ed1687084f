import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reindexIntoNewCollection } from '../../../src/actions/reindex-into-new-collection.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { fakeContext, type FakeContext } from '../support/fake-rag-client.ts';

const VECTORS = { size: 384, distance: 'Cosine' };

/** A RAG serving `kb` through an alias onto generation kb--1, whose reindex hook builds `build` points. */
function blueGreen(build: { points: number; reported?: number; vectors?: unknown }): FakeContext {
  const fake = fakeContext({ ctx: { idempotencyKey: 'act-5' } });
  fake.rag.capabilitiesNow.vector_store = { collection: 'kb--1', alias: 'kb', blue_green_reindex: true };
  fake.aliases.aliases.set('kb', 'kb--1');
  fake.aliases.collections.set('kb--1', { points: 100, vectors: VECTORS });
  fake.rag.reindexed = (request) => {
    fake.aliases.collections.set(request.target_collection!, { points: build.points, vectors: build.vectors ?? VECTORS });
    return { points: build.reported ?? build.points };
  };
  return fake;
}

test('reindex_into_new_collection steps aside for a RAG without an alias and a blue/green hook, or another collection', async () => {
  const plain = fakeContext();
  await assert.rejects(reindexIntoNewCollection.plan(plain.ctx, {}), PreconditionError);
  const other = blueGreen({ points: 100 });
  other.ctx.collection = 'another';
  await assert.rejects(reindexIntoNewCollection.plan(other.ctx, {}), /not the collection this effector guards/);
  const { ctx } = blueGreen({ points: 100 });
  const args = await reindexIntoNewCollection.plan(ctx, {});
  assert.equal(args.alias, 'kb');
  assert.ok(args.target_collection.startsWith('kb--') && args.target_collection !== 'kb--1', args.target_collection);
  assert.deepEqual(args.knowledge_ids, ['changelog/curl', 'apt/curl']);
});

test('reindex_into_new_collection builds beside the live generation, switches the alias, and undo switches back and drops the build', async () => {
  const { ctx, rag, aliases } = blueGreen({ points: 100 });
  const args = await reindexIntoNewCollection.plan(ctx, {});
  await reindexIntoNewCollection.preconditions(ctx, args);
  const prior = await reindexIntoNewCollection.capture(ctx, args);
  assert.deepEqual(prior, { from_collection: 'kb--1' });
  assert.deepEqual(reindexIntoNewCollection.protectedCollections?.(args, prior), [args.target_collection, 'kb--1']);
  const { detail } = (await reindexIntoNewCollection.execute(ctx, args)) as { detail: Record<string, unknown> };
  assert.equal(detail.switched, true);
  assert.deepEqual(
    rag.repairs.map((c) => [c.request, c.options?.headers]),
    [[{ target_collection: args.target_collection }, { 'idempotency-key': 'act-5' }]],
  );
  assert.equal(aliases.aliases.get('kb'), args.target_collection);
  assert.equal(await reindexIntoNewCollection.verify(ctx, args), null);
  assert.equal(await reindexIntoNewCollection.undoBlocker!(ctx, args, prior), null);
  await reindexIntoNewCollection.undo(ctx, args, prior);
  assert.equal(aliases.aliases.get('kb'), 'kb--1');
  assert.ok(!aliases.collections.has(args.target_collection), 'the build nobody reads is deleted');
  assert.ok(aliases.collections.has('kb--1'), 'the way back stays');
});

test('reindex_into_new_collection never switches to a build that is empty, short of the RAG’s count, or shaped otherwise', async () => {
  for (const [build, why] of [
    [{ points: 0 }, /holds no points/],
    [{ points: 90, reported: 100 }, /holds 90 points, the RAG reported 100/],
    [{ points: 100, vectors: { size: 768, distance: 'Cosine' } }, /vector parameters/],
  ] as const) {
    const { ctx, aliases } = blueGreen(build);
    const args = await reindexIntoNewCollection.plan(ctx, {});
    await assert.rejects(reindexIntoNewCollection.execute(ctx, args), why);
    assert.equal(aliases.aliases.get('kb'), 'kb--1', 'the alias stays on the live generation');
  }
});

test('reindex_into_new_collection’s undo refuses when a later change moved the alias on, or the way back is gone', async () => {
  const { ctx, aliases } = blueGreen({ points: 100 });
  const args = await reindexIntoNewCollection.plan(ctx, {});
  const prior = await reindexIntoNewCollection.capture(ctx, args);
  await reindexIntoNewCollection.execute(ctx, args);
  aliases.aliases.set('kb', 'kb--later');
  assert.match((await reindexIntoNewCollection.undoBlocker!(ctx, args, prior))!, /a later change owns it/);
  await assert.rejects(reindexIntoNewCollection.undo(ctx, args, prior), /a later change owns it/);
  assert.equal(aliases.aliases.get('kb'), 'kb--later', 'the later change is left alone');
  aliases.aliases.set('kb', args.target_collection);
  aliases.collections.delete('kb--1');
  assert.match((await reindexIntoNewCollection.undoBlocker!(ctx, args, prior))!, /deleted by retention/);
});
