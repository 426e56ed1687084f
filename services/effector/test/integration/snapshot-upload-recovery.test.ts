/**
 * Recovery by upload on the real Qdrant (a deployment whose snapshots directory the effector cannot
 * name: Qdrant Cloud, another host): the archive streams from the download into the upload, and the
 * collection is back as it was. The effector's temporary directory is made unusable for the call: a
 * pod whose small scratch volume cannot hold the archive still restores (the old download-to-/tmp
 * path failed here before it reached Qdrant).
 */
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { endpoints } from '@rag-immune/test-kit/stack';
import { recoverByUpload } from '../../src/snapshots/snapshot-upload.ts';

const qdrant = createQdrantClient({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey });
const collection = `it-upload-recovery-${randomUUID().slice(0, 8)}`;

after(async () => {
  await qdrant.deleteCollection(collection).catch(() => undefined);
});

test('a snapshot streamed back by upload restores the collection without touching local disk', async () => {
  await qdrant.createCollection(collection, { vectors: { size: 4, distance: 'Cosine' } });
  const ids = Array.from({ length: 200 }, () => randomUUID());
  await qdrant.upsert(collection, { wait: true, points: ids.map((id, i) => ({ id, vector: [1, i, 0, 1], payload: { i } })) });
  const snapshot = await qdrant.createSnapshot(collection, { wait: true });
  assert.ok(snapshot?.name && snapshot.checksum, 'the snapshot has a name and a checksum');
  await qdrant.delete(collection, { wait: true, points: ids.slice(0, 150) });
  assert.equal((await qdrant.count(collection, { exact: true })).count, 50);

  const tmp = process.env.TMPDIR;
  process.env.TMPDIR = `/nonexistent-${randomUUID()}`;
  try {
    await recoverByUpload({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey }, collection, snapshot.name, snapshot.checksum!);
  } finally {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
  }
  assert.equal((await qdrant.count(collection, { exact: true })).count, 200, 'every deleted point is back');

  await assert.rejects(
    recoverByUpload({ url: endpoints.qdrantUrl, apiKey: endpoints.qdrantApiKey }, collection, snapshot.name, '0'.repeat(64)),
    /upload recovery of .* HTTP 4\d\d/,
    'a wrong checksum is refused by Qdrant before anything is replaced',
  );
  assert.equal((await qdrant.count(collection, { exact: true })).count, 200);
});
