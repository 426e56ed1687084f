/**
 * The incident lease across replicas on the real stack: two effector processes (this one's worker
 * and a spawned `services/effector/src/main.ts`) sharing one Elasticsearch are asked at the same
 * moment to restore the same snapshot of one incident (`POST /rollback`, as `immune rollback` sends
 * it). Exactly one restores (one way-back snapshot taken, one `ok` in the audit log); the other is
 * refused with 409 naming the lease's holder and expiry. Without the lease both restored (the hold
 * and the in-flight check see no repair in flight: two way-back snapshots, two restores).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { EffectorWorker } from '../../src/index.ts';
import { reportFor, startHarness, type Harness } from './harness.ts';
import { processEnv, spawnEffector, type EffectorProcess } from './process.ts';

let h: Harness;
let a: EffectorWorker;
let b: EffectorProcess;

before(async () => {
  h = await startHarness('lease', 6, { qdrantAlias: false });
  const started = await Promise.all([
    h.startWorker({ EFFECTOR_INSTANCE_ID: `it-eff-${h.run}-a` }),
    spawnEffector(processEnv(h, { EFFECTOR_INSTANCE_ID: `it-eff-${h.run}-b` })),
  ]);
  a = started[0];
  b = started[1];
});

after(async () => {
  await b?.stop();
  await h?.close();
});

interface AuditView {
  command: string;
  target: string;
  outcome: string;
  detail: Record<string, unknown>;
}

test('two replicas restore one incident’s snapshot at once: exactly one restores, the other gets 409 naming the holder', async () => {
  const incident = `inc-lease-${h.run}`;
  await a.stores.incidents.record(
    reportFor(incident, 'vector_index_corruption', 'vector_index', [{ id: 'p1', query: 'What is bash?' }], []),
  );
  const snapshot = await a.stores.snapshots.create(h.collection, incident, null);

  const [atA, atB] = await Promise.all([
    h.api(a, 'POST', '/rollback', { target: snapshot.snapshot_id }),
    h.api({ url: b.url } as EffectorWorker, 'POST', '/rollback', { target: snapshot.snapshot_id }),
  ]);
  const answers = [atA, atB];
  assert.deepEqual(
    answers.map((r) => r.status).sort(),
    [200, 409],
    `exactly one restores: ${JSON.stringify(answers)}\nB: ${b.output().slice(-2000)}`,
  );
  const refused = answers.find((r) => r.status === 409)!;
  assert.match(
    String(refused.json?.error),
    new RegExp(
      `incident ${incident} is leased by effector it-eff-${h.run}-[ab] \\(manual rollback of ${snapshot.snapshot_id} by it-oncall\\) until \\d{4}-`,
    ),
  );
  const done = answers.find((r) => r.status === 200)!;
  assert.equal(done.json.done, true);

  // One way back taken (the original plus one safety snapshot), one restore audited ok, one refusal.
  const snapshots = (await h.api(a, 'GET', `/snapshots?incident=${incident}`)).json.snapshots as { snapshot_id: string }[];
  assert.equal(snapshots.length, 2, JSON.stringify(snapshots));
  const audit = ((await h.api(a, 'GET', '/audit')).json.entries as AuditView[]).filter(
    (e) => e.command === 'rollback' && e.target === snapshot.snapshot_id,
  );
  assert.deepEqual(audit.map((e) => e.outcome).sort(), ['ok', 'refused'], JSON.stringify(audit));

  // Released afterwards: the lease document is gone and the incident is held for a human.
  const lease = await h.es.exists({ index: `${h.esPrefix}-repair-incident-leases`, id: incident });
  assert.equal(lease, false, 'the lease is released once the rollback finished');
  assert.match(String((await a.stores.incidents.get(incident))?.doc.held_for_human), /manual restore of snapshot/);
});
