import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_MAX_RESTORED_POINTS,
  restoreKnowledgeFromCollection as tool,
} from '../../../src/actions/restore-knowledge-from-collection.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { toolAvailable, type RagRepairAccess } from '../../../src/actions/rag-repair-access.ts';
import type { CollectionAliases } from '../../../src/snapshots/collection-aliases.ts';
import type { KnowledgePointsPort, PointId, StoredPoint } from '../../../src/snapshots/knowledge-points.ts';
import { FakeAliases, fakeContext, type FakeContext } from '../support/fake-rag-client.ts';
import { report, startLoop } from '../support/loop-fixture.ts';

const VECTORS = { size: 3, distance: 'Cosine' };
const BY_NAME: RagRepairAccess = {
  hooks: 'none',
  rebuildFrom: 'kb-baseline',
  collectionMode: 'by_name',
  ingestion: null,
  operatorStep: null,
  operatorWaitMs: 0,
};

/** Qdrant's points by collection, filtered by knowledge id in either payload layout, as KnowledgePoints does. */
class FakePoints implements KnowledgePointsPort {
  readonly collections = new Map<string, StoredPoint[]>();
  constructor(readonly log: string[] = []) {}
  async ofKnowledge(collection: string, ids: readonly string[], options: { withVectors: boolean; limit: number }) {
    const of = (p: StoredPoint) => p.payload.knowledge_id ?? (p.payload.metadata as { knowledge_id?: unknown } | undefined)?.knowledge_id;
    return (this.collections.get(collection) ?? [])
      .filter((p) => ids.includes(String(of(p))))
      .slice(0, options.limit + 1)
      .map((p) => structuredClone({ ...p, vector: options.withVectors ? p.vector : null }));
  }
  async upsert(collection: string, points: readonly StoredPoint[]) {
    const live = this.collections.get(collection)!;
    for (const point of points) {
      const at = live.findIndex((p) => p.id === point.id);
      if (at >= 0) live[at] = structuredClone(point);
      else live.push(structuredClone(point));
    }
    this.log.push(`upsert ${collection} ${points.length}`);
  }
  async delete(collection: string, ids: readonly PointId[]) {
    this.collections.set(
      collection,
      this.collections.get(collection)!.filter((p) => !ids.includes(p.id)),
    );
    this.log.push(`delete ${collection} ${ids.join(',')}`);
  }
}

/** A LangChain/Flowise point: `content` and `metadata.knowledge_id`. */
const point = (id: number, knowledgeId: string, vector: number[]): StoredPoint => ({
  id,
  vector,
  payload: { content: `text ${id}`, metadata: { knowledge_id: knowledgeId, chunk_id: `${knowledgeId}#${id}` } },
});

/** `kb` read by name (no alias), its pinned copy `kb-baseline` → a dated collection, 2 points per knowledge id. */
function pinned(log: string[] = []): FakeContext & { points: FakePoints } {
  const points = new FakePoints(log);
  const good = [
    point(1, 'apt/curl', [1, 0, 0]),
    point(2, 'apt/curl', [0, 1, 0]),
    point(3, 'changelog/curl', [0, 0, 1]),
    point(4, 'apt/zsh', [1, 1, 0]),
  ];
  points.collections.set('kb', structuredClone(good));
  points.collections.set('kb-baseline--20261206t080000z', structuredClone(good));
  const fake = fakeContext({ ctx: { ragRepair: BY_NAME, points } });
  fake.aliases.aliases.set('kb-baseline', 'kb-baseline--20261206t080000z');
  fake.aliases.collections.set('kb', { points: 4, vectors: VECTORS });
  fake.aliases.collections.set('kb-baseline--20261206t080000z', { points: 4, vectors: VECTORS });
  return { ...fake, points };
}

/** The fault: garbage vectors on apt/curl and changelog/curl, one point added to apt/curl. */
function corrupt(points: FakePoints): void {
  for (const p of points.collections.get('kb')!) if (p.id !== 4) p.vector = [-0.3, 0.2, -0.9];
  points.collections.get('kb')!.push(point(99, 'apt/curl', [0.5, 0.5, 0.5]));
}

