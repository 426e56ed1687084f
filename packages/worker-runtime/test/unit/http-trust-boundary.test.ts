import assert from 'node:assert/strict';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { Registry } from 'prom-client';
import { pino } from 'pino';
import {
  bearerAuth,
  hostOfHostHeader,
  isLoopback,
  NamedTokensEnv,
  parseNamedTokens,
  principalOf,
  workerHttpApp,
  type BearerAuthOptions,
  type Principal,
} from '../../src/index.ts';

const TOKEN = 'shared-token-0123456789abcdef';
const ALICE = 'alice-token-0123456789abcdef';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A raw HTTP call: unlike fetch it may set Host and stream any body. */
function call(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path ?? '/', headers: options.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode ?? 0, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) });
        });
      },
    );
    // The server may answer (401) before reading the whole body; that is the point, not an error.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(options.body);
  });
}

async function serve(auth: Partial<BearerAuthOptions>) {
  const seen: { principal: Principal | undefined; bodyKeys: string[] }[] = [];
  const warnings: string[] = [];
  const app = workerHttpApp({
    worker: 'test-worker',
    registry: new Registry(),
    logger: pino({ level: 'silent' }),
    health: () => ({ ready: true }),
    auth: bearerAuth({
      worker: 'test-worker',
      host: '127.0.0.1',
      token: undefined,
      tokenEnv: 'TEST_API_TOKEN',
      logger: { warn: (_obj: unknown, message?: string) => void warnings.push(String(message)) } as never,
      ...auth,
    }),
    routes: (app) => {
      app.post('/echo', (req, res) => {
        seen.push({ principal: principalOf(res), bodyKeys: Object.keys((req.body as object | undefined) ?? {}) });
        res.json({ ok: true });
      });
    },
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    seen,
    warnings,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

test('loopback is judged on the parsed address, not a 127. prefix', () => {
  for (const host of ['127.0.0.1', '127.255.3.4', '::1', '[::1]', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1', 'localhost', 'LOCALHOST'])
    assert.ok(isLoopback(host), host);
  for (const host of [
    '127.evil.com',
    '127.0.0.1.nip.io',
    '0.0.0.0',
    '::',
    '10.0.0.1',
    '::ffff:10.0.0.1',
    'example.com',
    '',
    '127.1',
    'fe80::1%eth0',
  ])
    assert.ok(!isLoopback(host), host);
  assert.equal(hostOfHostHeader('127.0.0.1:8080'), '127.0.0.1');
  assert.equal(hostOfHostHeader('[::1]:8080'), '::1');
  assert.equal(hostOfHostHeader('localhost'), 'localhost');
  assert.equal(hostOfHostHeader('::1'), null);
  assert.equal(hostOfHostHeader('a@b:1'), null);
});

test('development mode (no token, loopback) serves only loopback Host headers: a DNS-rebinding guard', async () => {
  const worker = await serve({});
  try {
    const json = { 'content-type': 'application/json' };
    for (const host of [`127.0.0.1:${worker.port}`, `localhost:${worker.port}`, `[::1]:${worker.port}`, 'localhost']) {
      assert.equal((await call(worker.port, { method: 'POST', path: '/echo', headers: { ...json, host }, body: '{}' })).status, 200, host);
    }
    for (const host of ['attacker.example', `attacker.example:${worker.port}`, '127.evil.com', '0.0.0.0', '10.1.2.3:80']) {
      const answer = await call(worker.port, { method: 'POST', path: '/echo', headers: { ...json, host }, body: '{}' });
      assert.equal(answer.status, 403, host);
      assert.match(String(answer.body.error), /TEST_API_TOKEN.*development mode/);
    }
    assert.equal(worker.seen.length, 4);
    assert.deepEqual(worker.seen[0]!.principal, { name: 'anonymous', verified: false });
    assert.equal((await call(worker.port, { path: '/healthz', headers: { host: 'attacker.example' } })).status, 200, 'probes stay open');
    assert.equal(worker.warnings.length, 1, 'warned once');
  } finally {
    await worker.close();
  }
});

test('authentication comes before body parsing: 401 unparsed, then 413 and 415 with a message', async () => {
  const worker = await serve({ token: TOKEN });
  try {
    const big = Buffer.from(JSON.stringify({ filler: 'x'.repeat(2 * 1024 * 1024) }));
    const unauthenticated = await call(worker.port, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: big,
    });
    assert.equal(unauthenticated.status, 401);
    const badJson = await call(worker.port, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    });
    assert.equal(badJson.status, 401, 'an unauthenticated body is not even parsed');
    const badEncoding = await call(worker.port, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json', 'content-encoding': 'compress' },
      body: '{}',
    });
    assert.equal(badEncoding.status, 401);

    const auth = { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` };
    const tooLarge = await call(worker.port, { method: 'POST', path: '/echo', headers: auth, body: big });
    assert.equal(tooLarge.status, 413);
    assert.match(String(tooLarge.body.error), /too large/);
    const unsupported = await call(worker.port, {
      method: 'POST',
      path: '/echo',
      headers: { ...auth, 'content-encoding': 'compress' },
      body: '{}',
    });
    assert.equal(unsupported.status, 415);
    assert.match(String(unsupported.body.error), /content-encoding/);
    const gzipped = await call(worker.port, {
      method: 'POST',
      path: '/echo',
      headers: { ...auth, 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ a: 1 })),
    });
    assert.equal(gzipped.status, 200);
    assert.equal((await call(worker.port, { method: 'POST', path: '/echo', headers: auth, body: '{nope' })).status, 400);
    assert.deepEqual(
      worker.seen.map((s) => s.bodyKeys),
      [['a']],
      'only the authenticated, valid body reached the route',
    );
  } finally {
    await worker.close();
  }
});

test('one token per caller: the bearer middleware records who called; the shared token stays unverified', async () => {
  const worker = await serve({ token: TOKEN, tokens: { alice: ALICE } });
  try {
    const post = (token: string) =>
      call(worker.port, {
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: '{}',
      });
    assert.equal((await post(ALICE)).status, 200);
    assert.equal((await post(TOKEN)).status, 200);
    assert.equal((await post('not-a-token-0123456789abcdef')).status, 401);
    assert.deepEqual(
      worker.seen.map((s) => s.principal),
      [
        { name: 'alice', verified: true },
        { name: 'shared-token', verified: false },
      ],
    );
  } finally {
    await worker.close();
  }
});

test('named tokens are validated, and a bad value names the problem without quoting a token', () => {
  assert.deepEqual(parseNamedTokens(`alice:${ALICE}, ci-bot:${TOKEN}\n# comment\n`), { tokens: { alice: ALICE, 'ci-bot': TOKEN } });
  for (const [text, message] of [
    ['', /no name:token/],
    ['alice', /entry 1 is not name:token/],
    ['alice:short-secret', /token of alice must be at least 16/],
    [`alice:${ALICE},alice:${TOKEN}`, /alice appears twice/],
    [`alice:${ALICE},bob:${ALICE}`, /token of bob is also another caller's/],
    [`bad name:${ALICE}`, /entry 1: the name/],
  ] as const) {
    const parsed = NamedTokensEnv.safeParse(text);
    assert.ok(!parsed.success, text);
    const issue = parsed.error.issues[0]!.message;
    assert.match(issue, message);
    assert.ok(!issue.includes(ALICE) && !issue.includes('short-secret'), issue);
  }
});
