/**
 * Trust boundaries and crash safety of repairs (issue 29), on the in-memory loop
 * (support/loop-fixture.ts): an undo owed survives errors and crashes and comes before anything
 * else, an inconclusive verification holds instead of undoing, implausible revisions are refused,
 * a manual rollback holds the incident for a human, an old snapshot restore needs a grant.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DocumentStore } from '@rag-immune/es-store';
import { restoreCollectionSnapshot } from '../../src/actions/restore-collection-snapshot.ts';
import { effectorIndices, type ActionDoc, type SnapshotRecord } from '../../src/index.ts';
import { report, startLoop, type Loop } from './support/loop-fixture.ts';

async function actionOf(loop: Loop, incident: string, tool: string): Promise<ActionDoc> {
  const found = (await loop.deps.actions.list({ incident })).filter((a) => a.tool === tool);
  assert.ok(found.length > 0, `an action of ${tool}`);
  return found.at(-1)!;
}

/** The record of an action of `tool` left `undoing` by a replica that died mid-undo (a failed verification before). */
async function leftUndoing(loop: Loop, incident: string, tool: string, patch: Partial<ActionDoc> = {}): Promise<void> {
  const doc = await actionOf(loop, incident, tool);
  const started = await loop.deps.actions.move((await loop.deps.actions.get(doc.key))!, 'started', {
    owner: 'replica-gone',
    lease_until: Date.now() - 1,
    executions: 1,
    prior_json: '{"healthy_before":false}',
    ...patch,
  });
  await loop.deps.actions.move(started!, 'undoing', { failure: { reason: 'verification_failed', message: 'probes still anomalous' } });
}

test('an undo that meets an error leaves the repair undoing, not failed: the next tool waits, start-up finishes the undo first', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'fix_a', heals: false },
      { name: 'fix_b', heals: true },
    ],
  });
  loop.rag.undoFailures = 1;
  assert.equal(await loop.effector.process(report('inc-u1')), 'undo_pending');
  const owed = await actionOf(loop, 'inc-u1', 'fix_a');
  assert.equal(owed.status, 'undoing', 'not terminal while still applied');
  assert.equal(owed.undo_attempts, 1);
  assert.match(owed.rollback_reason ?? '', /unreachable/);
  assert.deepEqual(loop.rag.log, ['execute fix_a', 'undo fix_a failed'], 'fix_b never ran on top of the applied fix_a');
  assert.deepEqual(loop.lifecycle('inc-u1'), ['fix_a:planned', 'fix_a:started', 'fix_a:failed'], 'the published lifecycle is unchanged');
  assert.equal((await loop.deps.incidents.get('inc-u1'))?.doc.status, 'open', 'start-up re-runs it');

  const [resumed] = await loop.effector.recoverInFlight();
  assert.deepEqual(resumed, { incident_id: 'inc-u1', outcome: 'recovered' });
  assert.deepEqual(loop.rag.log, ['execute fix_a', 'undo fix_a failed', 'undo fix_a', 'execute fix_b']);
  assert.equal((await actionOf(loop, 'inc-u1', 'fix_a')).status, 'rolled_back');
  assert.deepEqual(loop.lifecycle('inc-u1').slice(3), ['fix_a:rolled_back', 'fix_b:planned', 'fix_b:started', 'fix_b:succeeded']);
});

test('an undo that met an error is tried again in-process after the retry delay, then the plan goes on', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'fix_a', heals: false },
      { name: 'fix_b', heals: true },
    ],
    undoRetryMs: 5,
  });
  loop.rag.undoFailures = 1;
  assert.equal(await loop.effector.process(report('inc-u5')), 'undo_pending');
  for (let i = 0; i < 100 && !loop.rag.log.includes('execute fix_b'); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  await loop.effector.idle();
  assert.deepEqual(loop.rag.log, ['execute fix_a', 'undo fix_a failed', 'undo fix_a', 'execute fix_b']);
  assert.equal((await loop.deps.incidents.get('inc-u5'))?.doc.status, 'recovered');
});

