/**
 * Issue 42 item 3 on the real Qdrant: a RAG that reads its collection by name (Flowise: LangChain's
 * `content`/`metadata` layout, no alias) and serves no repair hooks. A pinned copy is made by the
 * baseline package (`immune baseline create`'s code); then, from outside the RAG, garbage vectors are
 * written on two knowledge ids and one point is added to one of them. restore_knowledge_from_collection
 * runs through the effector's execution path (the real Effector, runner and undo over the in-memory
 * Elasticsearch twin, with the real Qdrant snapshot archive, aliases and points; the probes stand-in
 * recovers once the upsert ran): first a run whose probes stay anomalous, undone from the snapshot the
 * executor took before the upsert (the faulted state comes back exactly), then one that heals (vectors
 * back, the added point gone, other knowledge untouched).
 */
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createBaseline } from '@rag-immune/baseline';
import { endpoints } from '@rag-immune/test-kit/stack';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { restoreKnowledgeFromCollection } from '../../src/actions/restore-knowledge-from-collection.ts';
import type { RagRepairAccess } from '../../src/actions/rag-repair-access.ts';
import { CollectionAliases } from '../../src/snapshots/collection-aliases.ts';
import { KnowledgePoints } from '../../src/snapshots/knowledge-points.ts';
import { QdrantSnapshotArchive } from '../../src/snapshots/qdrant-archive.ts';
import { report, startLoop } from '../unit/support/loop-fixture.ts';

const connection = { url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey };
const qdrant = createQdrantClient(connection);
const collection = `it-restore-in-place-${randomUUID().slice(0, 8)}`;
const KNOWLEDGE = ['apt/curl', 'apt/zsh', 'changelog/curl', 'changelog/vim'];
const FAULTED = ['apt/curl', 'changelog/curl'];
const DIM = 8;
let baseline: { alias: string; collection: string } | undefined;

type Snapshot = Map<string, { vector: number[]; payload: Record<string, unknown> }>;

/** Every point of the collection: id → vector and payload. */
async function pointsOf(name: string): Promise<Snapshot> {
  const { points } = await qdrant.scroll(name, { limit: 1_000, with_payload: true, with_vector: true });
  return new Map(points.map((p) => [String(p.id), { vector: p.vector as number[], payload: p.payload ?? {} }]));
}

const knowledgeOf = (payload: Record<string, unknown>) => (payload.metadata as { knowledge_id: string }).knowledge_id;

function cosine(a: number[], b: number[]): number {
  const dot = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  return dot / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));
}

before(async () => {
  await qdrant.createCollection(collection, { vectors: { size: DIM, distance: 'Cosine' } });
  let n = 0;
  await qdrant.upsert(collection, {
    wait: true,
    points: KNOWLEDGE.flatMap((knowledgeId) =>
      [0, 1, 2].map((chunk) => {
        n += 1;
        return {
          id: randomUUID(),
          vector: Array.from({ length: DIM }, (_, i) => Math.sin(n * 7 + i) + 1.5),
          payload: {
            content: `${knowledgeId} chunk ${chunk}`,
            metadata: { knowledge_id: knowledgeId, chunk_id: `${knowledgeId}#${chunk}` },
          },
        };
      }),
    ),
  });
  baseline = await createBaseline({ qdrant, source: collection, actor: 'it', reason: 'issue 42 in-place restore test' });
});

after(async () => {
  if (baseline)
    await qdrant.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: baseline.alias } }] }).catch(() => undefined);
  for (const name of [collection, baseline?.collection].filter((c): c is string => c !== undefined)) {
    for (const s of await qdrant.listSnapshots(name).catch(() => [])) await qdrant.deleteSnapshot(name, s.name).catch(() => undefined);
    await qdrant.deleteCollection(name).catch(() => undefined);
  }
});