test('restore_knowledge_from_collection plans the report’s knowledge from the source the adapter names, resolved through its alias', async () => {
  const { ctx } = pinned();
  const args = await tool.plan(ctx, {});
  assert.deepEqual(args, {
    collection: 'kb',
    rebuild_from: 'kb-baseline',
    source_collection: 'kb-baseline--20261206t080000z',
    knowledge_ids: ['changelog/curl', 'apt/curl'],
    source_points: 3,
    max_points: DEFAULT_MAX_RESTORED_POINTS,
  });
  assert.equal(tool.touchesQdrant, true, 'the executor snapshots the live collection before execute');
  assert.deepEqual(tool.protectedCollections?.(args, {}), ['kb-baseline--20261206t080000z']);
});

test('only a hookless RAG reading its collection by name gets it; the alias switches only one reading through an alias', () => {
  const byAlias: RagRepairAccess = { ...BY_NAME, collectionMode: 'alias' };
  const unsaid: RagRepairAccess = { hooks: 'none', rebuildFrom: 'kb-baseline', ingestion: null, operatorStep: null, operatorWaitMs: 0 };
  assert.equal(toolAvailable(tool, BY_NAME), true);
  assert.equal(toolAvailable(tool, byAlias), false);
  assert.equal(toolAvailable(tool, unsaid), false, 'absent collection_mode is alias, as before the key');
  assert.equal(toolAvailable(tool, { ...BY_NAME, hooks: 'contract' }), false);
});

test('it refuses: no source named, the source is the live collection, lacks a knowledge id, another shape, over the cap, no point access', async () => {
  const none = pinned();
  none.ctx.ragRepair = { ...BY_NAME, rebuildFrom: null };
  await assert.rejects(tool.plan(none.ctx, {}), /names no known-good collection to restore from \(repair\.rebuild_from\)/);
  const itself = pinned();
  itself.aliases.aliases.set('kb-baseline', 'kb');
  await assert.rejects(tool.plan(itself.ctx, {}), /kb-baseline is the live collection kb/);
  const lacking = pinned();
  lacking.points.collections.set('kb-baseline--20261206t080000z', [point(1, 'apt/curl', [1, 0, 0])]);
  await assert.rejects(tool.plan(lacking.ctx, {}), /holds no points for changelog\/curl/);
  const shaped = pinned();
  shaped.aliases.collections.set('kb-baseline--20261206t080000z', { points: 4, vectors: { size: 768, distance: 'Cosine' } });
  await assert.rejects(tool.plan(shaped.ctx, {}), /vector parameters/);
  const capped = pinned();
  await assert.rejects(tool.plan(capped.ctx, { max_points: '2' }), /more than max_points 2 points/);
  const blind = pinned();
  delete blind.ctx.points;
  await assert.rejects(tool.plan(blind.ctx, {}), PreconditionError);
  const unscoped = pinned();
  unscoped.ctx.report = { ...unscoped.ctx.report, affected_knowledge_ids: [] };
  await assert.rejects(tool.plan(unscoped.ctx, {}), /names no affected knowledge ids/);
});

test('execute puts the vectors back, deletes the point the fault added, leaves other knowledge untouched; verify checks it', async () => {
  const { ctx, points } = pinned();
  const args = await tool.plan(ctx, {});
  corrupt(points);
  points.collections.get('kb')!.find((p) => p.id === 4)!.vector = [0, 1, 1]; // other knowledge, changed since: not ours to touch
  await tool.preconditions(ctx, args);
  const prior = await tool.capture(ctx, args);
  assert.deepEqual(prior, { live_points: 4, to_delete: [99] });
  assert.match(
    (await tool.verify(ctx, args)) ?? '',
    /1 point\(s\) the source lacks are still live \(99\).*point 1's vector is not the source's/,
  );
  const { detail } = (await tool.execute(ctx, args)) as { detail: Record<string, unknown> };
  assert.deepEqual(detail, {
    collection: 'kb',
    source: 'kb-baseline--20261206t080000z',
    knowledge_ids: ['changelog/curl', 'apt/curl'],
    upserted: 3,
    deleted: 1,
  });
  const live = new Map(points.collections.get('kb')!.map((p) => [p.id, p]));
  assert.deepEqual([...live.keys()].sort(), [1, 2, 3, 4]);
  assert.deepEqual(live.get(1)!.vector, [1, 0, 0]);
  assert.deepEqual(live.get(3)!.vector, [0, 0, 1]);
  assert.deepEqual(live.get(4)!.vector, [0, 1, 1], 'apt/zsh is not in the report: left as it is');
  assert.equal(await tool.verify(ctx, args), null);
  // Run again (a resumed execute): the same result, nothing more deleted.
  await tool.execute(ctx, args);
  assert.equal(await tool.verify(ctx, args), null);
  assert.deepEqual(tool.describeUndo(args, prior), [
    'kb is restored from the snapshot taken before the repair: the points of changelog/curl, apt/curl as they were (4 points, 1 of them deleted by the repair)',
  ]);
});

