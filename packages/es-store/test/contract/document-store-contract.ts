/**
 * The contract every DocumentStore keeps, run against the real Elasticsearch and against the
 * in-memory twin by the same code (test/integration/contract.test.ts runs both), so the twin the
 * workers' unit tests lean on cannot drift from the server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DocumentMissingError,
  MappingError,
  date,
  epochMillis,
  integer,
  keyword,
  modify,
  opaque,
  type DocumentStore,
  type DocumentStores,
  type IndexSpec,
} from '../../src/index.ts';

interface Thing {
  id: string;
  status: string;
  tags?: string[];
  n: number;
  at: string;
  at_ms?: number;
  owner?: string | null;
  card?: { status: string; count: number; note?: string };
  free?: string;
  blob?: Record<string, unknown>;
}

export interface ContractSubject {
  /** Which implementation, for test names. */
  name: string;
  stores: DocumentStores;
  /** A name no other run uses (the real server is shared). */
  indexName(label: string): string;
}

const spec = (name: string, dynamic: false | 'strict' = false): IndexSpec => ({
  name,
  refresh: true,
  mappings: {
    dynamic,
    properties: {
      id: keyword,
      status: keyword,
      tags: keyword,
      n: integer,
      at: date,
      at_ms: epochMillis,
      owner: keyword,
      card: { properties: { status: keyword, count: integer, note: keyword } },
      blob: opaque,
    },
  },
});

const thing = (id: string, patch: Partial<Thing> = {}): Thing => ({ id, status: 'open', n: 0, at: '2026-01-01T00:00:00.000Z', ...patch });

