import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { ElasticsearchProcessedEventStore, FileProcessedEventStore, InMemoryProcessedEventStore } from '../../src/index.ts';

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

test('the shared store as the bus creates it touches Elasticsearch only when used, so a worker starts while it is down', async () => {
  // Nothing listens on port 1: every request is refused at once.
  const client = new Client({ node: 'http://127.0.0.1:1', maxRetries: 0, requestTimeout: 2000 });
  const store = ElasticsearchProcessedEventStore.create({ client, consumerGroup: 'g', purgeIntervalMs: 0 });
  try {
    assert.equal(store.index, 'rag-immune-processed-events');
    // The handler's claim fails (transient: the subscriber retries, the offset stays uncommitted).
    await assert.rejects(store.claim('e1'));
    await assert.rejects(store.claim('e1'));
  } finally {
    store.close();
    await client.close();
  }
});
