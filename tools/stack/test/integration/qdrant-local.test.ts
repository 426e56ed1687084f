/**
 * Real round trip through @qdrant/js-client-rest against the stack's running Qdrant, whichever it is:
 * the real server, or qdrant-local (the Qdrant Edge stand-in) where the stack found no binary.
 * QDRANT_URL / QDRANT_API_KEY point it at another server (stackEndpoints reads them). It uses only calls both answer alike
 * (qdrant-contract.test.ts holds the two side by side) and recovers a snapshot by download and
 * upload, which needs no knowledge of the server's file system.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { loadStackConfig, stackEndpoints } from '../../src/index.ts';

const endpoints = stackEndpoints(loadStackConfig());
const url = endpoints.qdrantUrl;
const apiKey = endpoints.qdrantApiKey;
const client = createQdrantClient({ url, apiKey });
const auth: Record<string, string> = apiKey ? { 'api-key': apiKey } : {};
const collection = `it_qdrant_local_${process.pid}_${Date.now()}`;
const DIM = 8;

/** A deterministic unit-ish vector per id, so nearest-neighbour order is predictable. */
function vec(seed: number): number[] {
  return Array.from({ length: DIM }, (_, i) => Math.sin(seed * 7.13 + i * 1.7) + (i === seed % DIM ? 2 : 0));
}

const docs = [
  { id: 1, tenant: 'acme', kind: 'faq', score: 0.9, meta: { lang: 'en' } },
  { id: 2, tenant: 'acme', kind: 'policy', score: 0.4, meta: { lang: 'de' } },
  { id: 3, tenant: 'acme', kind: 'faq', score: 0.2, meta: { lang: 'en' } },
  { id: 4, tenant: 'globex', kind: 'faq', score: 0.8, meta: { lang: 'en' } },
  { id: 5, tenant: 'globex', kind: 'runbook', score: 0.6, meta: { lang: 'fr' } },
  { id: 6, tenant: 'acme', kind: 'runbook', score: 0.7, meta: { lang: 'en' } },
];

async function expectClientError(fn: () => Promise<unknown>, status: number | 'any4xx'): Promise<string> {
  try {
    await fn();
  } catch (error) {
    const e = error as { status?: number; data?: { status?: { error?: unknown } } };
    if (status === 'any4xx') assert.ok(e.status !== undefined && e.status >= 400 && e.status < 500, `status ${e.status}`);
    else assert.equal(e.status, status);
    const message = e.data?.status?.error;
    assert.equal(typeof message, 'string');
    assert.ok((message as string).length > 0);
    return message as string;
  }
  assert.fail('expected the request to fail');
}

