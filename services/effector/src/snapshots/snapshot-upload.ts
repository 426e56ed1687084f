import { randomUUID } from 'node:crypto';
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
 * snapshots directory (Qdrant Cloud, a server on another host): the archive is streamed from the
 * snapshot download straight into the upload's multipart body, with `priority=snapshot` and the
 * recorded checksum, which Qdrant verifies before it replaces anything. Nothing lands on the
 * effector's disk or heap beyond a few chunks in flight: a pod's small scratch volume (an emptyDir
 * of 256 Mi) never limits the size of a collection it can restore.
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
  const download = await fetch(`${path}/${encodeURIComponent(snapshotId)}`, { headers: headers(connection), signal });
  if (!download.ok || download.body === null) throw await failure(download, `download of snapshot ${snapshotId}`);
  const boundary = `rag-immune-${randomUUID()}`;
  const query = new URLSearchParams({ priority: 'snapshot', checksum, wait: 'true' });
  const upload = await fetch(`${path}/upload?${query}`, {
    method: 'POST',
    headers: { ...headers(connection), 'content-type': `multipart/form-data; boundary=${boundary}` },
    body: multipartFile(boundary, 'snapshot', snapshotId, download.body),
    // A streamed request body (undici): sent as it is read, never buffered whole.
    duplex: 'half',
    signal,
  } as RequestInit);
  if (!upload.ok) throw await failure(upload, `upload recovery of ${collection} from ${snapshotId}`);
}

/** One file part of a multipart/form-data body around a stream, streamed. */
export function multipartFile(
  boundary: string,
  field: string,
  filename: string,
  file: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename.replace(/["\r\n]/g, '_')}"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const reader = file.getReader();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(head);
        return;
      }
      const { done, value } = await reader.read();
      if (done) {
        controller.enqueue(tail);
        controller.close();
      } else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
