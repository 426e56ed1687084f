import assert from 'node:assert/strict';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import express from 'express';
import type { Logger } from 'pino';
import { identifierAuth } from '../../src/worker.ts';

function get(port: number, host: string, authorization?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/incidents', headers: { host, ...(authorization ? { authorization } : {}) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

async function serve(auth: express.RequestHandler) {
  const app = express();
  app.use(auth);
  app.get('/incidents', (_req, res) => void res.json({ incidents: [] }));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('without IDENTIFIER_API_TOKEN the identifier warns once and serves only loopback Host headers; beyond loopback it refuses', async () => {
  const warnings: string[] = [];
  const logger = { warn: (_fields: unknown, message: string) => void warnings.push(message) } as unknown as Logger;
  const api = await serve(identifierAuth({ IDENTIFIER_HOST: '127.0.0.1', IDENTIFIER_API_TOKEN: undefined }, logger));
  try {
    assert.deepEqual(warnings, ['identifier: no IDENTIFIER_API_TOKEN set; protected routes are open on loopback only (development mode)']);
    assert.equal(await get(api.port, `127.0.0.1:${api.port}`), 200);
    assert.equal(await get(api.port, 'rebound.attacker.example'), 403);
  } finally {
    await api.close();
  }
  assert.throws(() => identifierAuth({ IDENTIFIER_HOST: '0.0.0.0', IDENTIFIER_API_TOKEN: undefined }, logger), /IDENTIFIER_API_TOKEN/);
  const token = 'identifier-token-0123456789';
  const guarded = await serve(identifierAuth({ IDENTIFIER_HOST: '0.0.0.0', IDENTIFIER_API_TOKEN: token }, logger));
  try {
    assert.equal(await get(guarded.port, 'identifier.internal'), 401);
    assert.equal(await get(guarded.port, 'identifier.internal', `Bearer ${token}`), 200);
  } finally {
    await guarded.close();
  }
});
