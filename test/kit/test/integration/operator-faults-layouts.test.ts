/**
 * The operator faults write into both payload layouts they meet, on the real Qdrant server: the
 * reference RAG's (chunk fields and `text` at the top) and @langchain/qdrant's (`metadata` and
 * `content`). Each fault must change exactly what it claims, in the layout's own places, and leave
 * a payload the RAG still reads (the LangChain RAG drops a version whose metadata.valid_until has
 * passed; a field written at the top instead would be ignored and the fault would be no fault).
 */
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { endpoints } from '@rag-immune/test-kit/stack';
import { damageVectors, ingestUnpublishedVersion, swapDocumentIds, type OnlineIndex } from '../../src/loop/operator-faults.ts';

const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
const DIM = 8;
const run = randomUUID().slice(0, 8);

interface Chunk {
  knowledge_id: string;
  doc_id: string;
  version: string;
  text: string;
}

const CHUNKS: Chunk[] = [
  { knowledge_id: 'changelog/xz-utils', doc_id: 'debian-changelog:xz-utils', version: '5.4.1-1', text: 'xz-utils 5.4.1-1 fixes a bug.' },
  { knowledge_id: 'changelog/tzdata', doc_id: 'debian-changelog:tzdata', version: '2025b-0', text: 'tzdata 2025b-0 updates zones.' },
];

const LAYOUTS: { name: string; index: Pick<OnlineIndex, 'metadataPayloadKey' | 'contentPayloadKey'> }[] = [
  { name: 'reference RAG (top level, text)', index: {} },
  { name: '@langchain/qdrant (metadata, content)', index: { metadataPayloadKey: 'metadata', contentPayloadKey: 'content' } },
];

const collections: string[] = [];

function payloadFor(layout: OnlineIndex, chunk: Chunk): Record<string, unknown> {
  const metadata = {
    chunk_id: `${chunk.doc_id}@${chunk.version}#0`,
    doc_id: chunk.doc_id,
    knowledge_id: chunk.knowledge_id,
    version: chunk.version,
    valid_from: '2025-01-01T00:00:00.000Z',
    valid_until: null,
    updated_at: '2025-01-01T00:00:00.000Z',
  };
  const text = { [layout.contentPayloadKey ?? 'text']: chunk.text };
  return layout.metadataPayloadKey === undefined ? { ...metadata, ...text } : { [layout.metadataPayloadKey]: metadata, ...text };
}

async function seeded(layout: Pick<OnlineIndex, 'metadataPayloadKey' | 'contentPayloadKey'>): Promise<OnlineIndex> {
  const collection = `it-operator-faults-${run}-${collections.length}`;
  collections.push(collection);
  await qdrant.createCollection(collection, { vectors: { size: DIM, distance: 'Cosine' } });
  const index: OnlineIndex = { qdrantUrl: endpoints.qdrantUrl, qdrantApiKey: endpoints.qdrantApiKey, collection, ...layout };
  await qdrant.upsert(collection, {
    wait: true,
    points: CHUNKS.map((chunk, i) => ({
      id: randomUUID(),
      vector: Array.from({ length: DIM }, (_, d) => (d === i ? 1 : 0.1)),
      payload: payloadFor(index, chunk),
    })),
  });
  return index;
}

async function points(index: OnlineIndex): Promise<{ metadata: Record<string, unknown>; text: string; vector: number[] }[]> {
  const page = await qdrant.scroll(index.collection, { limit: 100, with_payload: true, with_vector: true });
  return page.points.map((p) => {
    const payload = p.payload as Record<string, unknown>;
    const metadata = (index.metadataPayloadKey === undefined ? payload : payload[index.metadataPayloadKey]) as Record<string, unknown>;
    return { metadata, text: payload[index.contentPayloadKey ?? 'text'] as string, vector: p.vector as number[] };
  });
}

before(async () => {
  assert.ok((await fetch(`${endpoints.qdrantUrl}/healthz`)).ok, 'the stack Qdrant is not up: npm run stack -- up');
});

after(async () => {
  for (const collection of collections) await qdrant.deleteCollection(collection).catch(() => undefined);
});

