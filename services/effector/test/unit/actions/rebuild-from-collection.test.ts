import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rebuildFromCollection } from '../../../src/actions/rebuild-from-collection.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { CONTRACT_HOOKS } from '../../../src/actions/rag-repair-access.ts';
import { fakeContext, type FakeContext } from '../support/fake-rag-client.ts';

const VECTORS = { size: 384, distance: 'Cosine' };

/** A hookless RAG reading `kb` (alias → kb-live) with a pinned baseline copy behind `kb-baseline`. */
function withBaseline(): FakeContext {
  const fake = fakeContext({
    ctx: { ragRepair: { hooks: 'none', rebuildFrom: 'kb-baseline', ingestion: null, operatorStep: null, operatorWaitMs: 0 } },
  });
  fake.aliases.aliases.set('kb', 'kb-live');
  fake.aliases.aliases.set('kb-baseline', 'kb-baseline--20261206t080000z');
  fake.aliases.collections.set('kb-live', { points: 120, vectors: VECTORS });
  fake.aliases.collections.set('kb-baseline--20261206t080000z', { points: 100, vectors: VECTORS });
  return fake;
}

test('rebuild_from_collection plans the source the adapter names, resolved through its alias, into a new generation', async () => {
  const { ctx } = withBaseline();
  const args = await rebuildFromCollection.plan(ctx, {});
  assert.equal(args.alias, 'kb');
  assert.equal(args.rebuild_from, 'kb-baseline');
  assert.equal(args.source_collection, 'kb-baseline--20261206t080000z');
  assert.ok(args.target_collection.startsWith('kb--'), args.target_collection);
  assert.equal(rebuildFromCollection.availability, 'without_repair_hooks');
});

test('rebuild_from_collection refuses without a named source, an alias, points, or the live vector parameters', async () => {
  const none = withBaseline();
  none.ctx.ragRepair = CONTRACT_HOOKS;
  await assert.rejects(rebuildFromCollection.plan(none.ctx, {}), /names no collection to rebuild from/);
  const plain = withBaseline();
  plain.aliases.aliases.delete('kb');
  await assert.rejects(rebuildFromCollection.plan(plain.ctx, {}), PreconditionError);
  const empty = withBaseline();
  empty.aliases.collections.set('kb-baseline--20261206t080000z', { points: 0, vectors: VECTORS });
  await assert.rejects(rebuildFromCollection.plan(empty.ctx, {}), /holds no points/);
  const shaped = withBaseline();
  shaped.aliases.collections.set('kb-baseline--20261206t080000z', { points: 100, vectors: { size: 768, distance: 'Cosine' } });
  await assert.rejects(rebuildFromCollection.plan(shaped.ctx, {}), /vector parameters/);
});

test('rebuild_from_collection copies, checks and switches the alias; undo switches back and deletes only the build', async () => {
  const { ctx, aliases } = withBaseline();
  const args = await rebuildFromCollection.plan(ctx, {});
  await rebuildFromCollection.preconditions(ctx, args);
  const prior = await rebuildFromCollection.capture(ctx, args);
  assert.deepEqual(prior, { from_collection: 'kb-live' });
  assert.deepEqual(rebuildFromCollection.protectedCollections?.(args, prior), [args.target_collection, args.source_collection, 'kb-live']);
  const { detail } = (await rebuildFromCollection.execute(ctx, args)) as { detail: Record<string, unknown> };
  assert.deepEqual(aliases.log, [
    `copy ${args.source_collection} -> ${args.target_collection}`,
    `swap kb kb-live -> ${args.target_collection}`,
  ]);
  assert.equal(detail.points, 100);
  assert.equal(await rebuildFromCollection.verify(ctx, args), null);
  await rebuildFromCollection.undo(ctx, args, prior);
  assert.equal(aliases.aliases.get('kb'), 'kb-live');
  assert.ok(!aliases.collections.has(args.target_collection), 'the build is deleted');
  assert.ok(aliases.collections.has('kb-live') && aliases.collections.has(args.source_collection), 'the way back and the source stay');
});

test('rebuild_from_collection never switches to a short copy', async () => {
  const { ctx, aliases } = withBaseline();
  const args = await rebuildFromCollection.plan(ctx, {});
  const copy = aliases.copy.bind(aliases);
  aliases.copy = async (source, target) => {
    await copy(source, target);
    aliases.collections.set(target, { points: 99, vectors: VECTORS });
    return { points: 99 };
  };
  await assert.rejects(rebuildFromCollection.execute(ctx, args), /holds 99 points.*not switched to/);
  assert.equal(aliases.aliases.get('kb'), 'kb-live', 'the alias still points at the live generation');
});
