/**
 * Bad input loses nothing and stores nothing: a malformed or oversized OTLP body gets a 4xx with a
 * message; a span with invalid ids is refused alone (OTLP partial success); a store outage is a 503
 * the exporter retries; without the bearer token nothing is read.
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { ExportTraceServiceRequest, ExportTraceServiceResponse, InMemorySpanStore, type SpanStore } from '@rag-immune/traces';
import { startTraceIntake, type TraceIntake } from '../../src/index.ts';

const TOKEN = 'intake-test-token-0123456789';
const logger = pino({ level: 'silent' });
const store = new InMemorySpanStore();
let intake: TraceIntake;

before(async () => {
  intake = await startTraceIntake({ TRACE_INTAKE_PORT: '0', TRACE_INTAKE_API_TOKEN: TOKEN, TRACE_INTAKE_MAX_BODY_BYTES: '4096' }, logger, {
    store,
  });
});
after(() => intake.stop());

// Probe spans (the sentinel's tracestate): they land in `store`, the probe store.
const span = (traceId: string, spanId: string, kind = 'RETRIEVER') => ({
  traceId,
  spanId,
  traceState: 'rag-immune=probe',
  name: 'retrieve',
  kind: 1,
  startTimeUnixNano: '1717200000000000000',
  endTimeUnixNano: '1717200000100000000',
  attributes: [{ key: 'openinference.span.kind', value: { stringValue: kind } }],
});
const exportOf = (spans: ReturnType<typeof span>[]) => ({
  resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }],
});

async function post(
  body: string | Buffer,
  headers: Record<string, string>,
): Promise<{
  status: number;
  json: { error?: string; partialSuccess?: { rejectedSpans?: string; errorMessage?: string } };
  raw: ArrayBuffer;
}> {
  const response = await fetch(`${intake.url}/v1/traces`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${TOKEN}`, ...headers },
  });
  const raw = await response.arrayBuffer();
  let json = {};
  try {
    json = JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch {
    /* a protobuf answer */
  }
  return { status: response.status, json, raw };
}

test('a protobuf body that is not an ExportTraceServiceRequest is a 400 naming the problem, and nothing is stored', async () => {
  const { status, json } = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'content-type': 'application/x-protobuf' });
  assert.equal(status, 400);
  assert.match(json.error!, /not an OTLP ExportTraceServiceRequest in protobuf/);
  assert.equal(store.size, 0);
});

test('JSON of the wrong shape, and JSON that does not parse, are 400s with a message', async () => {
  const wrong = await post(JSON.stringify({ resourceSpans: [{ scopeSpans: 'spans' }] }), { 'content-type': 'application/json' });
  assert.equal(wrong.status, 400);
  assert.match(wrong.json.error!, /scopeSpans: array expected/);
  const badHex = await post(JSON.stringify(exportOf([span('zz'.repeat(16), '11'.repeat(8))])), { 'content-type': 'application/json' });
  assert.equal(badHex.status, 400);
  assert.match(badHex.json.error!, /traceId .* is not hex/);
  const unparsable = await post('{"resourceSpans": [', { 'content-type': 'application/json' });
  assert.equal(unparsable.status, 400);
  assert.match(unparsable.json.error!, /not valid JSON/);
  assert.equal(store.size, 0);
});

