import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { workerLogger } from '@rag-immune/worker-runtime';
import { memoryConfigFromEnv } from '../../src/config.ts';
import { MemoryWorker } from '../../src/worker.ts';

/** GET with a chosen Host header (fetch cannot set one). */
function get(port: number, path: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

test('without MEMORY_API_TOKEN the memory follows the shared policy: warns once, serves only loopback Host headers', async () => {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _enc, done) => void (lines.push(chunk.toString()), done()) });
  // Stores on a closed port: the HTTP API starts first and does not need them for this check.
  const config = memoryConfigFromEnv({ MEMORY_PORT: '0', ELASTICSEARCH_URL: 'http://127.0.0.1:9', QDRANT_URL: 'http://127.0.0.1:9' });
  const worker = new MemoryWorker({
    config,
    busConfig: null,
    embedder: { dimension: 4, embed: async (texts) => texts.map(() => new Float32Array(4)) },
    logger: workerLogger('memory', 'test', 'warn', sink),
    tracer: trace.getTracer('test'),
  });
  const { port } = await worker.start();
  try {
    assert.equal(lines.filter((line) => line.includes('no MEMORY_API_TOKEN set')).length, 1, lines.join(''));
    assert.equal(await get(port, '/cases/nope', 'attacker.example'), 403, 'a rebinding Host is refused');
    assert.notEqual(await get(port, '/cases/nope', `127.0.0.1:${port}`), 403, 'a loopback Host is served');
    assert.equal(await get(port, '/healthz', 'attacker.example'), 200, 'probes stay open');
  } finally {
    await worker.stop();
  }
});
