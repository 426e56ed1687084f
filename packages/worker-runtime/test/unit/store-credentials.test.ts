import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createElasticsearchClient, createQdrantClient, elasticsearchCredentialsIssue, REDACTED_PATHS } from '../../src/index.ts';

/** A loopback HTTP server that records the headers of every request and answers `body`. */
async function recorder(body: unknown): Promise<{ url: string; seen: IncomingHttpHeaders[]; close: () => Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('the Qdrant client sends its api-key on every request', async () => {
  const server = await recorder({ result: { collections: [] }, status: 'ok', time: 0 });
  try {
    await createQdrantClient({ url: server.url, apiKey: 'qdrant-secret-1' }).getCollections();
    assert.equal(server.seen[0]?.['api-key'], 'qdrant-secret-1');
    await createQdrantClient({ url: server.url }).getCollections();
    assert.equal(server.seen[1]?.['api-key'], undefined, 'no key configured: none sent');
  } finally {
    await server.close();
  }
});

test('the Elasticsearch client sends an API key or basic auth', async () => {
  const server = await recorder({ count: 0 });
  try {
    await createElasticsearchClient({ url: server.url, apiKey: 'ZXM6c2VjcmV0' }).count({ index: 'x' });
    assert.equal(server.seen[0]?.authorization, 'ApiKey ZXM6c2VjcmV0');
    await createElasticsearchClient({ url: server.url, username: 'immune', password: 'es-secret-2' }).count({ index: 'x' });
    assert.equal(server.seen[1]?.authorization, `Basic ${Buffer.from('immune:es-secret-2').toString('base64')}`);
  } finally {
    await server.close();
  }
});

test('credentials that do not go together are refused, naming the variable', () => {
  assert.equal(elasticsearchCredentialsIssue({}), null);
  assert.equal(elasticsearchCredentialsIssue({ ES_API_KEY: 'k' }), null);
  assert.equal(elasticsearchCredentialsIssue({ ES_API_KEY: 'k', ES_USERNAME: 'u', ES_PASSWORD: 'p' })?.key, 'ES_API_KEY');
  assert.equal(elasticsearchCredentialsIssue({ ES_USERNAME: 'u' })?.key, 'ES_PASSWORD');
  assert.equal(elasticsearchCredentialsIssue({ ES_PASSWORD: 'p' })?.key, 'ES_USERNAME');
});

test('store credentials never reach a log line, whether logged as configuration or as client headers', () => {
  let written = '';
  const sink = new Writable({ write: (chunk: Buffer, _enc, done) => void ((written += chunk.toString()), done()) });
  const logger = pino({ redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
  const secrets = ['qdrant-secret-1', 'qdrant-secret-3', 'ZXM6c2VjcmV0', 'es-secret-2'];
  logger.info({ QDRANT_API_KEY: secrets[0], EFFECTOR_QDRANT_API_KEY: secrets[1], ES_API_KEY: secrets[2], ES_PASSWORD: secrets[3] });
  logger.info({ config: { QDRANT_API_KEY: secrets[0], ES_PASSWORD: secrets[3] } });
  logger.info({ request: { headers: { 'api-key': secrets[0] } } });
  for (const secret of secrets) assert.ok(!written.includes(secret), `${secret} logged: ${written}`);
  assert.match(written, /\[redacted\]/);
});
