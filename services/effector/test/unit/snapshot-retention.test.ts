import { test } from 'node:test';
import assert from 'node:assert/strict';
import { snapshotsToPrune } from '../../src/snapshots/snapshot-retention.ts';
import type { SnapshotRecord } from '../../src/snapshots/snapshot-record.ts';

const DAY = 86_400_000;
const now = Date.parse('2026-12-02T00:00:00Z');

function snapshot(id: string, daysAgo: number, status: SnapshotRecord['status'] = 'created'): SnapshotRecord {
  return {
    snapshot_id: id,
    collection: 'rag',
    points_count: 10,
    checksum: null,
    size_bytes: null,
    incident_id: null,
    action_id: `act-${id}`,
    created_at: new Date(now - daysAgo * DAY).toISOString(),
    duration_ms: 1,
    status,
    restored_at: null,
  };
}

const ids = (records: SnapshotRecord[]) => records.map((r) => r.snapshot_id);

test('retention keeps the newest N and everything younger than D days; the rest goes, oldest first', () => {
  const records = [snapshot('s1', 30), snapshot('s2', 20), snapshot('s3', 10), snapshot('s4', 3), snapshot('s5', 1)];
  // keep-last 2 (s5, s4) or within 7 days (s5, s4): s1..s3 go.
  assert.deepEqual(ids(snapshotsToPrune(records, { keepLast: 2, keepWithinDays: 7 }, now, new Set())), ['s1', 's2', 's3']);
  // keep-within 15 days also keeps s3.
  assert.deepEqual(ids(snapshotsToPrune(records, { keepLast: 2, keepWithinDays: 15 }, now, new Set())), ['s1', 's2']);
  // keep-last 4 keeps s2 even though it is old.
  assert.deepEqual(ids(snapshotsToPrune(records, { keepLast: 4, keepWithinDays: 0 }, now, new Set())), ['s1']);
  // Input order does not matter.
  assert.deepEqual(ids(snapshotsToPrune([...records].reverse(), { keepLast: 2, keepWithinDays: 7 }, now, new Set())), ['s1', 's2', 's3']);
});

test('the newest snapshot is always kept, a protected one (action in flight) is kept, deleted ones are not counted', () => {
  const records = [snapshot('old', 40), snapshot('gone', 35, 'deleted'), snapshot('mid', 20, 'restored'), snapshot('new', 9)];
  assert.deepEqual(ids(snapshotsToPrune(records, { keepLast: 1, keepWithinDays: 0 }, now, new Set())), ['old', 'mid']);
  assert.deepEqual(ids(snapshotsToPrune(records, { keepLast: 1, keepWithinDays: 0 }, now, new Set(['old']))), ['mid']);
  // A deleted record takes no keep-last slot: with keep-last 2, 'mid' is the second live one.
  assert.deepEqual(ids(snapshotsToPrune(records, { keepLast: 2, keepWithinDays: 0 }, now, new Set())), ['old']);
  assert.deepEqual(snapshotsToPrune([], { keepLast: 1, keepWithinDays: 0 }, now, new Set()), []);
});
