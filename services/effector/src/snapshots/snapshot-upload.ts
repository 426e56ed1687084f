import { createWriteStream, openAsBlob } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { QdrantConnection } from '@rag-immune/worker-runtime';

function headers(connection: QdrantConnection): Record<string, string> {
  return connection.apiKey ? { 'api-key': connection.apiKey } : {};
}

async function failure(response: Response, what: string): Promise<Error> {
  const body = await response.text().catch(() => '');
  let reason = body.slice(0, 500);
  try {
    reason = (JSON.parse(body) as { status?: { error?: string } }).status?.error ?? reason;
  } catch {
    // not JSON: the raw text says it
  }
  return new Error(`${what}: HTTP ${response.status}${reason ? `: ${reason}` : ''}`);
}

/**
 * Recovers a collection from one of its own snapshots when the effector cannot name the server's
 * snapshots directory (Qdrant Cloud, a server on another host): the archive is downloaded to a
 * temporary file and uploaded back with `priority=snapshot` and the recorded checksum, which
 * Qdrant verifies before it replaces anything. Streams through disk, never the heap.
 */
export async function recoverByUpload(
  connection: QdrantConnection,
  collection: string,
  snapshotId: string,
  checksum: string,
): Promise<void> {
  const base = connection.url.replace(/\/+$/, '');
  const path = `${base}/collections/${encodeURIComponent(collection)}/snapshots`;
  const signal = AbortSignal.timeout(connection.timeoutMs ?? 600_000);
  const dir = await mkdtemp(join(tmpdir(), 'effector-snapshot-'));
  const file = join(dir, snapshotId);
  try {
    const download = await fetch(`${path}/${encodeURIComponent(snapshotId)}`, { headers: headers(connection), signal });
    if (!download.ok || download.body === null) throw await failure(download, `download of snapshot ${snapshotId}`);
    await pipeline(Readable.fromWeb(download.body as WebReadableStream), createWriteStream(file));
    const form = new FormData();
    form.set('snapshot', await openAsBlob(file), snapshotId);
    const query = new URLSearchParams({ priority: 'snapshot', checksum, wait: 'true' });
    const upload = await fetch(`${path}/upload?${query}`, { method: 'POST', headers: headers(connection), body: form, signal });
    if (!upload.ok) throw await failure(upload, `upload recovery of ${collection} from ${snapshotId}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
