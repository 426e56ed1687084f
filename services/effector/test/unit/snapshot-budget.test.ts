/**
 * EFFECTOR_SNAPSHOT_BUDGET_BYTES on the in-memory twins: before a Qdrant-writing repair takes its
 * snapshot, the collection's live snapshots plus the next one (estimated as the newest's recorded size)
 * must fit the budget; the oldest are pruned beyond keep-last to make room, never inside the rollback
 * window (keep-within) nor one an unfinished action needs; otherwise the repair is refused and escalated.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DocumentStore } from '@rag-immune/es-store';
import { WorkerConfigError } from '@rag-immune/worker-runtime';
import { effectorConfigFromEnv, PRODUCTION_SNAPSHOT_BUDGET_BYTES, snapshotBudgetBytes } from '../../src/config.ts';
import { effectorIndices, type ActionDoc } from '../../src/index.ts';
import { report, startLoop } from './support/loop-fixture.ts';

/** A new incident on a RAG that is sick again (the fake stays healed after a repair; a repair of healthy probes is not run). */
const processSick = (loop: Awaited<ReturnType<typeof startLoop>>, incident: string) => {
  loop.rag.healthy = false;
  return loop.effector.process(report(incident));
};

const budgetCount = async (loop: Awaited<ReturnType<typeof startLoop>>, outcome: string) =>
  (await loop.deps.metrics.snapshotBudget.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;

test('over the snapshot budget, the oldest snapshots are pruned beyond keep-last to make room', async () => {
  const loop = await startLoop({
    tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }],
    snapshotRetention: { keepLast: 10, keepWithinDays: 0 },
    snapshotBudgetBytes: 250,
  });
  loop.archive.sizeBytes = 100;
  assert.equal(await processSick(loop, 'inc-b1'), 'recovered');
  assert.equal(await processSick(loop, 'inc-b2'), 'recovered', '100 + 100 fits 250');
  const [second, first] = await loop.deps.snapshots.list({ live: true });
  assert.ok(first && second);
  // 200 + 100 > 250: the oldest (its repair finished, outside keep-within 0 days) goes first.
  assert.equal(await processSick(loop, 'inc-b3'), 'recovered');
  const live = await loop.deps.snapshots.list({ live: true });
  assert.equal(live.length, 2);
  assert.ok(!live.some((r) => r.snapshot_id === first.snapshot_id), 'the oldest was deleted');
  assert.equal((await loop.deps.snapshots.get(first.snapshot_id))?.status, 'deleted');
  assert.ok(!loop.archive.taken.has(first.snapshot_id), 'and its archive removed');
  assert.ok(live.some((r) => r.snapshot_id === second.snapshot_id));
  assert.equal(await budgetCount(loop, 'pruned'), 1);
  assert.equal(await budgetCount(loop, 'refused'), 0);
});

test('a repair whose snapshot cannot fit the budget is refused before anything runs, and escalated', async () => {
  const loop = await startLoop({
    tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }],
    // Every snapshot is inside the rollback window: none may be pruned for the budget.
    snapshotRetention: { keepLast: 10, keepWithinDays: 7 },
    snapshotBudgetBytes: 150,
  });
  loop.archive.sizeBytes = 100;
  assert.equal(await processSick(loop, 'inc-b4'), 'recovered');
  loop.rag.healthy = false;
  loop.rag.log.length = 0;
  assert.equal(await processSick(loop, 'inc-b5'), 'escalated');
  assert.deepEqual(loop.lifecycle('inc-b5'), ['rewrite:planned', 'rewrite:failed', 'page_on_call:escalated']);
  const failed = loop.events.find((e) => e.incident_id === 'inc-b5' && e.status === 'failed');
  assert.equal(failed?.failure?.reason, 'snapshot_failed');
  assert.match(failed?.failure?.message ?? '', /snapshot budget: .* 100 bytes .*EFFECTOR_SNAPSHOT_BUDGET_BYTES=150/);
  const escalated = loop.events.find((e) => e.incident_id === 'inc-b5' && e.status === 'escalated');
  assert.equal(escalated?.arguments.escalation, 'snapshot_budget');
  assert.deepEqual(loop.rag.log, [], 'no snapshot taken, nothing executed');
  assert.equal(loop.archive.taken.size, 1, 'the first repair keeps its way back');
  assert.equal((await loop.deps.snapshots.list({ live: true })).length, 1);
  assert.equal(await budgetCount(loop, 'refused'), 1);
});

