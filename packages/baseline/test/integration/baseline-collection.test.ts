/**
 * The baseline copy on the real Qdrant server, in both payload layouts the project meets (the
 * reference RAG's chunk fields at the top, @langchain/qdrant's `metadata`/`content`): every point
 * copied with its id, vector and payload, the payload indexes kept, the record in the collection's
 * metadata, the alias created; a refresh needs a reason, copies the changed source and moves the
 * alias atomically, keeping the previous copy.
 */
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { endpoints } from '@rag-immune/test-kit/stack';
import { BaselineError, createBaseline, describeBaseline, refreshBaseline } from '../../src/index.ts';

const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
const run = randomUUID().slice(0, 8);
const DIM = 8;
const created: string[] = [];

const vector = (i: number) => Array.from({ length: DIM }, (_, d) => Math.sin(i * 7 + d));
const LAYOUTS = [
  { name: 'reference RAG layout', payload: (i: number) => ({ knowledge_id: `changelog/p${i}`, version: `1.${i}`, text: `p${i} 1.${i}` }) },
  {
    name: '@langchain/qdrant layout',
    payload: (i: number) => ({ metadata: { knowledge_id: `changelog/p${i}`, version: `1.${i}` }, content: `p${i} 1.${i}` }),
  },
];

async function allPoints(collection: string) {
  const out = await qdrant.scroll(collection, { limit: 1000, with_payload: true, with_vector: true });
  return new Map(out.points.map((p) => [String(p.id), { vector: p.vector, payload: p.payload }]));
}

after(async () => {
  const { aliases } = await qdrant.getAliases();
  for (const a of aliases.filter((a) => a.alias_name.includes(run))) {
    await qdrant.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: a.alias_name } }] });
  }
  const { collections } = await qdrant.getCollections();
  for (const c of collections.filter((c) => c.name.includes(run))) await qdrant.deleteCollection(c.name);
  void created;
});

for (const [n, layout] of LAYOUTS.entries()) {
  test(`${layout.name}: create copies every point behind a new alias; refresh needs a reason and moves it`, async () => {
    const physical = `it-baseline-src-${run}-${n}`;
    const ragAlias = `it-baseline-rag-${run}-${n}`;
    await qdrant.createCollection(physical, { vectors: { size: DIM, distance: 'Cosine' } });
    await qdrant.createPayloadIndex(physical, {
      field_name: n === 0 ? 'knowledge_id' : 'metadata.knowledge_id',
      field_schema: 'keyword',
      wait: true,
    });
    await qdrant.updateCollectionAliases({ actions: [{ create_alias: { collection_name: physical, alias_name: ragAlias } }] });
    // More points than one scroll page, so that paging is exercised.
    const points = Array.from({ length: 300 }, (_, i) => ({ id: randomUUID(), vector: vector(i), payload: layout.payload(i) }));
    await qdrant.upsert(physical, { wait: true, points });

    let t = Date.parse('2026-12-06T05:00:00Z');
    const now = () => new Date((t += 60_000));
    const record = await createBaseline({ qdrant, source: ragAlias, actor: 'it', reason: 'first baseline', now, batchSize: 128 });
    assert.equal(record.alias, `${ragAlias}-baseline`);
    assert.equal(record.source_collection, physical);
    assert.equal(record.source_alias, ragAlias);
    assert.equal(record.points, 300);

    const source = await allPoints(physical);
    const copy = await allPoints(record.alias);
    assert.equal(copy.size, 300);
    for (const [id, point] of source) assert.deepEqual(copy.get(id), point, `point ${id} copied as it is`);
    const info = await qdrant.getCollection(record.collection);
    assert.deepEqual(Object.keys(info.payload_schema ?? {}), Object.keys((await qdrant.getCollection(physical)).payload_schema ?? {}));
    assert.deepEqual(await describeBaseline(qdrant, record.alias), record);

    await assert.rejects(
      createBaseline({ qdrant, source: ragAlias, actor: 'it', reason: 'again', now }),
      (e: unknown) => e instanceof BaselineError && /exists already/.test(e.message),
    );
    await assert.rejects(refreshBaseline({ qdrant, source: ragAlias, actor: 'it', reason: '  ', now }), /needs a reason/);

    // An intended knowledge update on the RAG's side, then the refresh.
    await qdrant.upsert(physical, { wait: true, points: [{ id: randomUUID(), vector: vector(999), payload: layout.payload(999) }] });
    const refreshed = await refreshBaseline({ qdrant, source: ragAlias, actor: 'it', reason: 'bookworm point release ingested', now });
    assert.equal(refreshed.previous, record.collection);
    assert.equal(refreshed.points, 301);
    assert.equal((await qdrant.count(refreshed.alias, { exact: true })).count, 301, 'the alias reads the new copy');
    assert.equal((await qdrant.count(record.collection, { exact: true })).count, 300, 'the previous copy is kept');
    assert.equal((await describeBaseline(qdrant, refreshed.alias))?.reason, 'bookworm point release ingested');
  });
}

test('a source that does not exist is refused by name', async () => {
  await assert.rejects(
    createBaseline({ qdrant, source: `it-baseline-missing-${run}`, actor: 'it', reason: 'x' }),
    new RegExp(`no collection or alias named it-baseline-missing-${run}`),
  );
});