test('a crash mid-undo: the next revision finishes the owed undo before planning anything', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'fix_a', heals: false },
      { name: 'fix_b', heals: true },
    ],
    mode: 'approve',
  });
  assert.equal(await loop.effector.process(report('inc-u2')), 'awaiting_grant');
  await leftUndoing(loop, 'inc-u2', 'fix_a');
  assert.equal(await loop.deps.actions.failedCount('inc-u2'), 1, 'an undo owed is a failed repair to the breaker');
  await loop.deps.modes.set('auto', 'test');
  assert.equal(await loop.effector.process(report('inc-u2', { report_revision: 2 })), 'recovered');
  assert.deepEqual(loop.rag.log, ['undo fix_a', 'execute fix_b'], 'the undo came first');
  assert.equal((await actionOf(loop, 'inc-u2', 'fix_a')).status, 'rolled_back');
});

test('an undo that cannot be done (its snapshot is gone) fails the action with the error and escalates', async () => {
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: false, touchesQdrant: true }], mode: 'approve' });
  assert.equal(await loop.effector.process(report('inc-u3')), 'awaiting_grant');
  await leftUndoing(loop, 'inc-u3', 'rewrite', { snapshot_id: 'kb-0-9.snapshot' });
  await loop.deps.modes.set('auto', 'test');
  assert.equal(await loop.effector.process(report('inc-u3')), 'escalated');
  const action = await actionOf(loop, 'inc-u3', 'rewrite');
  assert.equal(action.status, 'failed');
  assert.match(action.rollback_reason ?? '', /kb-0-9\.snapshot is not recorded/);
  const escalated = loop.events.find((e) => e.incident_id === 'inc-u3' && e.status === 'escalated');
  assert.equal(escalated?.arguments.escalation, 'undo_failed');
  assert.equal((await loop.deps.incidents.get('inc-u3'))?.doc.status, 'escalated');
});

test('an undo that keeps failing is given up after a bounded number of attempts: failed, escalated', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: false }] });
  loop.rag.undoFailures = 10;
  const r = report('inc-u4');
  assert.equal(await loop.effector.process(r), 'undo_pending');
  assert.equal(await loop.effector.process(r), 'undo_pending');
  assert.equal(await loop.effector.process(r), 'escalated');
  const action = await actionOf(loop, 'inc-u4', 'fix_a');
  assert.equal(action.status, 'failed');
  assert.equal(action.undo_attempts, 3);
  assert.equal(loop.events.find((e) => e.status === 'escalated')?.arguments.escalation, 'undo_failed');
});

test('an inconclusive verification is measured again, not undone; a conclusive recovery then succeeds', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }] });
  loop.rag.inconclusiveMeasures = 1;
  assert.equal(await loop.effector.process(report('inc-i1')), 'recovered');
  assert.deepEqual(loop.rag.log, ['execute fix_a'], 'not undone for the measurement failing');
  assert.deepEqual(loop.lifecycle('inc-i1'), ['fix_a:planned', 'fix_a:started', 'fix_a:succeeded']);
  assert.equal((await actionOf(loop, 'inc-i1', 'fix_a')).hold_reason, null);
});

test('a verification that stays inconclusive holds the repair applied and hands it to a human; later revisions do not repair on top', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'fix_a', heals: true },
      { name: 'fix_b', heals: true },
    ],
  });
  loop.rag.inconclusiveMeasures = 10;
  assert.equal(await loop.effector.process(report('inc-i2')), 'escalated');
  const held = await actionOf(loop, 'inc-i2', 'fix_a');
  assert.equal(held.status, 'executed', 'neither verified nor undone');
  assert.match(held.hold_reason ?? '', /inconclusive \(measure 3 of 3\).*held for a human/);
  assert.deepEqual(loop.rag.log, ['execute fix_a'], 'never undone, fix_b never ran');
  assert.equal(loop.events.find((e) => e.status === 'escalated')?.arguments.escalation, 'verification_inconclusive');
  assert.match((await loop.deps.incidents.get('inc-i2'))?.doc.held_for_human ?? '', /inconclusive/);
  assert.equal(await loop.effector.process(report('inc-i2', { report_revision: 2 })), 'held_for_human');
  assert.deepEqual(loop.rag.log, ['execute fix_a']);
  // The person decides: here, to roll the held repair back.
  assert.equal((await loop.effector.rollback('inc-i2', { dryRun: false, actor: 'erin' })).done, true);
  assert.deepEqual(loop.rag.log, ['execute fix_a', 'undo fix_a']);
  assert.equal((await actionOf(loop, 'inc-i2', 'fix_a')).status, 'rolled_back');
});

