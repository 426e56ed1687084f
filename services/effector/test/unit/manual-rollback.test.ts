/**
 * Issue 40 item 6: a manual rollback has a way back. Restoring a snapshot first snapshots the
 * collection as it is (the plan names it; rolling back to it undoes the restore) and holds the
 * snapshot's incident for a human; any rollback is refused while a repair is in flight on the collection.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RollbackRefused } from '../../src/operator/rollback.ts';
import { report, startLoop, type Loop } from './support/loop-fixture.ts';

async function repaired(loop: Loop, incident: string): Promise<string> {
  loop.rag.healthy = false;
  assert.equal(await loop.effector.process(report(incident)), 'recovered');
  const snapshot = loop.events.find((e) => e.incident_id === incident && e.status === 'succeeded')?.snapshot_id;
  assert.ok(snapshot);
  return snapshot;
}

test('restoring a snapshot snapshots the collection first (its way back) and holds the incident', async () => {
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }] });
  const before = await repaired(loop, 'inc-m1');
  assert.equal(loop.rag.points, 101, 'the repair changed the collection');
  await loop.deps.incidents.reopen('inc-m1');
  const dry = await loop.effector.rollback(before, { dryRun: true, actor: 'carol' });
  assert.match(dry.steps[0]?.changes[0] ?? '', /snapshot .* as it is now is taken first/);
  loop.rag.log.length = 0;
  const done = await loop.effector.rollback(before, { dryRun: false, actor: 'carol' });
  assert.equal(done.done, true);
  assert.equal(loop.rag.points, 100);
  assert.deepEqual(
    loop.rag.log.map((line) => line.split(' ')[0]),
    ['snapshot', 'restore'],
    'the current state is snapshotted before the restore',
  );
  const wayBack = /kept as snapshot (\S+) /.exec(done.steps[0]?.changes[0] ?? '')?.[1];
  assert.ok(wayBack, done.steps[0]?.changes.join('; '));
  assert.match((await loop.deps.incidents.get('inc-m1'))?.doc.held_for_human ?? '', /manual restore of snapshot .* by carol/);
  // The way back works: the restore is undone.
  await loop.effector.rollback(wayBack, { dryRun: false, actor: 'carol' });
  assert.equal(loop.rag.points, 101);
});

test('a rollback is refused (409) while a repair is in flight on the collection; nothing is restored', async () => {
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }] });
  const before = await repaired(loop, 'inc-m2');
  // Another incident's repair, started by a live replica.
  loop.rag.healthy = false;
  await loop.deps.modes.set('approve', 'test');
  assert.equal(await loop.effector.process(report('inc-m3')), 'awaiting_grant');
  const [planned] = await loop.deps.actions.list({ incident: 'inc-m3' });
  assert.ok(planned);
  await loop.deps.actions.move((await loop.deps.actions.get(planned.key))!, 'started', {
    owner: 'replica-z',
    lease_until: Date.now() + 600_000,
    executions: 1,
  });
  loop.rag.log.length = 0;
  for (const target of [before, 'inc-m2']) {
    await assert.rejects(
      loop.effector.rollback(target, { dryRun: false, actor: 'carol' }),
      (e: unknown) =>
        e instanceof RollbackRefused && e.status === 409 && /in flight on collection kb \(rewrite \S+ started for inc-m3\)/.test(e.message),
      target,
    );
  }
  assert.deepEqual(loop.rag.log, [], 'nothing snapshotted, undone or restored');
  assert.equal(loop.rag.points, 101);
});

test("a rollback of an incident this replica is repairing waits for the repair's turn to end, then undoes it", async () => {
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }] });
  loop.rag.hangExecutes = 1;
  const repairing = loop.effector.process(report('inc-m4'));
  for (let i = 0; i < 500 && loop.rag.hanging === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(loop.rag.hanging, 1, 'the repair is executing');
  const rollback = loop.effector.rollback('inc-m4', { dryRun: false, actor: 'carol' });
  await new Promise((resolve) => setTimeout(resolve, 20));
  loop.rag.finishHung();
  assert.equal(await repairing, 'recovered');
  const plan = await rollback;
  assert.equal(plan.done, true);
  assert.equal(loop.rag.points, 100, 'the repair was undone after it finished, not raced');
  assert.equal(loop.lifecycle('inc-m4').at(-1), 'rewrite:rolled_back');
});