for (const layout of LAYOUTS) {
  test(`unpublished-knowledge: a new version ingested and the current one closed, in the ${layout.name} layout`, async () => {
    const index = await seeded(layout.index);
    const written = await ingestUnpublishedVersion(index, ['changelog/xz-utils']);
    assert.deepEqual(written, ['changelog/xz-utils']);
    const all = await points(index);
    const xz = all.filter((p) => p.metadata.knowledge_id === 'changelog/xz-utils');
    assert.equal(xz.length, 2);
    const leaked = xz.find((p) => p.metadata.version === '5.4.1-1+test1');
    const closed = xz.find((p) => p.metadata.version === '5.4.1-1');
    assert.ok(leaked && closed);
    assert.equal(leaked.metadata.valid_until, null);
    assert.equal(leaked.text, 'xz-utils 5.4.1-1+test1 fixes a bug.');
    assert.equal(leaked.metadata.chunk_id, 'debian-changelog:xz-utils@5.4.1-1+test1#0');
    assert.equal(typeof closed.metadata.valid_until, 'string', 'the current version is closed where the RAG reads its validity');
    assert.equal(closed.metadata.valid_until, leaked.metadata.valid_from);
    assert.deepEqual(leaked.vector, closed.vector);
    // Nothing lands beside the layout's own places (a top-level valid_until the LangChain RAG never reads).
    if (index.metadataPayloadKey !== undefined) {
      const page = await qdrant.scroll(index.collection, { limit: 100, with_payload: true });
      for (const p of page.points) assert.deepEqual(Object.keys(p.payload!).sort(), ['content', 'metadata']);
    }
    // The untouched document keeps its one current version.
    const tz = all.filter((p) => p.metadata.knowledge_id === 'changelog/tzdata');
    assert.deepEqual(
      tz.map((p) => p.metadata.valid_until),
      [null],
    );
    await assert.rejects(ingestUnpublishedVersion(index, ['changelog/absent']), /no current chunks/);
  });

  test(`attribution-swap: two documents' ids exchanged, text and vectors kept, in the ${layout.name} layout`, async () => {
    const index = await seeded(layout.index);
    const before = await points(index);
    assert.deepEqual(await swapDocumentIds(index, 'changelog/xz-utils', 'changelog/tzdata'), ['changelog/tzdata', 'changelog/xz-utils']);
    const swapped = await points(index);
    const byText = (list: typeof before, text: string) => list.find((p) => p.text === text)!;
    const xzText = CHUNKS[0]!.text;
    assert.equal(byText(swapped, xzText).metadata.knowledge_id, 'changelog/tzdata');
    assert.equal(byText(swapped, xzText).metadata.doc_id, 'debian-changelog:tzdata');
    assert.equal(byText(swapped, CHUNKS[1]!.text).metadata.knowledge_id, 'changelog/xz-utils');
    assert.deepEqual(byText(swapped, xzText).vector, byText(before, xzText).vector);
    await assert.rejects(swapDocumentIds(index, 'changelog/xz-utils', 'changelog/absent'), /nothing to swap/);
  });

  test(`vectors-overwritten: the document's points damaged or deleted, in the ${layout.name} layout`, async () => {
    const index = await seeded(layout.index);
    const before = await points(index);
    assert.deepEqual(await damageVectors(index, ['changelog/tzdata'], 'garbage'), ['changelog/tzdata']);
    const after = await points(index);
    const of = (list: typeof before, id: string) => list.find((p) => p.metadata.knowledge_id === id)!;
    assert.notDeepEqual(of(after, 'changelog/tzdata').vector, of(before, 'changelog/tzdata').vector);
    assert.deepEqual(of(after, 'changelog/xz-utils').vector, of(before, 'changelog/xz-utils').vector);
    assert.deepEqual(await damageVectors(index, ['changelog/tzdata'], 'deleted'), ['changelog/tzdata']);
    assert.deepEqual(
      (await points(index)).map((p) => p.metadata.knowledge_id),
      ['changelog/xz-utils'],
    );
  });
}
