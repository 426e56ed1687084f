/**
 * The index diff on the real Qdrant server, in both payload layouts, against the operator faults the
 * loop injects (test kit's operator-faults: written straight into the collection as an ingest job or a
 * migration would): an untouched online copy shows no change; overwritten vectors, deleted points and
 * swapped document ids each show as what they are, and the swap is not mistaken for lost chunks.
 */
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { endpoints } from '@rag-immune/test-kit/stack';
import { damageVectors, editChunkTextInPlace, swapDocumentIds, type OnlineIndex } from '@rag-immune/test-kit/loop/operator-faults';
import { QdrantIndexDiffer, explainedBy, unexplainedChanges } from '../../src/index-diff/index-evidence.ts';
import { QdrantIndexReader } from '../../src/index-diff/index-reader.ts';
import { indexChanged } from '../../src/index-diff/index-diff.ts';

const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
const run = randomUUID().slice(0, 8);
const DIM = 16;
const IDS = ['changelog/alpha', 'changelog/beta', 'changelog/gamma'];
const PIN = new Date('2026-01-01T00:00:00Z');
const made: string[] = [];
const aliases: string[] = [];

const LAYOUTS = [
  { name: 'reference RAG layout', layout: {}, index: {} },
  {
    name: '@langchain/qdrant layout',
    layout: { metadataKey: 'metadata', contentKey: 'content' },
    index: { metadataPayloadKey: 'metadata', contentPayloadKey: 'content' },
  },
] as const;

function points(layout: (typeof LAYOUTS)[number]) {
  return IDS.flatMap((knowledge_id, k) =>
    [0, 1].map((n) => {
      const metadata = {
        knowledge_id,
        doc_id: `debian-changelog:${knowledge_id.slice(10)}`,
        chunk_id: `debian-changelog:${knowledge_id.slice(10)}@1.${n}#0`,
        version: `1.${n}`,
        valid_from: `2025-0${n + 1}-01T00:00:00.000Z`,
        valid_until: n === 0 ? '2025-02-01T00:00:00.000Z' : null,
        updated_at: '2025-01-01T00:00:00.000Z',
      };
      const text = `${knowledge_id} version 1.${n}`;
      const vector = Array.from({ length: DIM }, (_, d) => Math.cos((k * 2 + n + 1) * (d + 1)));
      const payload = 'metadataKey' in layout.layout ? { metadata, content: text } : { ...metadata, text };
      return { id: randomUUID(), vector, payload };
    }),
  );
}

async function pair(layout: (typeof LAYOUTS)[number], label: string) {
  const names = { online: `it-index-diff-${run}-${label}-online`, baseline: `it-index-diff-${run}-${label}-baseline` };
  const seeded = points(layout);
  for (const name of Object.values(names)) {
    made.push(name);
    await qdrant.createCollection(name, { vectors: { size: DIM, distance: 'Cosine' } });
    await qdrant.upsert(name, { wait: true, points: seeded.map((p) => ({ ...p, id: randomUUID() })) });
  }
  const differ = new QdrantIndexDiffer(
    new QdrantIndexReader(qdrant, names.online, layout.layout),
    new QdrantIndexReader(qdrant, names.baseline, layout.layout),
    PIN,
  );
  const index: OnlineIndex = {
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    collection: names.online,
    ...layout.index,
  };
  return { differ, index };
}

after(async () => {
  for (const alias of aliases)
    await qdrant.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: alias } }] }).catch(() => undefined);
  for (const name of made) await qdrant.deleteCollection(name).catch(() => undefined);
});

