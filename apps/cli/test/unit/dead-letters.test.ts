import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupDeadLetters, type ParkedLetter } from '../../src/commands/events.ts';

const letter = (group: string, origin: string, failedAt: string, partition = 0): ParkedLetter => ({
  partition,
  offset: String(Math.floor(Math.random() * 1000)),
  reason: 'bad_magic_byte',
  detail: 'magic byte is 7, expected 0',
  origin: { topic: 'rag-sentinel-probes', partition: '3', offset: origin },
  group,
  failedAt,
  bytes: 12,
});

test('a poison message parked by several groups is listed once, with the groups that parked it', () => {
  const listed = groupDeadLetters([
    letter('rag-immune-identifier', '41', '2026-11-30T10:00:02Z'),
    letter('rag-immune-memory', '41', '2026-11-30T10:00:01Z', 2),
    letter('rag-immune-identifier', '42', '2026-11-30T10:00:03Z'),
  ]);
  assert.equal(listed.length, 2);
  assert.deepEqual(
    listed[0]!.groups.map((g) => g.group),
    ['rag-immune-identifier', 'rag-immune-memory'],
  );
  assert.equal(listed[0]!.firstFailedAt, '2026-11-30T10:00:01Z');
  assert.equal(listed[0]!.origin.offset, '41');
  assert.deepEqual(
    listed[1]!.groups.map((g) => g.group),
    ['rag-immune-identifier'],
  );
});
