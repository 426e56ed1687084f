/** Default cap on a RAG response body: far above any answer, trace or capability document. */
export const DEFAULT_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

/** The body of a response ran past the cap; the rest was not read (the stream is cancelled). */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly url: string,
    readonly limitBytes: number,
  ) {
    super(`response body from ${url} exceeds ${limitBytes} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * The body as UTF-8 text, read at most `limitBytes` bytes: a broken or hostile RAG streaming an
 * endless body must not grow a worker's heap without bound. A declared Content-Length over the cap
 * is refused before reading anything.
 */
export async function readTextCapped(response: Response, limitBytes: number, url = response.url): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limitBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new ResponseTooLargeError(url, limitBytes);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(url, limitBytes);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