for (const layout of LAYOUTS) {
  test(`${layout.name}: untouched, overwritten vectors, deleted points, swapped ids`, async () => {
    const clean = await pair(layout, `${layout.layout === undefined ? 'x' : Object.keys(layout.layout).length}-clean`);
    const none = await clean.differ.diff(IDS);
    assert.ok(none && !indexChanged(none), JSON.stringify(none));
    assert.equal(none.min_vector_cosine !== null && none.min_vector_cosine > 0.999, true);

    const garbage = await pair(layout, `${Object.keys(layout.layout).length}-garbage`);
    await damageVectors(garbage.index, ['changelog/beta'], 'garbage');
    const moved = await garbage.differ.diff(['changelog/beta']);
    assert.deepEqual([moved?.vectors_moved, moved?.missing, moved?.relabelled], [2, 0, 0]);
    // Their text is the baseline's: corruption, not a re-parse.
    assert.deepEqual([moved?.text_reembedded, explainedBy(moved!)], [0, ['vector_index_corruption']]);

    const deleted = await pair(layout, `${Object.keys(layout.layout).length}-deleted`);
    await damageVectors(deleted.index, ['changelog/beta'], 'deleted');
    const gone = await deleted.differ.diff(['changelog/beta']);
    assert.deepEqual([gone?.missing, gone?.vectors_moved, gone?.relabelled], [2, 0, 0]);

    const swapped = await pair(layout, `${Object.keys(layout.layout).length}-swap`);
    await swapDocumentIds(swapped.index, 'changelog/alpha', 'changelog/gamma');
    // Only one of the two ids is in scope, as when a detector names the knowledge that lost its chunks.
    const relabelled = await swapped.differ.diff(['changelog/alpha']);
    assert.deepEqual([relabelled?.relabelled, relabelled?.missing, relabelled?.vectors_moved], [2, 0, 0], JSON.stringify(relabelled));
    assert.ok(
      relabelled?.examples.some((e) => e.kind === 'relabelled' && e.before === 'changelog/alpha' && e.after === 'changelog/gamma'),
      JSON.stringify(relabelled?.examples),
    );

    // A script's find-and-replace on the payload text: vectors intact, no catalogue cause's signature.
    const edited = await pair(layout, `${Object.keys(layout.layout).length}-edited`);
    await editChunkTextInPlace(edited.index, ['changelog/beta']);
    const rewritten = await edited.differ.diff(['changelog/beta']);
    assert.deepEqual([rewritten?.text_changed, rewritten?.missing, rewritten?.vectors_moved], [1, 0, 0], JSON.stringify(rewritten));
    assert.deepEqual([explainedBy(rewritten!), unexplainedChanges(rewritten!)], [[], ['text_changed']]);
    assert.match(rewritten!.examples[0]!.after ?? '', /1\.1-edited/);
  });
}

test('an alias: the diff names the collection it resolved to, and the earlier one once it is repointed', async () => {
  const names = { one: `it-index-diff-${run}-alias-a`, two: `it-index-diff-${run}-alias-b`, alias: `it-index-diff-${run}-alias` };
  const seeded = points(LAYOUTS[0]);
  for (const name of [names.one, names.two]) {
    made.push(name);
    await qdrant.createCollection(name, { vectors: { size: DIM, distance: 'Cosine' } });
    await qdrant.upsert(name, { wait: true, points: seeded.map((p) => ({ ...p, id: randomUUID() })) });
  }
  aliases.push(names.alias);
  await qdrant.updateCollectionAliases({ actions: [{ create_alias: { collection_name: names.one, alias_name: names.alias } }] });
  const differ = new QdrantIndexDiffer(new QdrantIndexReader(qdrant, names.alias), new QdrantIndexReader(qdrant, names.two), PIN);
  const first = await differ.diff(['changelog/alpha']);
  assert.deepEqual(first?.collections, {
    online: names.alias,
    baseline: names.two,
    online_target: names.one,
    baseline_target: null,
    online_target_before: null,
  });
  await qdrant.updateCollectionAliases({
    actions: [{ delete_alias: { alias_name: names.alias } }, { create_alias: { collection_name: names.two, alias_name: names.alias } }],
  });
  const second = await differ.diff(['changelog/alpha']);
  assert.deepEqual([second?.collections?.online_target, second?.collections?.online_target_before], [names.two, names.one]);
});