/** The fault, from outside the RAG: garbage vectors on two knowledge ids, one point added to one of them. */
async function corrupt(): Promise<string> {
  const { points } = await qdrant.scroll(collection, {
    filter: { must: [{ key: 'metadata.knowledge_id', match: { any: FAULTED } }] },
    limit: 100,
    with_vector: false,
    with_payload: false,
  });
  await qdrant.updateVectors(collection, {
    wait: true,
    points: points.map((p, k) => ({ id: p.id, vector: Array.from({ length: DIM }, (_, i) => ((k * 31 + i * 17) % 11) - 5 + 0.5) })),
  });
  const extra = randomUUID();
  await qdrant.upsert(collection, {
    wait: true,
    points: [
      { id: extra, vector: Array(DIM).fill(1), payload: { content: 'injected', metadata: { knowledge_id: 'apt/curl', chunk_id: 'x' } } },
    ],
  });
  return extra;
}

/** One incident run through the effector with the real tool; `heals`: whether the probes recover after the upsert. */
async function repair(incident: string, heals: boolean) {
  const access: RagRepairAccess = {
    hooks: 'none',
    rebuildFrom: baseline!.alias,
    collectionMode: 'by_name',
    ingestion: null,
    operatorStep: null,
    operatorWaitMs: 0,
  };
  const points = new KnowledgePoints(qdrant);
  const loop = await startLoop({
    tools: [],
    realTools: [restoreKnowledgeFromCollection],
    ragRepair: access,
    collection,
    aliases: new CollectionAliases(qdrant, { keepLast: 1, keepWithinDays: 0 }),
    points,
    snapshotArchive: new QdrantSnapshotArchive(qdrant, { connection }),
    executeTimeoutMs: 60_000,
  });
  // The probes stand-in: it answers as the RAG would once the repair has written (the delete of the
  // extra points comes last in execute); whether the vectors are right is asserted on Qdrant itself.
  const remove = points.delete.bind(points);
  points.delete = async (...args) => {
    await remove(...args);
    loop.rag.healthy = heals;
  };
  await loop.effector.process(report(incident, { affected_knowledge_ids: FAULTED }));
  await loop.effector.idle();
  return loop;
}

test('garbage vectors on two knowledge ids of a by-name collection: a restore that does not heal is undone from the snapshot; one that heals is kept', async () => {
  const good = await pointsOf(collection);
  const extra = await corrupt();
  const faulted = await pointsOf(collection);
  assert.equal(faulted.size, good.size + 1);

  // Not healed: undone from the snapshot taken before the upsert, the faulted state exactly.
  const failed = await repair('inc-it-restore-undo', false);
  assert.deepEqual(failed.lifecycle('inc-it-restore-undo').slice(0, 3), [
    'restore_knowledge_from_collection:planned',
    'restore_knowledge_from_collection:started',
    'restore_knowledge_from_collection:failed',
  ]);
  const [undone] = await failed.deps.actions.list({ incident: 'inc-it-restore-undo' });
  assert.ok(undone?.snapshot_id, 'a snapshot of the live collection was taken before the upsert');
  assert.equal(undone.status, 'rolled_back');
  assert.deepEqual(await pointsOf(collection), faulted, 'the undo put back exactly the state before the repair');

  // Healed: kept.
  const healed = await repair('inc-it-restore-heal', true);
  const after = await pointsOf(collection);
  assert.equal(after.has(extra), false, 'the point the fault added is gone');
  assert.deepEqual([...after.keys()].sort(), [...good.keys()].sort(), 'the same point ids as before the fault');
  for (const [id, point] of good) {
    const now = after.get(id)!;
    assert.deepEqual(now.payload, point.payload, `payload of ${id}`);
    if (FAULTED.includes(knowledgeOf(point.payload)))
      assert.ok(cosine(now.vector, point.vector) > 0.999, `vector of ${id} (${knowledgeOf(point.payload)}) is back`);
    else assert.deepEqual(now.vector, faulted.get(id)!.vector, `${id} (${knowledgeOf(point.payload)}) is untouched`);
  }
  assert.deepEqual(healed.lifecycle('inc-it-restore-heal'), [
    'restore_knowledge_from_collection:planned',
    'restore_knowledge_from_collection:started',
    'restore_knowledge_from_collection:succeeded',
  ]);
  const [kept] = await healed.deps.actions.list({ incident: 'inc-it-restore-heal' });
  assert.deepEqual(JSON.parse(kept?.prior_json ?? '{}'), { live_points: 7, to_delete: [extra] });
});
