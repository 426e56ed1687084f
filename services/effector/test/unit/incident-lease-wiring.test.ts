/**
 * The incident lease as the effector takes it (effector.ts): while another replica holds an incident,
 * this replica's repair run does nothing (`in_progress_elsewhere`) and its manual rollback is refused
 * with 409 naming the holder and expiry (audit-logged); once the holder lets go, both go ahead and
 * release the lease after them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Effector, IncidentLeases, RollbackRefused, effectorIndices } from '../../src/index.ts';
import { report, startLoop } from './support/loop-fixture.ts';

test('another replica holding the incident: the repair waits its turn, the rollback gets 409 naming it; released, both run', async () => {
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }] });
  const index = effectorIndices('unit').incidentLeases;
  const leases = (owner: string) => new IncidentLeases(loop.docs, index, { owner, leaseMs: 60_000 });
  const mine = leases('replica-a');
  await mine.init();
  const effector = new Effector({ ...loop.deps, instanceId: 'replica-a', incidentLeases: mine });
  const other = leases('replica-b');

  // Replica b holds inc-l1 (say, a rollback there): replica a's repair does nothing now.
  const held = await other.acquire('inc-l1', 'manual rollback of x by dave');
  loop.rag.healthy = false;
  await loop.deps.incidents.record(report('inc-l1'));
  assert.equal(await effector.process(report('inc-l1')), 'in_progress_elsewhere');
  assert.equal(loop.rag.log.filter((l) => l.startsWith('execute')).length, 0, 'nothing ran under another replica’s lease');
  await held.release();

  // Free: the repair runs, and lets go of the lease after it.
  assert.equal(await effector.process(report('inc-l1')), 'recovered');
  assert.equal(await mine.holder('inc-l1'), null);
  const snapshot = loop.events.find((e) => e.incident_id === 'inc-l1' && e.status === 'succeeded')?.snapshot_id;
  assert.ok(snapshot);

  // Replica b repairs it again: a's rollback is refused by name, nothing restored, the refusal audited.
  const repairing = await other.acquire('inc-l1', 'repair of revision 2');
  loop.rag.log.length = 0;
  await assert.rejects(effector.rollback(snapshot, { dryRun: false, actor: 'carol' }), (error: unknown) => {
    assert.ok(error instanceof RollbackRefused);
    assert.equal(error.status, 409);
    assert.match(error.message, /incident inc-l1 is leased by effector replica-b \(repair of revision 2\) until \d{4}-\d\d-\d\dT/);
    return true;
  });
  assert.deepEqual(loop.rag.log, [], 'nothing snapshotted or restored');
  // The audit log keeps each entry's detail as JSON.
  const audit = (await loop.deps.audit.list()) as { command: string; outcome: string; detail: string }[];
  assert.ok(
    audit.some(
      (e) =>
        e.command === 'rollback' && e.outcome === 'refused' && (JSON.parse(e.detail) as { leased_by?: string }).leased_by === 'replica-b',
    ),
    JSON.stringify(audit),
  );
  // A dry run is not an action: it plans even while the incident is leased.
  assert.equal((await effector.rollback(snapshot, { dryRun: true, actor: 'carol' })).dry_run, true);
  await repairing.release();

  const done = await effector.rollback(snapshot, { dryRun: false, actor: 'carol' });
  assert.equal(done.done, true);
  assert.equal(await mine.holder('inc-l1'), null, 'the rollback released the lease');
});