test('a body over the limit is a 413, compressed or not, and nothing is stored', async () => {
  const big = exportOf(Array.from({ length: 60 }, (_, i) => span('ab'.repeat(16), (i + 1).toString(16).padStart(16, '0'))));
  const protobuf = ExportTraceServiceRequest.encode(
    ExportTraceServiceRequest.fromObject({
      resourceSpans: big.resourceSpans.map((rs) => ({
        scopeSpans: rs.scopeSpans.map((ss) => ({
          spans: ss.spans.map((s) => ({ ...s, traceId: Buffer.from(s.traceId, 'hex'), spanId: Buffer.from(s.spanId, 'hex') })),
        })),
      })),
    }),
  ).finish();
  assert.ok(protobuf.length > 4096);
  const plain = await post(Buffer.from(protobuf), { 'content-type': 'application/x-protobuf' });
  assert.equal(plain.status, 413);
  assert.match(plain.json.error!, /too large: the limit is 4096 bytes/);
  // Small on the wire, large once inflated: the limit is on the decompressed body.
  const gzipped = gzipSync(JSON.stringify(big));
  assert.ok(gzipped.length < 4096);
  const inflated = await post(gzipped, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  assert.equal(inflated.status, 413);
  assert.equal(store.size, 0);
});

test('an unsupported content type is a 415; a missing or wrong token a 401', async () => {
  const text = await post('spans', { 'content-type': 'text/plain' });
  assert.equal(text.status, 415);
  assert.match(text.json.error!, /application\/x-protobuf or application\/json/);
  const anonymous = await fetch(`${intake.url}/v1/traces`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  assert.equal(anonymous.status, 401);
  const wrong = await fetch(`${intake.url}/v1/traces`, {
    method: 'POST',
    body: '{}',
    headers: { 'content-type': 'application/json', authorization: 'Bearer not-the-token-at-all' },
  });
  assert.equal(wrong.status, 401);
  assert.equal(store.size, 0);
});

test('a span with an invalid id is refused alone (partial success); the others are stored', async () => {
  const traceId = 'cd'.repeat(16);
  const { status, json } = await post(
    JSON.stringify(exportOf([span(traceId, '01'.repeat(8)), span(traceId, '00'.repeat(8)), span(traceId, 'abcd')])),
    { 'content-type': 'application/json' },
  );
  assert.equal(status, 200);
  assert.equal(json.partialSuccess?.rejectedSpans, '2');
  assert.match(json.partialSuccess!.errorMessage!, /span id must be 8 non-zero bytes/);
  assert.deepEqual(
    (await store.spansOf(traceId)).map((s) => s.span_id),
    ['01'.repeat(8)],
  );

  // The protobuf answer is an ExportTraceServiceResponse.
  const pb = ExportTraceServiceRequest.encode(
    ExportTraceServiceRequest.fromObject({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                { ...span(traceId, '02'.repeat(8)), traceId: Buffer.from(traceId, 'hex'), spanId: Buffer.from('02'.repeat(8), 'hex') },
              ],
            },
          ],
        },
      ],
    }),
  ).finish();
  const answer = await post(Buffer.from(pb), { 'content-type': 'application/x-protobuf' });
  assert.equal(answer.status, 200);
  assert.deepEqual(ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(new Uint8Array(answer.raw))), {});
  assert.equal((await store.spansOf(traceId)).length, 2);
});

test('a store outage is a 503 the exporter retries, not a 500 and not a silent drop', async () => {
  const failing: SpanStore = {
    write: () => Promise.reject(new Error('connection refused')),
    spansOf: () => Promise.resolve([]),
    purgeReceivedBefore: () => Promise.resolve(0),
  };
  const down = await startTraceIntake({ TRACE_INTAKE_PORT: '0' }, logger, { store: failing });
  try {
    const response = await fetch(`${down.url}/v1/traces`, {
      method: 'POST',
      body: JSON.stringify(exportOf([span('ef'.repeat(16), '03'.repeat(8))])),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(response.status, 503);
    assert.match(((await response.json()) as { error: string }).error, /retry/);
  } finally {
    await down.stop();
  }
});

test('a bad setting refuses to start, naming the variable', async () => {
  await assert.rejects(startTraceIntake({ TRACE_INTAKE_RETENTION_HOURS: 'forever' }, logger, { store }), /TRACE_INTAKE_RETENTION_HOURS/);
  await assert.rejects(
    startTraceIntake({ TRACE_INTAKE_HOST: '0.0.0.0', TRACE_INTAKE_PORT: '0' }, logger, { store }),
    /TRACE_INTAKE_API_TOKEN/,
  );
  await assert.rejects(startTraceIntake({ TRACE_INTAKE_USER_TRAFFIC: 'maybe' }, logger, { store }), /TRACE_INTAKE_USER_TRAFFIC/);
  await assert.rejects(
    startTraceIntake({ TRACE_INTAKE_USER_RETENTION_HOURS: '0' }, logger, { store }),
    /TRACE_INTAKE_USER_RETENTION_HOURS/,
  );
  await assert.rejects(startTraceIntake({ REDACTION_RULES: 'email,ssn' }, logger, { store }), /REDACTION_RULES: unknown rule ssn/);
  await assert.rejects(startTraceIntake({ REDACTION_PATTERNS: '["(open"]' }, logger, { store }), /REDACTION_PATTERNS: .*not a valid regex/);
});