test('a revision far beyond the last one (or beyond any real one) is refused as forged: it supersedes nothing', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }] });
  assert.equal(await loop.effector.process(report('inc-r1', { report_revision: 3 })), 'recovered');
  assert.equal(await loop.effector.process(report('inc-r1', { report_revision: 3 + 1001 })), 'refused');
  assert.equal((await loop.deps.incidents.get('inc-r1'))?.doc.latest_revision, 3);
  const outcomes: unknown[] = [];
  await loop.effector.accept(report('inc-r1', { report_revision: 2_000_000 }), undefined as never, (o) => outcomes.push(o));
  assert.deepEqual(outcomes, ['refused']);
  assert.equal((await loop.deps.incidents.get('inc-r1'))?.doc.latest_revision, 3);
  // The genuine next revision is still taken.
  assert.notEqual(await loop.effector.process(report('inc-r1', { report_revision: 4 })), 'superseded');
  assert.equal(await loop.effector.process(report('inc-r2', { report_revision: 5_000_000 })), 'refused');
  assert.equal(await loop.deps.incidents.get('inc-r2'), null, 'nothing recorded');
});

test('after a manual rollback a new revision repairs nothing until a person re-opens the incident', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'fix_a', heals: true },
      { name: 'fix_b', heals: true },
    ],
  });
  assert.equal(await loop.effector.process(report('inc-m1')), 'recovered');
  await loop.effector.rollback('inc-m1', { dryRun: false, actor: 'carol' });
  assert.equal(await loop.effector.process(report('inc-m1', { report_revision: 2 })), 'held_for_human');
  const incident = (await loop.deps.incidents.get('inc-m1'))!.doc;
  assert.equal(incident.status, 'escalated');
  assert.equal(incident.latest_revision, 2, 'the revision is recorded, not acted on');
  assert.deepEqual(loop.rag.log, ['execute fix_a', 'undo fix_a'], 'no new repair');
  assert.equal((await loop.effector.recoverInFlight()).length, 0, 'start-up does not re-run it either');

  const reopened = await loop.effector.reopen('inc-m1', { actor: 'dave' });
  assert.match(reopened.held_for_human ?? '', /manual rollback .* by carol/);
  await loop.effector.idle();
  assert.equal((await loop.deps.incidents.get('inc-m1'))?.doc.held_for_human, null);
  assert.deepEqual(loop.rag.log, ['execute fix_a', 'undo fix_a', 'execute fix_b'], 'the re-opened incident is repaired again');
  assert.ok(((await loop.deps.audit.list()) as { command: string }[]).some((a) => a.command === 'incident.reopen'));
});

async function snapshotTaken(loop: Loop, ageMs: number): Promise<SnapshotRecord> {
  const record = await loop.deps.snapshots.create('kb', null, null);
  const created_at = new Date(Date.now() - ageMs).toISOString();
  // The twin hands back the store the SnapshotStore opened (one store per index name).
  const docs = loop.docs.stores.get(effectorIndices('unit').snapshots) as unknown as DocumentStore<SnapshotRecord>;
  await docs.patch(`${record.collection}/${record.snapshot_id}`, { created_at });
  return { ...record, created_at };
}

