/**
 * The blue/green index repair on the real stack: the reference RAG queries its collection through a
 * Qdrant alias; for a vector-index corruption the effector has the RAG rebuild the index into a new
 * collection, checks it and switches the alias in one request (no snapshot: nothing is written in
 * place); a manual rollback switches it back and restores the pre-repair answers byte for byte; the
 * generations a switch retires are kept for rollback and pruned by retention, and a rollback whose
 * generation retention deleted is refused before anything changes.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { EffectorWorker } from '../../src/index.ts';
import { sleep } from '@rag-immune/test-kit';
import { answers, fault, injectVectorCorruption, lifecycle, reportFor, startHarness, type Harness } from './harness.ts';

let h: Harness;
let worker: EffectorWorker;

before(async () => {
  h = await startHarness('alias');
  // Retention at its tightest: one retired generation kept, no age grace.
  worker = await h.startWorkerReady({
    EFFECTOR_GROUP_ID: h.env.EFFECTOR_GROUP_ID as string,
    EFFECTOR_RETIRED_COLLECTIONS_KEEP_LAST: '1',
    EFFECTOR_RETIRED_COLLECTIONS_KEEP_WITHIN_DAYS: '0',
  });
});

after(async () => {
  await h?.close();
});

async function aliasTarget(): Promise<string | null> {
  const { aliases } = await h.qdrant.getAliases();
  return aliases.find((a) => a.alias_name === h.collection)?.collection_name ?? null;
}

async function generations(): Promise<string[]> {
  const { collections } = await h.qdrant.getCollections();
  return collections
    .map((c) => c.name)
    .filter((name) => name.startsWith(`${h.collection}--`))
    .sort();
}

/** Corrupts, reports, waits for the repair; returns what the test compares. */
async function repairOnce(incident: string) {
  const { affected, probes } = await injectVectorCorruption(h);
  const queries = probes.map((p) => p.query);
  const broken = await answers(h.online, queries);
  const before = await aliasTarget();
  await h.publishReport(reportFor(incident, 'vector_index_corruption', 'vector_index', probes, affected));
  await h.waitFor(
    (ev) => ev.some((e) => e.incident_id === incident && ['succeeded', 'escalated'].includes(e.status)),
    120_000,
    'index repair',
  );
  const done = h.events.find((e) => e.incident_id === incident && e.status === 'succeeded');
  assert.ok(done, `no verified repair: ${lifecycle(h.events, incident).join(', ')}`);
  return { queries, broken, before, done };
}

test('capabilities: the reference RAG serves its collection through an alias with a blue/green reindex', async () => {
  const store = (await h.online.capabilities()).vector_store;
  assert.ok(store, 'capabilities name the vector store');
  assert.equal(store.alias, h.collection);
  assert.equal(store.blue_green_reindex, true);
  assert.equal(store.collection, await aliasTarget());
});

test('vector-index corruption: rebuilt into a new collection and switched to (no snapshot); rollback switches back and restores the answers exactly', async () => {
  const incident = `inc-alias-${h.run}`;
  try {
    const { queries, broken, before, done } = await repairOnce(incident);
    assert.deepEqual(lifecycle(h.events, incident), [
      'reindex_into_new_collection:planned',
      'reindex_into_new_collection:started',
      'reindex_into_new_collection:succeeded',
    ]);
    assert.equal(done.snapshot_id, null, 'nothing written in place: no snapshot');
    assert.equal(done.verification?.recovered, true);
    const after = await aliasTarget();
    assert.ok(before && after && after !== before, `alias moved from ${before} to ${after}`);
    assert.equal(after, done.arguments.target_collection);
    assert.ok((await generations()).includes(before), 'the retired generation is kept for rollback');
    assert.deepEqual(await answers(h.online, queries), await answers(h.baseline, queries));
    assert.equal((await h.api(worker, 'GET', `/snapshots?incident=${incident}`)).json.snapshots.length, 0);

    const dry = await h.api(worker, 'POST', '/rollback', { target: done.action_id, dry_run: true });
    assert.equal(dry.status, 200);
    assert.match(JSON.stringify(dry.json.steps), new RegExp(`switched back to ${before}`));
    assert.equal(await aliasTarget(), after, 'a dry run changes nothing');

    const started = performance.now();
    const real = await h.api(worker, 'POST', '/rollback', { target: done.action_id });
    const rollbackMs = performance.now() - started;
    assert.equal(real.status, 200, JSON.stringify(real.json));
    assert.equal(real.json.done, true);
    assert.equal(await aliasTarget(), before, 'the alias points at the generation before the repair');
    assert.deepEqual(await answers(h.online, queries), broken, 'rollback restores the pre-repair answers exactly');
    assert.ok(!(await generations()).includes(after!), 'the abandoned build is deleted');
    console.log(`alias rollback through the effector API: ${rollbackMs.toFixed(0)} ms`);
  } finally {
    await fault(h, 'DELETE', 'vector-index-corruption').catch(() => undefined);
  }
});

test("retention: a second switch retires the first build and prunes the oldest generation; the first repair's rollback is refused before anything changes", async () => {
  const first = await repairOnce(`inc-alias-1-${h.run}`);
  await fault(h, 'DELETE', 'vector-index-corruption');
  await sleep(500);
  const second = await repairOnce(`inc-alias-2-${h.run}`);
  try {
    const live = await aliasTarget();
    assert.equal(live, second.done.arguments.target_collection);
    const kept = await generations();
    // keep-last 1: the generation the second switch retired stays; the one the first switch retired is gone.
    assert.ok(kept.includes(second.before!), `kept ${kept.join(', ')}`);
    assert.ok(!kept.includes(first.before!), `${first.before} pruned (kept ${kept.join(', ')})`);

    const refused = await h.api(worker, 'POST', '/rollback', { target: first.done.action_id });
    assert.ok(refused.status >= 400, `rollback of a repair whose generation is gone: ${refused.status}`);
    assert.equal(refused.status, 409);
    assert.match(JSON.stringify(refused.json), /a later change owns it/);
    assert.equal(await aliasTarget(), live, 'the refused rollback changed nothing');
  } finally {
    await fault(h, 'DELETE', 'vector-index-corruption').catch(() => undefined);
  }
});
