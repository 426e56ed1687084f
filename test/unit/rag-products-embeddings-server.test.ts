/**
 * bench/rag-products/embeddings-server.ts: the OpenAI-compatible embeddings endpoint a RAG product
 * (Flowise's OpenAIEmbeddings node, the openai SDK) calls. The SDK asks for `encoding_format: base64`
 * and decodes little-endian float32; a wrong byte order or a float answer to a base64 request gives
 * the product garbage vectors without an error, so the decoding is checked the SDK's way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { embeddingsApp, toBase64 } from '../../bench/rag-products/embeddings-server.ts';

const fake = {
  dimension: 3,
  embed: async (texts: readonly string[]) => texts.map((t, i) => Float32Array.from([t.length, -0.5, i + 0.25])),
};

async function withServer(run: (url: string) => Promise<void>): Promise<void> {
  const server = embeddingsApp(fake).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
  } finally {
    server.close();
  }
}

/** How the openai SDK reads a base64 embedding. */
const decode = (b64: string) => {
  const bytes = Buffer.from(b64, 'base64');
  return Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4));
};

test('toBase64 writes little-endian float32, as the openai SDK decodes it', () => {
  const vector = Float32Array.from([1, -2.5, 0.125]);
  assert.deepEqual(decode(toBase64(vector)), [1, -2.5, 0.125]);
  assert.equal(Buffer.from(toBase64(Float32Array.from([1]))).toString(), 'AACAPw==');
});

test('POST /v1/embeddings answers base64 and float in input order', async () => {
  await withServer(async (url) => {
    const post = (body: unknown) =>
      fetch(`${url}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const b64 = await post({ model: 'x', input: ['ab', 'abcd'], encoding_format: 'base64' });
    assert.equal(b64.status, 200);
    const json = (await b64.json()) as { data: { index: number; embedding: string }[] };
    assert.deepEqual(
      json.data.map((d) => [d.index, decode(d.embedding)]),
      [
        [0, [2, -0.5, 0.25]],
        [1, [4, -0.5, 1.25]],
      ],
    );
    const float = (await (await post({ input: 'abc' })).json()) as { data: { embedding: number[] }[] };
    assert.deepEqual(float.data[0]!.embedding, [3, -0.5, 0.25]);
  });
});

test('bad requests are 400s naming the field', async () => {
  await withServer(async (url) => {
    const post = (body: unknown) =>
      fetch(`${url}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const missing = await post({ model: 'x' });
    assert.equal(missing.status, 400);
    assert.match(((await missing.json()) as { error: { message: string } }).error.message, /^input/);
    const blank = await post({ input: ['ok', '  '] });
    assert.equal(blank.status, 400);
    assert.match(((await blank.json()) as { error: { message: string } }).error.message, /input\.1/);
    const dims = await post({ input: 'ok', dimensions: 1536 });
    assert.equal(dims.status, 400);
    assert.match(((await dims.json()) as { error: { message: string } }).error.message, /dimensions/);
  });
});
