import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdapterFileError, IngestionWebhook, IngestionWebhookClient, IngestionWebhookError } from '../../src/index.ts';

const REQUEST = {
  knowledge_ids: ['apt/curl', 'changelog/acl'],
  sources: ['apt-metadata'],
  incident_id: 'inc 1',
  action_id: 'act-7',
  root_cause: 'parser_bug',
};

/** A fetch that records each call and answers `status` with `body`. */
function recordingFetch(status: number, body: string) {
  const calls: { url: string; init: RequestInit }[] = [];
  const impl = (async (url: string | URL, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    return new Response(body, { status });
  }) as typeof fetch;
  return { calls, impl };
}

const webhook = (patch: Record<string, unknown> = {}) =>
  IngestionWebhook.parse({
    url: 'http://ingest.local/jobs?incident=${incident_id}',
    headers: { authorization: 'Bearer ${env:INGEST_TOKEN}' },
    body: { ids: '${knowledge_ids}', note: 'repair ${action_id} for ${knowledge_ids}', sources: '${sources}' },
    ...patch,
  });

test('the webhook gets the scope as JSON arrays, the ids in a sentence comma-joined, the URL encoded, the idempotency key', async () => {
  const fake = recordingFetch(202, '{"job":"j-1"}');
  const client = new IngestionWebhookClient(webhook(), { INGEST_TOKEN: 'tok-123456' }, fake.impl);
  const result = await client.call(REQUEST, { idempotencyKey: 'act-7' });
  assert.deepEqual(result, { status: 202, body: '{"job":"j-1"}' });
  const [call] = fake.calls;
  assert.equal(call!.url, 'http://ingest.local/jobs?incident=inc%201');
  assert.equal(call!.init.method, 'POST');
  assert.deepEqual(call!.init.headers, {
    'content-type': 'application/json',
    authorization: 'Bearer tok-123456',
    'idempotency-key': 'act-7',
  });
  assert.deepEqual(JSON.parse(String(call!.init.body)), {
    ids: ['apt/curl', 'changelog/acl'],
    note: 'repair act-7 for apt/curl,changelog/acl',
    sources: ['apt-metadata'],
  });
});

test('a refused or unreachable job throws, naming the URL template and never the secret', async () => {
  const echo = recordingFetch(500, 'bad token tok-123456');
  const client = new IngestionWebhookClient(webhook(), { INGEST_TOKEN: 'tok-123456' }, echo.impl);
  await assert.rejects(client.call(REQUEST), (error: unknown) => {
    assert.ok(error instanceof IngestionWebhookError);
    assert.equal(error.status, 500);
    assert.match(error.message, /HTTP 500: bad token \[redacted\]/);
    assert.ok(!error.message.includes('tok-123456'));
    return true;
  });
  const down = new IngestionWebhookClient(webhook(), { INGEST_TOKEN: 'tok-123456' }, (async () => {
    throw new TypeError('fetch failed');
  }) as typeof fetch);
  await assert.rejects(down.call(REQUEST), /ingestion webhook POST http:\/\/ingest\.local\/jobs\?incident=\$\{incident_id\}: unreachable/);
});

test('binding refuses a missing variable or an unknown placeholder, naming the key', () => {
  assert.throws(
    () => new IngestionWebhookClient(webhook(), {}),
    (error: unknown) =>
      error instanceof AdapterFileError &&
      error.issues[0]?.key === 'repair.ingestion.headers.authorization' &&
      /INGEST_TOKEN is not set/.test(error.issues[0].message),
  );
  assert.throws(
    () => new IngestionWebhookClient(webhook({ body: { q: '${query}' } }), { INGEST_TOKEN: 'x' }),
    /repair\.ingestion\.body\.q: unknown placeholder \$\{query\}/,
  );
});
