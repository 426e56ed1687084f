import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContendedError, MemoryDocuments, memoryStores, modify, keyword, type IndexSpec } from '../../src/index.ts';
import { documentStoreContract } from '../contract/document-store-contract.ts';

// The twin against the contract on its own (the integration tier runs the same contract against Elasticsearch too).
documentStoreContract({ name: 'memory twin', stores: memoryStores(), indexName: (label) => `unit-${label}` });

test('modify gives up with ContendedError when every write loses to another writer', async () => {
  const spec: IndexSpec = { name: 'contended', mappings: { dynamic: false, properties: { id: keyword } } };
  /** Another writer moves the document between every read and the write that follows it. */
  class Contended extends MemoryDocuments<{ id: string; n: number }> {
    override async get(id: string) {
      const read = await super.get(id);
      if (read) await super.put(id, { ...read.doc, n: read.doc.n + 100 });
      return read;
    }
  }
  const store = new Contended(spec);
  await store.create('a', { id: 'a', n: 0 });
  let calls = 0;
  await assert.rejects(
    modify(store, 'a', (current) => ((calls += 1), { id: 'a', n: (current?.n ?? 0) + 1 }), { attempts: 3 }),
    ContendedError,
  );
  assert.equal(calls, 3);
});

test('opening one index twice gives the same documents, as on a server', async () => {
  const stores = memoryStores();
  const spec: IndexSpec = { name: 'shared', mappings: { properties: {} } };
  await stores.open<{ v: number }>(spec).put('a', { v: 1 });
  assert.deepEqual((await stores.open<{ v: number }>(spec).get('a'))?.doc, { v: 1 });
});
