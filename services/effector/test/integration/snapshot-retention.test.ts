/**
 * Snapshot retention against the real stack: an effector keeping only its newest snapshot
 * (EFFECTOR_SNAPSHOT_KEEP_LAST=1, EFFECTOR_SNAPSHOT_KEEP_WITHIN_DAYS=0) repairs two vector-index
 * corruptions of the reference RAG. The second repair's snapshot makes it delete the first one from
 * Qdrant (the archive is gone, the record says when), count it in its metrics, and refuse a rollback
 * that would need it (409, naming the retention settings) while the newest repair stays undoable.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { EffectorWorker } from '../../src/index.ts';
import { sleep } from '@rag-immune/test-kit';
import { fault, injectVectorCorruption, reportFor, startHarness, type Harness } from './harness.ts';

let h: Harness;
let worker: EffectorWorker;

before(async () => {
  // A plain collection (no alias): the index repair writes in place and snapshots first.
  h = await startHarness('ret', 12, { qdrantAlias: false });
  worker = await h.startWorkerReady({ EFFECTOR_SNAPSHOT_KEEP_LAST: '1', EFFECTOR_SNAPSHOT_KEEP_WITHIN_DAYS: '0' });
});

after(async () => {
  await h?.close();
});

/** Injects a vector-index corruption, has the effector repair it, and returns the succeeded action's event. */
async function repairedCorruption(incident: string) {
  try {
    const { affected, probes } = await injectVectorCorruption(h);
    await h.publishReport(reportFor(incident, 'vector_index_corruption', 'vector_index', probes, affected));
    await h.waitFor(
      // A tool that steps aside (the blue/green reindex on a plain collection: policy_denied) is not the outcome.
      (ev) =>
        ev.some(
          (e) =>
            e.incident_id === incident &&
            (['succeeded', 'escalated'].includes(e.status) || (e.status === 'failed' && e.failure?.reason !== 'policy_denied')),
        ),
      120_000,
      `repair of ${incident}`,
    );
    const done = h.events.find((e) => e.incident_id === incident && e.status === 'succeeded');
    assert.ok(
      done?.snapshot_id,
      `${incident} repaired with a snapshot: ${JSON.stringify(h.events.filter((e) => e.incident_id === incident).map((e) => [e.tool, e.status, e.snapshot_id, e.failure?.message]))}`,
    );
    return done;
  } finally {
    await fault(h, 'DELETE', 'vector-index-corruption').catch(() => undefined);
  }
}

interface SnapshotView {
  snapshot_id: string;
  status: string;
  deleted_at?: string | null;
}

test('keep-last 1: the second repair deletes the first snapshot; its rollback is refused by name, the newest stays undoable', async () => {
  const first = await repairedCorruption(`inc-ret-1-${h.run}`);
  const second = await repairedCorruption(`inc-ret-2-${h.run}`);
  assert.notEqual(first.snapshot_id, second.snapshot_id);

  // Pruning runs beside the repair, after the new snapshot is recorded.
  const deadline = Date.now() + 30_000;
  let records: SnapshotView[] = [];
  for (;;) {
    records = (await h.api(worker, 'GET', '/snapshots')).json.snapshots as SnapshotView[];
    if (records.find((r) => r.snapshot_id === first.snapshot_id)?.status === 'deleted') break;
    assert.ok(Date.now() < deadline, `the first snapshot was not deleted: ${JSON.stringify(records)}`);
    await sleep(500);
  }
  const pruned = records.find((r) => r.snapshot_id === first.snapshot_id)!;
  assert.ok(pruned.deleted_at && Date.parse(pruned.deleted_at) > 0, 'the record says when');
  assert.equal(records.find((r) => r.snapshot_id === second.snapshot_id)?.status, 'created');

  // Qdrant itself no longer holds the archive; the newest is still there.
  const archives = (await h.qdrant.listSnapshots(h.collection)).map((s) => s.name);
  assert.ok(!archives.includes(first.snapshot_id!), `${first.snapshot_id} still in Qdrant: ${archives.join(', ')}`);
  assert.ok(archives.includes(second.snapshot_id!), `${second.snapshot_id} missing from Qdrant: ${archives.join(', ')}`);

  const metrics = await (await fetch(`${worker.url}/metrics`)).text();
  assert.match(metrics, /^effector_snapshots_pruned_total 1$/m);

  // A rollback that needs the deleted snapshot is refused before anything is undone, dry run or not.
  for (const dryRun of [true, false]) {
    const refused = await h.api(worker, 'POST', '/rollback', { target: first.action_id, dry_run: dryRun });
    assert.equal(refused.status, 409, JSON.stringify(refused.json));
    assert.match(JSON.stringify(refused.json), /deleted .*by snapshot retention.*EFFECTOR_SNAPSHOT_KEEP_LAST/);
  }
  const bySnapshot = await h.api(worker, 'POST', '/rollback', { target: first.snapshot_id, dry_run: true });
  assert.equal(bySnapshot.status, 409, JSON.stringify(bySnapshot.json));
  const newest = await h.api(worker, 'POST', '/rollback', { target: second.action_id, dry_run: true });
  assert.equal(newest.status, 200, JSON.stringify(newest.json));
});
