/**
 * The intake on the real Elasticsearch: exported spans are found again by trace id (a re-sent batch
 * does not double them), the retention purge deletes only what is past the window, and a malformed
 * or oversized export leaves the index untouched. A user's spans (no probe tracestate) go to the user
 * index only, with an e-mail address and a card number in the query stored as placeholders, and are
 * purged on their own, shorter retention.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@elastic/elasticsearch';
import pino from 'pino';
import { ElasticsearchSpanStore, PROBE_TRACESTATE, probeSpansIndex, userSpansIndex, type SpanRecord } from '@rag-immune/traces';
import { endpoints } from '@rag-immune/test-kit/stack';
import { startTraceIntake, type TraceIntake } from '../../src/index.ts';

const prefix = `it-intake-${randomUUID().slice(0, 8)}`;
const es = new Client({ node: endpoints.elasticsearchUrl });
let intake: TraceIntake;

before(async () => {
  intake = await startTraceIntake(
    {
      TRACE_INTAKE_PORT: '0',
      ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
      ES_INDEX_PREFIX: prefix,
      TRACE_INTAKE_MAX_BODY_BYTES: '65536',
    },
    pino({ level: 'silent' }),
  );
});
after(async () => {
  await intake.stop();
  await es.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
  await es.close();
});

// A probe's span (the sentinel's tracestate), unless the test says it is a user's.
const jsonSpan = (traceId: string, spanId: string, parent?: string, origin: 'probe' | 'user' = 'probe') => ({
  traceId,
  spanId,
  ...(origin === 'probe' ? { traceState: PROBE_TRACESTATE } : {}),
  ...(parent ? { parentSpanId: parent } : {}),
  name: 'retrieve',
  kind: 1,
  startTimeUnixNano: `${Date.now()}000000`,
  endTimeUnixNano: `${Date.now() + 5}000000`,
  attributes: [
    { key: 'openinference.span.kind', value: { stringValue: 'RETRIEVER' } },
    { key: 'retrieval.documents.0.document.id', value: { stringValue: 'c1' } },
    { key: 'retrieval.documents.0.document.score', value: { doubleValue: 0.5 } },
  ],
});
const body = (spans: object[]) =>
  JSON.stringify({
    resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'rag' } }] }, scopeSpans: [{ spans }] }],
  });
const post = (payload: string) =>
  fetch(`${intake.url}/v1/traces`, { method: 'POST', body: payload, headers: { 'content-type': 'application/json' } });
const storedCount = async () => {
  await es.indices.refresh({ index: probeSpansIndex(prefix) });
  return (await es.count({ index: probeSpansIndex(prefix) })).count;
};

test('exported spans are stored in Elasticsearch by trace id; sending the batch again does not double them', async () => {
  const traceId = randomUUID().replace(/-/g, '');
  const spans = [jsonSpan(traceId, '1111111111111111'), jsonSpan(traceId, '2222222222222222', '1111111111111111')];
  assert.equal((await post(body(spans))).status, 200);
  assert.equal((await post(body(spans))).status, 200);
  await es.indices.refresh({ index: probeSpansIndex(prefix) });
  const stored: SpanRecord[] = await intake.store.spansOf(traceId);
  assert.deepEqual(stored.map((s) => [s.span_id, s.parent_span_id]).sort(), [
    ['1111111111111111', null],
    ['2222222222222222', '1111111111111111'],
  ]);
  assert.equal(stored[0]!.attributes['retrieval.documents.0.document.score'], 0.5);
  assert.equal(stored[0]!.resource['service.name'], 'rag');
  assert.deepEqual(await intake.store.spansOf('0'.repeat(31) + '1'), []);
});

test('a span once stored is never replaced: a later export re-using its ids changes nothing', async () => {
  const traceId = randomUUID().replace(/-/g, '');
  assert.equal((await post(body([jsonSpan(traceId, '4444444444444444')]))).status, 200);
  const forged = jsonSpan(traceId, '4444444444444444');
  forged.attributes[2] = { key: 'retrieval.documents.0.document.score', value: { doubleValue: 0.01 } };
  assert.equal((await post(body([forged]))).status, 200, 'a re-sent span is accepted as already stored');
  await es.indices.refresh({ index: probeSpansIndex(prefix) });
  const stored = await intake.store.spansOf(traceId);
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.attributes['retrieval.documents.0.document.score'], 0.5, 'the first write stands');
});

test('a malformed or oversized export leaves the index as it was', async () => {
  const before = await storedCount();
  const malformed = await post('{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 42}]}]}]}');
  assert.equal(malformed.status, 400);
  const oversized = await post(
    body(Array.from({ length: 200 }, (_, i) => jsonSpan('ab'.repeat(16), (i + 1).toString(16).padStart(16, '0')))),
  );
  assert.equal(oversized.status, 413);
  assert.equal(await storedCount(), before);
});

test('the retention purge deletes spans received before the window and keeps the rest', async () => {
  const store = new ElasticsearchSpanStore(es, prefix);
  const old = randomUUID().replace(/-/g, '');
  const fresh = randomUUID().replace(/-/g, '');
  const record = (traceId: string): SpanRecord => ({
    trace_state: PROBE_TRACESTATE,
    trace_id: traceId,
    span_id: '3333333333333333',
    parent_span_id: null,
    name: 'chain',
    kind: 'internal',
    start_ms: Date.now(),
    end_ms: Date.now(),
    status: 'unset',
    attributes: { 'openinference.span.kind': 'CHAIN' },
    dropped_attributes_count: 0,
    events: [],
    resource: {},
    scope: { name: '', version: '' },
  });
  await store.write([record(old)], Date.now() - 73 * 3_600_000);
  await store.write([record(fresh)], Date.now());
  await es.indices.refresh({ index: store.index });
  assert.ok((await intake.purge()) >= 1);
  await es.indices.refresh({ index: store.index });
  assert.deepEqual(await store.spansOf(old), []);
  assert.equal((await store.spansOf(fresh)).length, 1);
});

test('a user’s spans go to the user index only, redacted, and leave on the user retention', async () => {
  const traceId = randomUUID().replace(/-/g, '');
  const query = 'my mail is jane.doe@example.org and my card 4111 1111 1111 1111, which openssl is current?';
  const chain = {
    ...jsonSpan(traceId, '4444444444444444', undefined, 'user'),
    name: 'rag.query',
    attributes: [
      { key: 'openinference.span.kind', value: { stringValue: 'CHAIN' } },
      { key: 'input.value', value: { stringValue: query } },
      { key: 'output.value', value: { stringValue: 'openssl 3.0.13 (mailed to jane.doe@example.org)' } },
    ],
  };
  const retriever = {
    ...jsonSpan(traceId, '5555555555555555', '4444444444444444', 'user'),
    attributes: [...jsonSpan(traceId, '5555555555555555').attributes, { key: 'input.value', value: { stringValue: query } }],
  };
  assert.equal((await post(body([chain, retriever]))).status, 200);

  await es.indices.refresh({ index: [probeSpansIndex(prefix), userSpansIndex(prefix)] });
  assert.equal((await es.count({ index: probeSpansIndex(prefix), query: { term: { trace_id: traceId } } })).count, 0);
  const users = new ElasticsearchSpanStore(es, prefix, 'user');
  assert.equal(users.index, userSpansIndex(prefix));
  const stored = await users.spansOf(traceId);
  assert.equal(stored.length, 2);
  const raw = JSON.stringify((await es.search({ index: userSpansIndex(prefix), query: { term: { trace_id: traceId } } })).hits.hits);
  assert.doesNotMatch(raw, /jane\.doe|example\.org|4111/, 'nothing personal reaches Elasticsearch');
  const chainStored = stored.find((s) => s.span_id === '4444444444444444')!;
  assert.equal(chainStored.attributes['input.value'], 'my mail is [email] and my card [card], which openssl is current?');
  assert.equal(chainStored.attributes['output.value'], 'openssl 3.0.13 (mailed to [email])');
  assert.equal(chainStored.resource['service.name'], 'rag');
  assert.equal(stored.find((s) => s.span_id === '5555555555555555')!.attributes['retrieval.documents.0.document.score'], 0.5);

  // The user index has its own retention (24 h by default): a day-old user span goes, a probe span as old stays.
  const dayOld = randomUUID().replace(/-/g, '');
  await users.write([{ ...stored[0]!, trace_id: dayOld }], Date.now() - 25 * 3_600_000);
  const probes = new ElasticsearchSpanStore(es, prefix);
  await probes.write([{ ...stored[0]!, trace_id: dayOld, trace_state: PROBE_TRACESTATE }], Date.now() - 25 * 3_600_000);
  await es.indices.refresh({ index: [probeSpansIndex(prefix), userSpansIndex(prefix)] });
  assert.ok((await intake.purge()) >= 1);
  await es.indices.refresh({ index: [probeSpansIndex(prefix), userSpansIndex(prefix)] });
  assert.deepEqual(await users.spansOf(dayOld), []);
  assert.equal((await probes.spansOf(dayOld)).length, 1);
  assert.equal((await users.spansOf(traceId)).length, 2);
});
