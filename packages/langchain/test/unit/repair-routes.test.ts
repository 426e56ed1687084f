import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import type { Capabilities } from '@rag-immune/rag-contract';
import { TargetCollectionError, type AliasReindex } from '../../src/repair/alias-reindex.ts';
import { capabilities, repairRoutes } from '../../src/repair/repair-routes.ts';

const TOKEN = 'repair-routes-unit-test-token';

describe('repair routes: auth before the body, refusals as 4xx', () => {
  let base = '';
  let reindexCalls = 0;
  const server = (() => {
    const app = express();
    const reindex = {
      reindex: () => {
        reindexCalls += 1;
        return Promise.resolve({ points: 3, collection: 'docs-2', previous: 'docs-1' });
      },
    } as unknown as AliasReindex;
    app.use(repairRoutes({ reindex, bearerToken: TOKEN }));
    // The host app's own last-resort handler: anything reaching it would be a 500.
    app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ error: 'internal' });
    });
    return app.listen(0, '127.0.0.1');
  })();
  before(async () => {
    if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });
  after(() => server.close());

  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/repair/reindex`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

  it('an unauthenticated 2 MB body gets 401, not 413 or 500, and nothing runs', async () => {
    const response = await post(JSON.stringify({ knowledge_ids: ['x'.repeat(2 * 1024 * 1024)] }));
    assert.equal(response.status, 401);
    assert.equal(reindexCalls, 0);
  });

  it('an authenticated body over the limit gets 413 with a message', async () => {
    const response = await post(JSON.stringify({ knowledge_ids: ['x'.repeat(200 * 1024)] }), { authorization: `Bearer ${TOKEN}` });
    assert.equal(response.status, 413);
    assert.match(((await response.json()) as { error: string }).error, /too large/);
    assert.equal(reindexCalls, 0);
  });

  it('malformed JSON gets 400, an unsupported encoding 415', async () => {
    const bad = await post('{"knowledge_ids": [', { authorization: `Bearer ${TOKEN}` });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /not valid JSON/);
    const encoded = await post('{}', { authorization: `Bearer ${TOKEN}`, 'content-encoding': 'compress' });
    assert.equal(encoded.status, 415);
  });

  it('a valid authenticated request runs the hook', async () => {
    const response = await post('{}', { authorization: `Bearer ${TOKEN}` });
    assert.equal(response.status, 200);
    assert.equal(reindexCalls, 1);
  });
});

describe('repair routes: blue/green reindex for a caller that switches the alias (contract 1.3.0)', () => {
  let base = '';
  const calls: string[] = [];
  const server = (() => {
    const app = express();
    const reindex = {
      layout: () => Promise.resolve({ alias: 'kb', collection: 'kb--1' }),
      reindex: () => {
        calls.push('reindex');
        return Promise.resolve({ points: 3, collection: 'kb--2', previous: 'kb--1' });
      },
      reindexInto: (target: string) => {
        calls.push(`into ${target}`);
        if (target === 'kb--1') return Promise.reject(new TargetCollectionError('kb--1 exists already'));
        return Promise.resolve({ collection: target, points: 3 });
      },
    } as unknown as AliasReindex;
    app.use(repairRoutes({ reindex }));
    return app.listen(0, '127.0.0.1');
  })();
  before(async () => {
    if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });
  after(() => server.close());
  const post = (body: object) =>
    fetch(`${base}/repair/reindex`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('capabilities name the alias, its live collection and blue/green reindex', async () => {
    const capabilities = (await (await fetch(`${base}/capabilities`)).json()) as Capabilities;
    assert.deepEqual(capabilities.vector_store, { collection: 'kb--1', alias: 'kb', blue_green_reindex: true });
  });

  it('a target_collection is built and reported with its points, and the alias is left to the caller', async () => {
    const response = await post({ target_collection: 'kb--green', knowledge_ids: ['a'] });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { changed: number; detail: Record<string, unknown> };
    assert.equal(body.changed, 3);
    assert.equal(body.detail.points, 3);
    assert.equal(body.detail.collection, 'kb--green');
    assert.equal(body.detail.live_collection, 'kb--1');
    assert.deepEqual(calls, ['into kb--green'], 'no self-switching reindex ran');
  });

  it('a target that exists already is refused with 409, naming it', async () => {
    const response = await post({ target_collection: 'kb--1' });
    assert.equal(response.status, 409);
    assert.match(((await response.json()) as { error: string }).error, /kb--1 exists already/);
  });
});

describe('capabilities without a reindex hook say nothing about a vector store', () => {
  it('has no vector_store', async () => {
    assert.equal((await capabilities({})).vector_store, undefined);
  });
});
