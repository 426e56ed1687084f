/**
 * Who may file what (issue 40 item 3): the probe mark counts only when it verifies under
 * PROBE_MARK_KEY (a forged, borrowed or unsigned mark makes a user span, redacted); the RAG is the
 * token's, not the spans' service.name; a token limited to probe spans cannot post user spans; a
 * trace holds at most TRACE_INTAKE_MAX_SPANS_PER_TRACE spans; a token over its span rate gets a 429
 * with Retry-After; Elasticsearch is called with the configured credentials; bad settings name their key.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pino from 'pino';
import { InMemorySpanStore, newProbeTraceContext, ProbeMarkSigner } from '@rag-immune/traces';
import { WorkerConfigError } from '@rag-immune/worker-runtime';
import { startTraceIntake, traceIntakeConfigFromEnv, type TraceIntake } from '../../src/index.ts';

const logger = pino({ level: 'silent' });
const MARK_KEY = 'probe-mark-key-for-tests-0123456789abcdef';
const RAG_TOKEN = 'reference-rag-token-0123456789';
const COLLECTOR_TOKEN = 'user-only-collector-token-0123';
const PROBE_ONLY_TOKEN = 'probe-only-token-0123456789ab';
const dir = mkdtempSync(join(tmpdir(), 'intake-trust-'));
const tokensFile = join(dir, 'tokens.json');
writeFileSync(
  tokensFile,
  JSON.stringify({
    tokens: [
      { rag: 'reference-rag', token: RAG_TOKEN },
      { name: 'collector', rag: 'reference-rag', token: COLLECTOR_TOKEN, origins: ['user'] },
      { name: 'prober', rag: 'reference-rag', token: PROBE_ONLY_TOKEN, origins: ['probe'] },
    ],
  }),
);

const intakes: TraceIntake[] = [];
after(async () => {
  for (const intake of intakes) await intake.stop();
});

async function intakeWith(env: Record<string, string>) {
  const stores = { probe: new InMemorySpanStore(), user: new InMemorySpanStore() };
  const intake = await startTraceIntake({ TRACE_INTAKE_PORT: '0', ...env }, logger, { store: stores.probe, userStore: stores.user });
  intakes.push(intake);
  return { intake, stores };
}

const QUERY = 'mail jane.doe@example.org about the openssl version';
const span = (traceId: string, spanId: string, traceState: string | undefined, serviceName = 'reference-rag') => ({
  resource: { attributes: [{ key: 'service.name', value: { stringValue: serviceName } }] },
  scopeSpans: [
    {
      scope: { name: 't' },
      spans: [
        {
          traceId,
          spanId,
          ...(traceState === undefined ? {} : { traceState }),
          name: 'rag.query',
          kind: 2,
          startTimeUnixNano: '1717200000000000000',
          endTimeUnixNano: '1717200000100000000',
          attributes: [
            { key: 'openinference.span.kind', value: { stringValue: 'CHAIN' } },
            { key: 'input.value', value: { stringValue: QUERY } },
          ],
        },
      ],
    },
  ],
});

async function post(intake: TraceIntake, token: string, resourceSpans: unknown[]) {
  const response = await fetch(`${intake.url}/v1/traces`, {
    method: 'POST',
    body: JSON.stringify({ resourceSpans }),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    json: (await response.json()) as { error?: string; partialSuccess?: { rejectedSpans?: string; errorMessage?: string } },
  };
}

const spanId = (n: number) => n.toString(16).padStart(16, '0');

test('with PROBE_MARK_KEY only a verified mark files a probe span; an unsigned, borrowed or foreign-key mark is a redacted user span', async () => {
  const { intake, stores } = await intakeWith({ TRACE_INTAKE_API_TOKEN: RAG_TOKEN, PROBE_MARK_KEY: MARK_KEY });
  const signer = new ProbeMarkSigner(MARK_KEY);
  const real = newProbeTraceContext(signer);
  const unsigned = newProbeTraceContext();
  const borrowed = newProbeTraceContext(); // carries the real probe's mark, made for another trace id
  const foreign = newProbeTraceContext(new ProbeMarkSigner('another-key-nobody-shares-0123456789'));
  const answer = await post(intake, RAG_TOKEN, [
    span(real.trace_id, spanId(1), real.tracestate),
    span(unsigned.trace_id, spanId(2), unsigned.tracestate),
    span(borrowed.trace_id, spanId(3), real.tracestate),
    span(foreign.trace_id, spanId(4), foreign.tracestate),
  ]);
  assert.equal(answer.status, 200);
  assert.equal((await stores.probe.spansOf(real.trace_id)).length, 1);
  assert.equal(stores.probe.size, 1, 'only the verified probe span is in the probe store');
  for (const forged of [unsigned, borrowed, foreign]) {
    const [stored] = await stores.user.spansOf(forged.trace_id);
    assert.ok(stored, `${forged.trace_id} kept as a user span`);
    assert.doesNotMatch(String(stored.attributes['input.value']), /jane\.doe@example\.org/, 'redacted like any user span');
  }
  const metrics = await intake.registry.getSingleMetricAsString('trace_intake_probe_marks_total');
  assert.match(metrics, /outcome="verified"} 1/);
  assert.match(metrics, /outcome="unsigned"} 1/);
  assert.match(metrics, /outcome="bad_mac"} 2/);
});

test('per-RAG tokens: the RAG comes from the token; a user-only token cannot file a probe span, a probe-only token cannot post user spans', async () => {
  const { intake, stores } = await intakeWith({ TRACE_INTAKE_TOKENS_FILE: tokensFile, PROBE_MARK_KEY: MARK_KEY });
  const signer = new ProbeMarkSigner(MARK_KEY);
  const probe = newProbeTraceContext(signer);
  const claimed = await post(intake, RAG_TOKEN, [span(probe.trace_id, spanId(1), probe.tracestate, 'payments-rag')]);
  assert.equal(claimed.status, 200);
  const [stored] = await stores.probe.spansOf(probe.trace_id);
  assert.equal(stored?.resource['service.name'], 'reference-rag', "the token's RAG, not the spans' claim");
  assert.equal(stored?.resource['rag_immune.claimed_service.name'], 'payments-rag');

  const viaCollector = newProbeTraceContext(signer);
  assert.equal((await post(intake, COLLECTOR_TOKEN, [span(viaCollector.trace_id, spanId(2), viaCollector.tracestate)])).status, 200);
  assert.equal((await stores.probe.spansOf(viaCollector.trace_id)).length, 0);
  assert.equal((await stores.user.spansOf(viaCollector.trace_id)).length, 1);

  const user = newProbeTraceContext();
  const refused = await post(intake, PROBE_ONLY_TOKEN, [span(user.trace_id, spanId(3), undefined)]);
  assert.equal(refused.status, 200);
  assert.equal(refused.json.partialSuccess?.rejectedSpans, '1');
  assert.match(refused.json.partialSuccess!.errorMessage!, /may not post user spans/);
  assert.equal((await stores.user.spansOf(user.trace_id)).length, 0);

  const unknown = await post(intake, 'not-a-token-of-this-intake', [span(user.trace_id, spanId(4), undefined)]);
  assert.equal(unknown.status, 401);
});

test('a trace holds at most TRACE_INTAKE_MAX_SPANS_PER_TRACE spans; the excess is refused as partial success', async () => {
  const { intake, stores } = await intakeWith({ TRACE_INTAKE_API_TOKEN: RAG_TOKEN, TRACE_INTAKE_MAX_SPANS_PER_TRACE: '3' });
  const trace = newProbeTraceContext();
  const first = await post(
    intake,
    RAG_TOKEN,
    [1, 2, 3, 4, 5].map((n) => span(trace.trace_id, spanId(n), trace.tracestate)),
  );
  assert.equal(first.status, 200);
  assert.equal(first.json.partialSuccess?.rejectedSpans, '2');
  assert.match(first.json.partialSuccess!.errorMessage!, /per-trace cap/);
  const later = await post(intake, RAG_TOKEN, [span(trace.trace_id, spanId(6), trace.tracestate)]);
  assert.equal(later.json.partialSuccess?.rejectedSpans, '1', 'a later export into the full trace is refused too');
  assert.deepEqual(
    (await stores.probe.spansOf(trace.trace_id)).map((s) => s.span_id),
    [1, 2, 3].map(spanId),
  );
  // Another trace is not affected.
  const other = newProbeTraceContext();
  assert.deepEqual((await post(intake, RAG_TOKEN, [span(other.trace_id, spanId(1), other.tracestate)])).json, {});
});

test('a token over its span rate gets a 429 with Retry-After; another token is not held back', async () => {
  const { intake } = await intakeWith({
    TRACE_INTAKE_TOKENS_FILE: tokensFile,
    TRACE_INTAKE_RATE_SPANS_PER_SECOND: '0.5',
    TRACE_INTAKE_RATE_BURST_SPANS: '2',
  });
  const trace = newProbeTraceContext();
  const spans = (from: number) => [from, from + 1, from + 2].map((n) => span(trace.trace_id, spanId(n), undefined));
  assert.equal((await post(intake, RAG_TOKEN, spans(1))).status, 200, 'within the burst (the bucket may go into debt once)');
  const limited = await post(intake, RAG_TOKEN, spans(4));
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.retryAfter) >= 1, `Retry-After ${limited.retryAfter}`);
  assert.match(limited.json.error!, /rate limit of reference-rag/);
  assert.equal((await post(intake, COLLECTOR_TOKEN, spans(7))).status, 200);
});

test('Elasticsearch is called with ES_USERNAME/ES_PASSWORD (or ES_API_KEY), like the other workers', async () => {
  const seen: IncomingHttpHeaders[] = [];
  const es = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json', 'x-elastic-product': 'Elasticsearch' }).end('{}');
  });
  await new Promise<void>((resolve) => es.listen(0, '127.0.0.1', resolve));
  after(() => es.close());
  const url = `http://127.0.0.1:${(es.address() as AddressInfo).port}`;
  const basic = await startTraceIntake(
    { TRACE_INTAKE_PORT: '0', ELASTICSEARCH_URL: url, ES_USERNAME: 'trace_intake', ES_PASSWORD: 'intake-secret' },
    logger,
  );
  intakes.push(basic);
  assert.ok(seen.length > 0);
  assert.equal(seen[0]!.authorization, `Basic ${Buffer.from('trace_intake:intake-secret').toString('base64')}`);
  seen.length = 0;
  const keyed = await startTraceIntake({ TRACE_INTAKE_PORT: '0', ELASTICSEARCH_URL: url, ES_API_KEY: 'aWQ6a2V5' }, logger);
  intakes.push(keyed);
  assert.equal(seen[0]!.authorization, 'ApiKey aWQ6a2V5');
});

test('bad trust settings refuse to start, naming the key and never quoting a token', () => {
  const keyOf = (env: Record<string, string>) => {
    try {
      traceIntakeConfigFromEnv(env);
    } catch (error) {
      assert.ok(error instanceof WorkerConfigError);
      return error.issues.map((issue) => `${issue.key}: ${issue.message}`).join('; ');
    }
    return 'accepted';
  };
  assert.match(keyOf({ PROBE_MARK_KEY: 'short' }), /^PROBE_MARK_KEY: must be at least 32/);
  assert.match(keyOf({ TRACE_INTAKE_MAX_SPANS_PER_TRACE: '5000' }), /^TRACE_INTAKE_MAX_SPANS_PER_TRACE/);
  assert.match(keyOf({ TRACE_INTAKE_RATE_SPANS_PER_SECOND: '-1' }), /^TRACE_INTAKE_RATE_SPANS_PER_SECOND/);
  assert.match(keyOf({ ES_API_KEY: 'k', ES_USERNAME: 'u', ES_PASSWORD: 'p' }), /^ES_API_KEY/);
  assert.match(keyOf({ TRACE_INTAKE_TOKENS_FILE: join(dir, 'missing.json') }), /^TRACE_INTAKE_TOKENS_FILE: cannot read .*ENOENT/);
  const bad = (name: string, body: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(body));
    return keyOf({ TRACE_INTAKE_TOKENS_FILE: path });
  };
  const short = bad('short.json', { tokens: [{ rag: 'r', token: 'tiny-secret' }] });
  assert.match(short, /^TRACE_INTAKE_TOKENS_FILE: .*tokens\.0: must be at least 16/);
  assert.doesNotMatch(short, /tiny-secret/);
  const twice = bad('twice.json', {
    tokens: [
      { rag: 'a', token: RAG_TOKEN },
      { rag: 'b', token: RAG_TOKEN },
    ],
  });
  assert.match(twice, /^TRACE_INTAKE_TOKENS_FILE: .*tokens\[1\] \(b\): the token is also another entry's/);
  assert.doesNotMatch(twice, new RegExp(RAG_TOKEN));
  assert.match(
    bad('origin.json', { tokens: [{ rag: 'a', token: RAG_TOKEN, origins: ['admin'] }] }),
    /^TRACE_INTAKE_TOKENS_FILE: .*origins/,
  );
  assert.match(
    keyOf({ TRACE_INTAKE_TOKENS_FILE: tokensFile, TRACE_INTAKE_API_TOKEN: RAG_TOKEN }),
    /^TRACE_INTAKE_API_TOKEN: is also a token/,
  );
  assert.equal(keyOf({ TRACE_INTAKE_TOKENS_FILE: tokensFile, TRACE_INTAKE_API_TOKEN: 'the-old-shared-token-0123' }), 'accepted');
});
