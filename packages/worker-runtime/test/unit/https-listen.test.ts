import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { httpTlsConfig, listen, listening, workerHttpApp, WorkerConfigError } from '../../src/index.ts';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const OPENSSL = hasOpenssl();
const dir = mkdtempSync(join(tmpdir(), 'worker-runtime-tls-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function app() {
  return workerHttpApp({
    worker: 'test-worker',
    registry: new Registry(),
    logger: pino({ level: 'silent' }),
    health: () => ({ ready: true }),
    routes: () => {},
  });
}

function started(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    if (server.listening) resolve((server.address() as AddressInfo).port);
    server.once('listening', () => resolve((server.address() as AddressInfo).port));
    server.once('error', reject);
  });
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

test('without HTTP_TLS_* the helper serves plain HTTP, as before', async () => {
  const server = listen(app(), { worker: 'test-worker', port: 0, host: '127.0.0.1', env: {} });
  const port = await started(server);
  try {
    const status = await new Promise<number>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/healthz' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    assert.equal(status, 200);
  } finally {
    await close(server);
  }
});

test('a certificate without its key refuses to start, naming HTTP_TLS_KEY_FILE', () => {
  assert.throws(
    () => httpTlsConfig('test-worker', { HTTP_TLS_CERT_FILE: '/etc/tls/tls.crt' }),
    (error: unknown) => error instanceof WorkerConfigError && /HTTP_TLS_KEY_FILE: is required/.test(error.message),
  );
  assert.throws(
    () => listen(app(), { worker: 'test-worker', port: 0, host: '127.0.0.1', env: { HTTP_TLS_KEY_FILE: '/etc/tls/tls.key' } }),
    /HTTP_TLS_CERT_FILE: is required/,
  );
  assert.throws(() => httpTlsConfig('test-worker', { HTTP_TLS_CLIENT_CA_FILE: '/etc/tls/ca.crt' }), /HTTP_TLS_CERT_FILE/);
});

test(
  'with HTTP_TLS_CERT_FILE and HTTP_TLS_KEY_FILE the helper serves /healthz over HTTPS',
  { skip: OPENSSL ? false : 'openssl is not installed: cannot generate the self-signed test certificate' },
  async () => {
    const cert = join(dir, 'c');
    const key = join(dir, 'k');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    let listened = false;
    const server = listen(app(), {
      worker: 'test-worker',
      port: 0,
      host: '127.0.0.1',
      env: { HTTP_TLS_CERT_FILE: cert, HTTP_TLS_KEY_FILE: key },
      callback: (error) => {
        assert.equal(error, undefined);
        listened = true;
      },
    });
    const port = await started(server);
    try {
      const { status, body, encrypted } = await new Promise<{ status: number; body: string; encrypted: boolean }>((resolve, reject) => {
        httpsRequest({ host: '127.0.0.1', port, path: '/healthz', servername: 'localhost', ca: readFileSync(cert) }, (res) => {
          let text = '';
          const tlsSocket = 'encrypted' in res.socket && res.socket.encrypted === true;
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, encrypted: tlsSocket }));
        })
          .on('error', reject)
          .end();
      });
      assert.equal(status, 200);
      assert.equal(encrypted, true);
      assert.match(body, /ok|ready|status/i);
      assert.equal(listened, true);
      // Plain HTTP to the HTTPS port gets no answer from the app.
      const plain = await new Promise<number | string>((resolve) => {
        httpRequest({ host: '127.0.0.1', port, path: '/healthz' }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', (error) => resolve(error.message))
          .end();
      });
      assert.notEqual(plain, 200);
    } finally {
      await close(server);
    }
  },
);

test('listening: the server once it listens; a port already taken rejects with the error instead of a server with no address', async () => {
  const first = await listening(app(), { worker: 'test-worker', port: 0, host: '127.0.0.1', env: {} });
  try {
    const port = (first.address() as AddressInfo).port;
    assert.ok(port > 0);
    await assert.rejects(listening(app(), { worker: 'test-worker', port, host: '127.0.0.1', env: {} }), /EADDRINUSE/);
  } finally {
    first.close();
  }
});
