import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileProcessedEventStore, InMemoryProcessedEventStore } from '../../src/index.ts';

test('the in-memory store forgets the oldest ids beyond its capacity', async () => {
  const store = new InMemoryProcessedEventStore(2);
  await store.markProcessed('a');
  await store.markProcessed('b');
  await store.markProcessed('c');
  assert.equal(await store.has('a'), false);
  assert.equal(await store.has('c'), true);
});

test('the file store remembers handled ids across a reopen (a restarted worker)', async () => {
  const path = join(await mkdtemp(join(tmpdir(), 'processed-')), 'sub', 'processed.log');
  const first = await FileProcessedEventStore.open(path);
  assert.equal(await first.has('e1'), false);
  await first.markProcessed('e1');
  const reopened = await FileProcessedEventStore.open(path);
  assert.equal(await reopened.has('e1'), true);
  assert.equal(await reopened.has('e2'), false);
});