test("the stack's Qdrant serves the project's calls through @qdrant/js-client-rest", async (t) => {
  const root = (await fetch(`${url}/`).then((r) => r.json())) as { title: string; version: string };
  assert.match(root.title, /^(qdrant - vector search engine|qdrant-local \(Qdrant Edge stand-in, not a Qdrant server\))$/);
  assert.match(root.version, /^1\.\d+\.\d+$/);
  t.diagnostic(`server at ${url}: ${root.title} ${root.version}`);

  await t.test('collections: create, exists, get, list, 409 on duplicate', async () => {
    assert.equal(await client.collectionExists(collection).then((r) => r.exists), false);
    assert.equal(await client.createCollection(collection, { vectors: { size: DIM, distance: 'Cosine' } }), true);
    assert.equal(await client.collectionExists(collection).then((r) => r.exists), true);
    const list = await client.getCollections();
    assert.ok(list.collections.some((c) => c.name === collection));
    await expectClientError(() => client.createCollection(collection, { vectors: { size: DIM, distance: 'Cosine' } }), 409);
  });

  await t.test('payload indexes and upsert', async () => {
    for (const [field_name, field_schema] of [
      ['tenant', 'keyword'],
      ['score', 'float'],
      ['meta.lang', 'keyword'],
    ] as const) {
      const r = await client.createPayloadIndex(collection, { field_name, field_schema, wait: true });
      assert.equal(r.status, 'completed');
    }
    const r = await client.upsert(collection, {
      wait: true,
      points: docs.map((d) => ({ id: d.id, vector: vec(d.id), payload: { tenant: d.tenant, kind: d.kind, score: d.score, meta: d.meta } })),
    });
    assert.equal(r.status, 'completed');
    const info = await client.getCollection(collection);
    assert.equal(info.status, 'green');
    assert.equal(info.points_count, docs.length);
    assert.deepEqual(info.config.params.vectors, { size: DIM, distance: 'Cosine' });
    assert.equal(info.payload_schema['tenant']?.data_type, 'keyword');
    assert.equal(info.payload_schema['score']?.data_type, 'float');
  });

  await t.test('filtered query: must / should / must_not / range / nested key', async () => {
    const res = await client.query(collection, {
      query: vec(1),
      filter: {
        must: [
          { key: 'tenant', match: { value: 'acme' } },
          { key: 'score', range: { gte: 0.3 } },
        ],
        should: [
          { key: 'kind', match: { any: ['faq', 'runbook'] } },
          { key: 'meta.lang', match: { value: 'de' } },
        ],
        must_not: [{ key: 'kind', match: { value: 'runbook' } }],
      },
      limit: 10,
      with_payload: true,
    });
    // acme & score>=0.3 -> 1, 2, 6; should (faq|runbook|de) keeps all three; must_not runbook drops 6.
    assert.deepEqual(res.points.map((p) => p.id).sort(), [1, 2]);
    assert.equal(res.points[0]?.id, 1, 'the query vector is point 1, so it ranks first');
    assert.ok(Math.abs((res.points[0]?.score ?? 0) - 1) < 1e-5);
    assert.equal((res.points[0]?.payload as { tenant?: string }).tenant, 'acme');

    const ranged = await client.query(collection, {
      query: vec(4),
      filter: { must: [{ key: 'score', range: { gt: 0.2, lt: 0.8 } }] },
      limit: 10,
    });
    assert.deepEqual(ranged.points.map((p) => p.id).sort(), [2, 5, 6]);
    assert.equal(ranged.points[0]?.payload, undefined, 'query returns no payload unless asked, like Qdrant');

    const thresholded = await client.query(collection, { query: vec(3), limit: 10, score_threshold: 0.999 });
    assert.deepEqual(
      thresholded.points.map((p) => p.id),
      [3],
    );

    const paged = await client.query(collection, { query: vec(2), limit: 2, offset: 1 });
    assert.equal(paged.points.length, 2);
    assert.ok(!paged.points.some((p) => p.id === 2), 'offset 1 skips the best match (point 2 itself)');
  });

  await t.test('retrieve, scroll, count', async () => {
    const got = await client.retrieve(collection, { ids: [2, 5, 999], with_payload: true, with_vector: true });
    assert.deepEqual(got.map((p) => p.id).sort(), [2, 5]);
    assert.equal((got[0]?.vector as number[]).length, DIM);

    const page1 = await client.scroll(collection, { limit: 4, filter: { must: [{ key: 'kind', match: { value: 'faq' } }] } });
    assert.deepEqual(
      page1.points.map((p) => p.id),
      [1, 3, 4],
    );
    assert.equal(page1.next_page_offset, null);
    const all1 = await client.scroll(collection, { limit: 4 });
    assert.deepEqual(
      all1.points.map((p) => p.id),
      [1, 2, 3, 4],
    );
    assert.equal(all1.next_page_offset, 5);
    const all2 = await client.scroll(collection, { limit: 4, offset: all1.next_page_offset ?? undefined });
    assert.deepEqual(
      all2.points.map((p) => p.id),
      [5, 6],
    );
    const ordered = await client.scroll(collection, { limit: 3, order_by: { key: 'score', direction: 'desc' } });
    assert.deepEqual(
      ordered.points.map((p) => p.id),
      [1, 4, 6],
    );

    assert.equal((await client.count(collection, { exact: true })).count, 6);
    const c = await client.count(collection, {
      filter: { must_not: [{ key: 'tenant', match: { value: 'acme' } }], must: [{ has_id: [4, 5, 6] }] },
      exact: true,
    });
    assert.equal(c.count, 2);
  });

  await t.test('snapshot create / list / download, change data, recover by upload restores, delete snapshot', async () => {
    const snap = await client.createSnapshot(collection, { wait: true });
    assert.ok(snap, 'snapshot description');
    assert.match(snap.name, /\.snapshot$/);
    assert.match(snap.checksum ?? '', /^[0-9a-f]{64}$/);
    assert.ok(snap.size > 0);
    const listed = await client.listSnapshots(collection);
    assert.ok(listed.some((s) => s.name === snap.name));

    // Change the data: delete by filter, delete by id, upsert a new point and overwrite another.
    await client.delete(collection, { wait: true, filter: { must: [{ key: 'tenant', match: { value: 'globex' } }] } });
    await client.delete(collection, { wait: true, points: [1] });
    await client.upsert(collection, {
      wait: true,
      points: [
        { id: 100, vector: vec(100), payload: { tenant: 'new' } },
        { id: 2, vector: vec(2), payload: { tenant: 'changed' } },
      ],
    });
    assert.equal((await client.count(collection)).count, 4);

    // A location is a URL: a bare snapshot name is refused, by the real server and the stand-in alike.
    const bare = await expectClientError(() => client.recoverSnapshot(collection, { location: snap.name, priority: 'snapshot' }), 400);
    assert.match(bare, /^Format error in JSON body: relative URL without a base: /);
    assert.equal((await client.count(collection)).count, 4, 'the refused recovery changed nothing');

    // Recover by upload: download the archive, send it back (multipart field `snapshot`) with its checksum.
    const download = await fetch(`${url}/collections/${collection}/snapshots/${snap.name}`, { headers: auth });
    assert.equal(download.status, 200);
    const archive = Buffer.from(await download.arrayBuffer());
    assert.equal(createHash('sha256').update(archive).digest('hex'), snap.checksum);
    const upload = (checksum: string) => {
      const form = new FormData();
      form.append('snapshot', new Blob([archive]), snap.name);
      return fetch(`${url}/collections/${collection}/snapshots/upload?priority=snapshot&wait=true&checksum=${checksum}`, {
        method: 'POST',
        headers: auth,
        body: form,
      });
    };
    const refused = await upload('0'.repeat(64));
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as { status: { error: string } }).status.error, /^Checksum mismatch: /);
    assert.equal((await client.count(collection)).count, 4);
    const recovered = await upload(snap.checksum ?? '');
    assert.equal(recovered.status, 200, await recovered.clone().text());
    assert.equal(((await recovered.json()) as { result: unknown }).result, true);
    assert.equal((await client.count(collection)).count, 6);
    const restored = await client.retrieve(collection, { ids: [1, 2, 4, 100], with_payload: true });
    assert.deepEqual(
      restored.map((p) => p.id).sort((a, b) => Number(a) - Number(b)),
      [1, 2, 4],
    );
    assert.equal((restored.find((p) => p.id === 2)?.payload as { tenant?: string }).tenant, 'acme');
    const info = await client.getCollection(collection);
    assert.equal(info.payload_schema['tenant']?.data_type, 'keyword', 'payload indexes come back with the shard');

    // An unknown snapshot: 404 (a download answers it in plain text).
    const missing = await fetch(`${url}/collections/${collection}/snapshots/nope.snapshot`, { headers: auth });
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), 'Not found: Snapshot nope.snapshot not found');
    await expectClientError(() => client.deleteSnapshot(collection, 'nope.snapshot'), 404);

    assert.equal(await client.deleteSnapshot(collection, snap.name), true);
    assert.ok(!(await client.listSnapshots(collection)).some((s) => s.name === snap.name));
  });

  await t.test('bad requests get 4xx with a message', async () => {
    const dim = await expectClientError(() => client.upsert(collection, { wait: true, points: [{ id: 7, vector: [1, 2, 3] }] }), 400);
    assert.match(dim, /dimension/i);
    await expectClientError(() => client.upsert(collection, { wait: true, points: [{ id: 'not-a-uuid', vector: vec(7) }] }), 400);
    // Qdrant answers a filter that fails validation with 422 (a body it cannot parse with 400).
    await expectClientError(() => client.query(collection, { query: vec(1), filter: { must: [{ key: 'tenant' } as never] } }), 422);
    await expectClientError(() => client.getCollection(`${collection}_missing`), 404);
    await expectClientError(() => client.count(`${collection}_missing`, {}), 404);
  });

  await t.test('delete collection', async () => {
    assert.equal(await client.deleteCollection(collection), true);
    assert.equal(await client.collectionExists(collection).then((r) => r.exists), false);
  });
});
