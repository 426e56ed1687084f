import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { sentinelHttpApp } from '../../src/http/routes.ts';
import type { Sentinel } from '../../src/sentinel.ts';

const TOKEN = 'sentinel-test-token-0123456789';

async function serve(probeStatus: () => unknown[], apiToken: string | undefined = TOKEN) {
  const lines: string[] = [];
  const logger = pino(
    new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  const sentinel = { isStarted: true, probeStatus } as unknown as Sentinel;
  const server = sentinelHttpApp(sentinel, { registry: new Registry(), logger, host: '127.0.0.1', apiToken }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, lines, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('/probes needs the bearer token; /healthz and /metrics do not', async () => {
  const app = await serve(() => []);
  try {
    assert.equal((await fetch(`${app.url}/probes`)).status, 401);
    assert.equal((await fetch(`${app.url}/probes`, { headers: { authorization: 'Bearer nope' } })).status, 401);
    assert.equal((await fetch(`${app.url}/probes`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
    assert.equal((await fetch(`${app.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${app.url}/metrics`)).status, 200);
  } finally {
    await app.close();
  }
});

test('a failure answers 500 with an error id only; the detail is logged under it', async () => {
  const app = await serve(() => {
    throw new Error('probe store at /var/lib/secret-path is corrupt');
  });
  try {
    const response = await fetch(`${app.url}/probes`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 500);
    const text = await response.text();
    assert.doesNotMatch(text, /secret-path|corrupt|\.ts:/);
    const { error_id: errorId } = JSON.parse(text) as { error_id: string };
    assert.ok(app.lines.some((line) => line.includes(errorId) && line.includes('secret-path')));
  } finally {
    await app.close();
  }
});
