import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import type { AliasReindex } from '../../src/repair/alias-reindex.ts';
import { repairRoutes } from '../../src/repair/repair-routes.ts';

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