export function documentStoreContract(subject: ContractSubject): void {
  const open = async (label: string, dynamic: false | 'strict' = false): Promise<DocumentStore<Thing>> => {
    const store = subject.stores.open<Thing>(spec(subject.indexName(label), dynamic));
    await store.ensureIndex();
    await store.ensureIndex(); // a second bootstrap is harmless
    return store;
  };
  const t = (name: string, fn: () => Promise<void>) => test(`[${subject.name}] ${name}`, fn);

  t('create is create-only: the first creator wins, a second gets null and changes nothing', async () => {
    const store = await open('create');
    assert.equal(await store.get('a'), null);
    const first = await store.create('a', thing('a', { n: 1 }));
    assert.ok(first);
    assert.equal(first.doc.n, 1);
    assert.equal(await store.create('a', thing('a', { n: 2 })), null);
    assert.equal((await store.get('a'))?.doc.n, 1);
    assert.deepEqual(
      await store.createMany([
        { id: 'a', doc: thing('a') },
        { id: 'b', doc: thing('b') },
      ]),
      ['exists', 'created'],
    );
  });

  t('replace is compare-and-set: the current version wins, a stale one or a create over an existing document gets null', async () => {
    const store = await open('cas');
    const v1 = (await store.create('a', thing('a')))!;
    const v2 = await store.replace('a', thing('a', { n: 2 }), v1);
    assert.ok(v2);
    assert.ok(v2.seqNo > v1.seqNo);
    assert.equal(await store.replace('a', thing('a', { n: 3 }), v1), null, 'stale basis');
    assert.equal(await store.replace('a', thing('a', { n: 4 }), null), null, 'create over an existing document');
    assert.equal((await store.get('a'))?.doc.n, 2);
    assert.deepEqual(await store.get('a'), { doc: thing('a', { n: 2 }), seqNo: v2.seqNo, primaryTerm: v2.primaryTerm });
    assert.ok(await store.replace('new', thing('new'), null), 'basis null creates');
  });

  t('two writers from the same read: exactly one compare-and-set wins', async () => {
    const store = await open('race');
    const base = (await store.create('a', thing('a')))!;
    const results = await Promise.all([1, 2, 3].map((n) => store.replace('a', thing('a', { n }), base)));
    assert.equal(results.filter((r) => r !== null).length, 1);
  });

  t('modify re-reads and re-applies on conflict: concurrent increments all land; undefined writes nothing', async () => {
    const store = await open('modify');
    await store.create('counter', thing('counter'));
    const bump = (current: Thing | null) => ({ ...(current ?? thing('counter')), n: (current?.n ?? 0) + 1 });
    await Promise.all(Array.from({ length: 5 }, () => modify(store, 'counter', bump, { attempts: 20 })));
    assert.equal((await store.get('counter'))?.doc.n, 5);
    const before = await store.get('counter');
    assert.deepEqual(await modify(store, 'counter', () => undefined), before);
  });

  t('put overwrites whatever is there; patch merges objects into the stored ones; patching nothing is an error', async () => {
    const store = await open('patch');
    await store.put('a', thing('a', { n: 1, card: { status: 'active', count: 1, note: 'x' } }));
    await store.put('a', thing('a', { n: 2, card: { status: 'active', count: 1, note: 'x' } }));
    await store.patch('a', { status: 'closed', card: { count: 7 } as Thing['card'] });
    const doc = (await store.get('a'))?.doc;
    assert.equal(doc?.n, 2);
    assert.equal(doc?.status, 'closed');
    assert.deepEqual(doc?.card, { status: 'active', count: 7, note: 'x' });
    await assert.rejects(store.patch('missing', { status: 'x' }), DocumentMissingError);
  });

  t('delete: a stale basis or an absent document deletes nothing; deleteMany counts what existed', async () => {
    const store = await open('delete');
    const v1 = (await store.create('a', thing('a')))!;
    await store.replace('a', thing('a', { n: 1 }), v1);
    assert.equal(await store.delete('a', v1), false);
    assert.ok(await store.get('a'));
    assert.equal(await store.delete('a'), true);
    assert.equal(await store.get('a'), null);
    assert.equal(await store.delete('a'), false);
    await store.createMany([
      { id: 'x', doc: thing('x') },
      { id: 'y', doc: thing('y') },
    ]);
    assert.equal(await store.deleteMany(['x', 'y', 'z']), 2);
    assert.equal(await store.count(), 0);
  });

  t('getMany returns the documents that exist, in the order asked', async () => {
    const store = await open('mget');
    await store.createMany(['a', 'b', 'c'].map((id) => ({ id, doc: thing(id) })));
    assert.deepEqual(
      (await store.getMany(['c', 'missing', 'a'])).map((v) => v.id),
      ['c', 'a'],
    );
    assert.deepEqual(await store.getMany([]), []);
  });

  t(
    'find: term, terms, ranges over numbers and dates, array fields, whereNot, nested fields; sort with ties and missing values; size and from',
    async () => {
      const store = await open('find');
      await store.createMany([
        { id: 'a', doc: thing('a', { status: 'open', n: 1, at: '2026-01-01T00:00:00.000Z', at_ms: 1000, tags: ['x', 'y'], owner: 'r1' }) },
        { id: 'b', doc: thing('b', { status: 'closed', n: 2, at: '2026-01-02T00:00:00.000Z', at_ms: 2000, tags: ['y'] }) },
        {
          id: 'c',
          doc: thing('c', { status: 'open', n: 3, at: '2026-01-03T00:00:00.000Z', at_ms: 3000, card: { status: 'active', count: 1 } }),
        },
        { id: 'd', doc: thing('d', { status: 'failed', n: 3, at: '2026-01-04T00:00:00.000Z', owner: null }) },
      ]);
      await store.refresh();
      const ids = async (options: Parameters<DocumentStore<Thing>['find']>[0]) => (await store.find(options)).map((v) => v.id);
      assert.deepEqual(await ids({ where: { status: 'open' }, sort: [{ n: 'asc' }] }), ['a', 'c']);
      assert.deepEqual(await ids({ where: { status: ['open', 'failed'] }, sort: [{ n: 'desc' }, { id: 'asc' }] }), ['c', 'd', 'a']);
      assert.deepEqual(await ids({ where: { n: { gte: 2, lt: 3 } } }), ['b']);
      assert.deepEqual(await ids({ where: { at: { gte: '2026-01-02T00:00:00.000Z' } }, sort: [{ at: 'asc' }] }), ['b', 'c', 'd']);
      assert.deepEqual(await ids({ where: { at_ms: { lte: 2000 } }, sort: [{ at_ms: 'desc' }] }), ['b', 'a']);
      assert.deepEqual(await ids({ where: { tags: 'y' }, sort: [{ id: 'asc' }] }), ['a', 'b']);
      assert.deepEqual(await ids({ whereNot: { status: 'open' }, sort: [{ id: 'asc' }] }), ['b', 'd']);
      assert.deepEqual(await ids({ where: { 'card.status': 'active' } }), ['c']);
      assert.deepEqual(await ids({ where: { owner: 'r1' } }), ['a']);
      // Missing (and null) values sort last both ways.
      assert.deepEqual(await ids({ sort: [{ at_ms: 'asc' }, { id: 'asc' }] }), ['a', 'b', 'c', 'd']);
      assert.deepEqual(await ids({ sort: [{ at_ms: 'desc' }, { id: 'asc' }] }), ['c', 'b', 'a', 'd']);
      assert.deepEqual(await ids({ sort: [{ owner: 'asc' }, { id: 'desc' }] }), ['a', 'd', 'c', 'b']);
      assert.deepEqual(await ids({ sort: [{ id: 'asc' }], size: 2, from: 1 }), ['b', 'c']);
      const page = await store.page({ where: { status: ['open', 'closed'] }, sort: [{ id: 'desc' }], size: 2, from: 1, timeoutMs: 5000 });
      assert.deepEqual({ total: page.total, ids: page.hits.map((v) => v.id) }, { total: 3, ids: ['b', 'a'] });
      assert.equal(await store.count({ where: { status: 'open' } }), 2);
      assert.equal(await store.count(), 4);
      assert.deepEqual(await store.countBy('status'), { open: 2, closed: 1, failed: 1 });
      const found = (await store.find({ where: { status: 'closed' } }))[0]!;
      assert.deepEqual(await store.get('b'), { doc: found.doc, seqNo: found.seqNo, primaryTerm: found.primaryTerm });
    },
  );

  t('scan pages through every match in sort order', async () => {
    const store = await open('scan');
    await store.createMany(Array.from({ length: 7 }, (_, i) => ({ id: `s${i}`, doc: thing(`s${i}`, { n: 6 - i }) })));
    await store.refresh();
    const seen: string[] = [];
    for await (const v of store.scan({ where: { status: 'open' }, sort: [{ n: 'asc' }, { id: 'asc' }], pageSize: 3 })) seen.push(v.id);
    assert.deepEqual(seen, ['s6', 's5', 's4', 's3', 's2', 's1', 's0']);
  });

  t('a field the mapping does not index cannot be searched on; an opaque object keeps any shape', async () => {
    const store = await open('unmapped');
    await store.create('a', thing('a', { free: 'hello', blob: { deep: { any: [1, 'two'] } } }));
    await store.refresh();
    assert.deepEqual(await store.find({ where: { free: 'hello' } }), []);
    assert.equal((await store.find({ whereNot: { free: 'hello' } })).length, 1);
    assert.deepEqual((await store.get('a'))?.doc.blob, { deep: { any: [1, 'two'] } });
  });

  t('a strict mapping refuses a document with an undeclared field, in every kind of write', async () => {
    const store = await open('strict', 'strict');
    await assert.rejects(store.create('a', { ...thing('a'), free: 'no' }), MappingError);
    await assert.rejects(store.put('a', { ...thing('a'), free: 'no' }), MappingError);
    await assert.rejects(store.createMany([{ id: 'a', doc: { ...thing('a'), free: 'no' } }]), MappingError);
    assert.ok(await store.create('a', thing('a', { blob: { anything: true } })));
  });

  t('reading a document never hands out the stored copy', async () => {
    const store = await open('copies');
    const doc = thing('a', { tags: ['x'] });
    await store.create('a', doc);
    doc.tags!.push('mutated');
    const read = (await store.get('a'))!.doc;
    read.tags!.push('mutated too');
    assert.deepEqual((await store.get('a'))?.doc.tags, ['x']);
  });

  t('finds on an index never written return nothing; count is 0', async () => {
    const store = subject.stores.open<Thing>(spec(subject.indexName('never')));
    assert.deepEqual(await store.find({}), []);
    assert.equal(await store.count(), 0);
  });
}