test('restoring a snapshot older than the limit waits for a grant that names the snapshot and its age; a recent one runs', async () => {
  const old = await startLoop({ tools: [], realTools: [restoreCollectionSnapshot as never] });
  const week = await snapshotTaken(old, 7 * 86_400_000);
  assert.equal(await old.effector.process(report('inc-s1', { window_start: Date.now() })), 'awaiting_grant');
  const [pending] = await old.deps.grants.list({ status: 'pending' });
  assert.equal(pending?.tool, 'restore_collection_snapshot');
  assert.match(pending?.reason ?? '', new RegExp(`snapshot ${week.snapshot_id.replace(/\./g, '\\.')} is 7\\.0 days old`));
  assert.deepEqual(old.archive.recovered, [], 'nothing restored without the grant');

  const recent = await startLoop({ tools: [], realTools: [restoreCollectionSnapshot as never], restoreMaxSnapshotAgeMs: 3_600_000 });
  const fresh = await snapshotTaken(recent, 60_000);
  await recent.effector.process(report('inc-s2', { window_start: Date.now() }));
  assert.deepEqual(await recent.deps.grants.list({ status: 'pending' }), []);
  assert.equal(recent.archive.recovered[0], fresh.snapshot_id, 'restored at once');
});

test('an Elasticsearch outage mid-undo: the repair stays owed, never moves on applied, and ends rolled_back once the twin is back', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'rewrite', heals: false, touchesQdrant: true },
      { name: 'fix_b', heals: true },
    ],
  });
  // Every write to the Elasticsearch twin fails while `down` (reads still answer, as on a red cluster).
  let down = false;
  const writes = ['create', 'createMany', 'replace', 'put', 'patch', 'delete', 'deleteMany'] as const;
  for (const store of loop.docs.stores.values()) {
    const methods = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const name of writes) {
      const write = methods[name]!.bind(store);
      methods[name] = async (...args: unknown[]) => {
        if (down) throw new Error('connect ECONNREFUSED 127.0.0.1:9200 (Elasticsearch down)');
        return write(...args);
      };
    }
  }
  // The outage starts the moment the undo has restored the collection in Qdrant: nothing of it is recorded.
  const recover = loop.archive.recover.bind(loop.archive);
  loop.archive.recover = async (collection, name) => {
    await recover(collection, name);
    if (loop.archive.recovered.length === 1) down = true;
  };
  const first = await loop.effector.process(report('inc-u9')).catch((error: unknown) => `threw: ${String(error)}`);
  assert.notEqual(first, 'recovered');
  const owed = await actionOf(loop, 'inc-u9', 'rewrite');
  assert.equal(owed.status, 'undoing', 'still owed: not failed, not rolled back, not left for the next tool');
  assert.ok(!loop.rag.log.includes('execute fix_b'), 'nothing ran on top of it');
  assert.ok(!loop.lifecycle('inc-u9').includes('rewrite:rolled_back'));

  down = false;
  const [resumed] = await loop.effector.recoverInFlight();
  assert.deepEqual(resumed, { incident_id: 'inc-u9', outcome: 'recovered' });
  const undone = await actionOf(loop, 'inc-u9', 'rewrite');
  assert.equal(undone.status, 'rolled_back');
  assert.equal(undone.executions, 1, 'the failed repair never ran again');
  const snapshot = undone.snapshot_id!;
  // The undo is finished first (tool undo and restore are idempotent), then the next tool on the before state.
  assert.deepEqual(loop.rag.log.slice(0, 4), [`snapshot ${snapshot}`, 'execute rewrite', 'undo rewrite', `restore ${snapshot}`]);
  assert.deepEqual(loop.rag.log.slice(-3), ['undo rewrite', `restore ${snapshot}`, 'execute fix_b']);
  assert.equal(loop.rag.points, 100, 'the collection is back where it was');
  assert.equal(loop.rag.healthy, true);
  assert.deepEqual(
    loop.lifecycle('inc-u9').filter((s) => s.startsWith('rewrite:')),
    ['rewrite:planned', 'rewrite:started', 'rewrite:failed', 'rewrite:rolled_back'],
    'rolled back exactly once',
  );
  assert.equal((await loop.deps.incidents.get('inc-u9'))?.doc.status, 'recovered');
});
