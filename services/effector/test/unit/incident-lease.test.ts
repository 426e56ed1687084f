/**
 * The incident lease (state/incident-lease.ts): one holder per incident across replicas, refusals
 * name the holder and its expiry, an expired lease is taken over by exactly one of two contenders,
 * a predecessor with this replica's id is taken over at once, renewal keeps it alive, release frees it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryStores, type DocumentStore } from '@rag-immune/es-store';
import { IncidentLeaseRefused, IncidentLeases, type IncidentLeaseDoc } from '../../src/index.ts';

const INDEX = 'unit-repair-incident-leases';

function replicas(leaseMs = 60_000, clock = { now: 1_000_000 }) {
  const stores = memoryStores();
  const make = (owner: string) => new IncidentLeases(stores, INDEX, { owner, leaseMs, renewEveryMs: 3_600_000, now: () => clock.now });
  return { stores, clock, a: make('effector-0'), b: make('effector-1'), make };
}

test('a second replica is refused while the first holds the incident; the refusal names holder, purpose and expiry', async () => {
  const { a, b, clock } = replicas();
  await a.init();
  const lease = await a.acquire('inc-1', 'manual rollback of snap-1 by alice');
  await assert.rejects(b.acquire('inc-1', 'repair of revision 2'), (error: unknown) => {
    assert.ok(error instanceof IncidentLeaseRefused);
    assert.equal(error.holder.owner, 'effector-0');
    assert.match(error.message, /leased by effector effector-0 \(manual rollback of snap-1 by alice\) until /);
    assert.match(error.message, new RegExp(new Date(clock.now + 60_000).toISOString().replace(/[.]/g, '\\.')));
    return true;
  });
  // Another incident is free.
  const other = await b.acquire('inc-2', 'repair of revision 1');
  await other.release();
  await lease.release();
  // Released: the other replica takes it.
  const taken = await b.acquire('inc-1', 'repair of revision 2');
  assert.equal((await b.holder('inc-1'))?.owner, 'effector-1');
  await taken.release();
  assert.equal(await a.holder('inc-1'), null);
});

test('within one process the same incident is never held twice', async () => {
  const { a } = replicas();
  await a.init();
  const lease = await a.acquire('inc-1', 'repair of revision 1');
  await assert.rejects(a.acquire('inc-1', 'manual rollback of x by bob'), IncidentLeaseRefused);
  await lease.release();
  await (await a.acquire('inc-1', 'manual rollback of x by bob')).release();
});

test('an expired lease (its replica died) is taken over by exactly one of two racing replicas; the dead one cannot release it', async () => {
  const { a, b, make, clock } = replicas();
  await a.init();
  const dead = await a.acquire('inc-1', 'repair of revision 1');
  clock.now += 60_001;
  const c = make('effector-2');
  const results = await Promise.allSettled([b.acquire('inc-1', 'repair'), c.acquire('inc-1', 'repair')]);
  const won = results.filter((r) => r.status === 'fulfilled');
  assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status)));
  assert.ok(results.some((r) => r.status === 'rejected' && r.reason instanceof IncidentLeaseRefused));
  const holder = (await b.holder('inc-1'))!.owner;
  assert.ok(['effector-1', 'effector-2'].includes(holder));
  // The dead replica's late release must not delete the new holder's lease.
  await dead.release();
  assert.equal((await b.holder('inc-1'))?.owner, holder);
});

test("a restarted replica (same id, nothing held in this process) takes over its predecessor's unexpired lease at once", async () => {
  const { a, make } = replicas();
  await a.init();
  await a.acquire('inc-1', 'repair of revision 1'); // the predecessor dies holding it
  const restarted = make('effector-0');
  const lease = await restarted.acquire('inc-1', 'repair of revision 1');
  assert.equal((await restarted.holder('inc-1'))?.owner, 'effector-0');
  await lease.release();
});

test('renewal pushes the expiry; a renewal that finds the lease taken over aborts the holder', async () => {
  const stores = memoryStores();
  const clock = { now: 1_000_000 };
  const fast = new IncidentLeases(stores, INDEX, { owner: 'effector-0', leaseMs: 600, renewEveryMs: 50, now: () => clock.now });
  await fast.init();
  const lease = await fast.acquire('inc-1', 'repair');
  const docs = stores.stores.get(INDEX) as unknown as DocumentStore<IncidentLeaseDoc>;
  clock.now += 500;
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal((await docs.get('inc-1'))!.doc.until, clock.now + 600, 'renewed to now + lease');
  assert.equal(lease.signal.aborted, false);
  // Another replica overwrote it (as a takeover after expiry would): the next renewal's compare-and-set fails.
  const current = (await docs.get('inc-1'))!;
  await docs.replace('inc-1', { ...current.doc, owner: 'effector-1', hold_id: 'other' }, current);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(lease.signal.aborted, true);
  assert.match(String((lease.signal.reason as Error).message), /taken over/);
  await lease.release();
  assert.equal((await docs.get('inc-1'))!.doc.owner, 'effector-1', 'a lost lease is not deleted from under its new holder');
});
