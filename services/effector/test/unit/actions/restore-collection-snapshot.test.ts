import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restoreCollectionSnapshot } from '../../../src/actions/restore-collection-snapshot.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import { fakeContext, snapshotRecord } from '../support/fake-rag-client.ts';

const HOUR = 3_600_000;

test('restore_collection_snapshot plans the newest snapshot taken before the incident window, never a deleted one', async () => {
  const { ctx, snapshots } = fakeContext({ report: { window_start: Date.now() - 2 * HOUR } });
  snapshots.push(
    snapshotRecord('old.snapshot', 30 * HOUR),
    snapshotRecord('newest-before.snapshot', 5 * HOUR),
    snapshotRecord('deleted.snapshot', 3 * HOUR, { status: 'deleted' }),
    snapshotRecord('during-incident.snapshot', 1 * HOUR),
  );
  assert.deepEqual(await restoreCollectionSnapshot.plan(ctx, {}), {
    collection: 'kb',
    snapshot_id: 'newest-before.snapshot',
    checksum: 'sum-newest-before.snapshot',
  });
  assert.deepEqual(restoreCollectionSnapshot.protectedSnapshots?.({ collection: 'kb', snapshot_id: 'newest-before.snapshot' }), [
    'newest-before.snapshot',
  ]);
  const none = fakeContext({ report: { window_start: Date.now() - 2 * HOUR } });
  none.snapshots.push(snapshotRecord('during-incident.snapshot', 1 * HOUR));
  await assert.rejects(restoreCollectionSnapshot.plan(none.ctx, {}), PreconditionError);
});

test('restore_collection_snapshot asks a person before restoring a snapshot older than the limit', async () => {
  const { ctx, snapshots } = fakeContext({ ctx: { restoreMaxSnapshotAgeMs: 24 * HOUR } });
  snapshots.push(snapshotRecord('week.snapshot', 7 * 24 * HOUR), snapshotRecord('hour.snapshot', HOUR));
  assert.match((await restoreCollectionSnapshot.grantReason!(ctx, { collection: 'kb', snapshot_id: 'week.snapshot' }))!, /7\.0 days old/);
  assert.equal(await restoreCollectionSnapshot.grantReason!(ctx, { collection: 'kb', snapshot_id: 'hour.snapshot' }), null);
  assert.match(
    (await restoreCollectionSnapshot.grantReason!(ctx, { collection: 'kb', snapshot_id: 'unknown.snapshot' }))!,
    /not recorded: its age is unknown/,
  );
});

test('restore_collection_snapshot restores the recorded snapshot it planned and refuses an unrecorded one', async () => {
  const { ctx, snapshots, restored, rag } = fakeContext();
  snapshots.push(snapshotRecord('s-1.snapshot', HOUR));
  assert.deepEqual(await restoreCollectionSnapshot.execute(ctx, { collection: 'kb', snapshot_id: 's-1.snapshot' }), {
    detail: { restored: 's-1.snapshot' },
  });
  assert.deepEqual(restored, ['s-1.snapshot']);
  await assert.rejects(restoreCollectionSnapshot.execute(ctx, { collection: 'kb', snapshot_id: 'gone.snapshot' }), PreconditionError);
  assert.deepEqual(restored, ['s-1.snapshot']);
  assert.equal(restoreCollectionSnapshot.touchesQdrant, true, 'the pre-action snapshot is its way back');
  assert.deepEqual(rag.calls, [], 'no call to the RAG');
});