test('an execute cut short between the upsert and the delete, run again (resumed), ends as one uninterrupted run', async () => {
  const { ctx, points } = pinned();
  const args = await tool.plan(ctx, {});
  corrupt(points);
  const remove = points.delete.bind(points);
  points.delete = async () => {
    throw new Error('Qdrant unreachable');
  };
  await assert.rejects(tool.execute(ctx, args), /Qdrant unreachable/);
  assert.match((await tool.verify(ctx, args)) ?? '', /still live \(99\)/);
  points.delete = remove;
  const { detail } = (await tool.execute(ctx, args)) as { detail: Record<string, unknown> };
  assert.equal(detail.deleted, 1);
  assert.equal(await tool.verify(ctx, args), null);
});

test('verify names a payload that differs from the source’s', async () => {
  const { ctx, points } = pinned();
  const args = await tool.plan(ctx, {});
  points.collections.get('kb')!.find((p) => p.id === 2)!.payload = { content: 'tampered', metadata: { knowledge_id: 'apt/curl' } };
  assert.match((await tool.verify(ctx, args)) ?? '', /point 2's payload differs/);
});

/** The effector's loop with the real tool: the snapshot comes first, and a repair that did not heal is undone from it. */
async function loopWith(heals: boolean) {
  const log: string[] = [];
  const { points } = pinned(log);
  corrupt(points);
  const aliases = new FakeAliases();
  aliases.aliases.set('kb-baseline', 'kb-baseline--20261206t080000z');
  aliases.collections.set('kb', { points: 5, vectors: VECTORS });
  aliases.collections.set('kb-baseline--20261206t080000z', { points: 4, vectors: VECTORS });
  const loop = await startLoop({
    tools: [],
    realTools: [tool],
    ragRepair: BY_NAME,
    aliases: aliases as unknown as CollectionAliases,
    points,
  });
  // The probes recover once the upsert ran (or never, for the failing case).
  const upsert = points.upsert.bind(points);
  points.upsert = async (collection, written) => {
    loop.rag.log.push(`upsert ${collection}`);
    await upsert(collection, written);
    loop.rag.healthy = heals;
  };
  const r = report(`inc-restore-${heals}`, { affected_knowledge_ids: ['apt/curl', 'changelog/curl'] });
  await loop.effector.process(r);
  await loop.effector.idle();
  return { loop, incident: r.incident_id };
}

test('through the effector: the live collection is snapshotted before the upsert, and the action records its snapshot', async () => {
  const { loop, incident } = await loopWith(true);
  const steps = loop.rag.log.filter((l) => /^(snapshot|upsert|restore)/.test(l));
  assert.deepEqual(steps, ['snapshot kb-0-1.snapshot', 'upsert kb']);
  assert.deepEqual(loop.lifecycle(incident), [
    'restore_knowledge_from_collection:planned',
    'restore_knowledge_from_collection:started',
    'restore_knowledge_from_collection:succeeded',
  ]);
  const [action] = await loop.deps.actions.list({ incident });
  assert.ok(action?.snapshot_id, 'the way back is recorded on the action');
  assert.deepEqual(JSON.parse(action.prior_json ?? '{}'), { live_points: 4, to_delete: [99] });
});

test('through the effector: a restore that did not heal is undone from the snapshot taken first', async () => {
  const { loop, incident } = await loopWith(false);
  const steps = loop.rag.log.filter((l) => /^(snapshot|upsert|restore)/.test(l));
  assert.deepEqual(steps, ['snapshot kb-0-1.snapshot', 'upsert kb', 'restore kb-0-1.snapshot']);
  assert.deepEqual(loop.lifecycle(incident).slice(0, 3), [
    'restore_knowledge_from_collection:planned',
    'restore_knowledge_from_collection:started',
    'restore_knowledge_from_collection:failed',
  ]);
});