test('a snapshot an unfinished action still needs is never pruned for the budget', async () => {
  const loop = await startLoop({
    tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }],
    snapshotRetention: { keepLast: 10, keepWithinDays: 0 },
    snapshotBudgetBytes: 150,
  });
  loop.archive.sizeBytes = 100;
  assert.equal(await processSick(loop, 'inc-b6'), 'recovered');
  // The first repair's record put back in flight (as if another replica were still verifying it).
  const [done] = await loop.deps.actions.list({ incident: 'inc-b6', statuses: ['succeeded'] });
  assert.ok(done?.snapshot_id);
  const v = await loop.deps.actions.get(done.key);
  assert.ok(v);
  const records = loop.docs.stores.get(effectorIndices('unit').actions) as unknown as DocumentStore<ActionDoc>;
  await records.put(done.key, { ...v.doc, status: 'executed', owner: 'replica-z', lease_until: Date.now() + 600_000 });
  assert.equal(await processSick(loop, 'inc-b7'), 'escalated');
  assert.equal((await loop.deps.snapshots.get(done.snapshot_id))?.status, 'created', 'kept: an unfinished action needs it');
  assert.equal(await budgetCount(loop, 'refused'), 1);
});

test('with no budget configured nothing is pruned for it and nothing refused', async () => {
  const loop = await startLoop({
    tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }],
    snapshotRetention: { keepLast: 10, keepWithinDays: 7 },
  });
  loop.archive.sizeBytes = 1e12;
  for (const id of ['inc-b8', 'inc-b9', 'inc-b10']) assert.equal(await processSick(loop, id), 'recovered');
  assert.equal((await loop.deps.snapshots.list({ live: true })).length, 3);
  assert.equal(await budgetCount(loop, 'pruned'), 0);
  assert.equal(await budgetCount(loop, 'refused'), 0);
});

test('EFFECTOR_SNAPSHOT_BUDGET_BYTES: unset is no budget; a positive integer of bytes; anything else exits 78 naming it', () => {
  const base = {
    EFFECTOR_API_TOKEN: 'a-token-of-sixteen-chars',
    EFFECTOR_ONLINE_RAG_URL: 'http://127.0.0.1:1',
    EFFECTOR_BASELINE_RAG_URL: 'http://127.0.0.1:2',
    EFFECTOR_QDRANT_COLLECTION: 'kb',
  };
  assert.equal(effectorConfigFromEnv(base).EFFECTOR_SNAPSHOT_BUDGET_BYTES, undefined);
  assert.equal(
    effectorConfigFromEnv({ ...base, EFFECTOR_SNAPSHOT_BUDGET_BYTES: '53687091200' }).EFFECTOR_SNAPSHOT_BUDGET_BYTES,
    53_687_091_200,
  );
  assert.equal(effectorConfigFromEnv({ ...base, EFFECTOR_SNAPSHOT_BUDGET_BYTES: 'off' }).EFFECTOR_SNAPSHOT_BUDGET_BYTES, 'off');
  for (const bad of ['0', '-5', '1.5', '50GB', 'none'])
    assert.throws(
      () => effectorConfigFromEnv({ ...base, EFFECTOR_SNAPSHOT_BUDGET_BYTES: bad }),
      (error: unknown) => error instanceof WorkerConfigError && error.issues.some((i) => i.key === 'EFFECTOR_SNAPSHOT_BUDGET_BYTES'),
      bad,
    );
});

test('the snapshot budget is on by default with BUS_PROFILE=production (10 GiB); off only when said so; development keeps none unless set', () => {
  assert.equal(snapshotBudgetBytes({}, 'production'), PRODUCTION_SNAPSHOT_BUDGET_BYTES);
  assert.equal(PRODUCTION_SNAPSHOT_BUDGET_BYTES, 10 * 1024 ** 3);
  assert.equal(snapshotBudgetBytes({ EFFECTOR_SNAPSHOT_BUDGET_BYTES: 'off' }, 'production'), undefined);
  assert.equal(snapshotBudgetBytes({ EFFECTOR_SNAPSHOT_BUDGET_BYTES: 5_000 }, 'production'), 5_000);
  assert.equal(snapshotBudgetBytes({}, 'development'), undefined);
  assert.equal(snapshotBudgetBytes({ EFFECTOR_SNAPSHOT_BUDGET_BYTES: 5_000 }, 'development'), 5_000);
});
