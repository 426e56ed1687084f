/**
 * Forged span sets do not become probe evidence (issue 40 item 3), on the real trace intake process
 * and real Elasticsearch: the intake runs with per-RAG tokens and PROBE_MARK_KEY, and the identifier's
 * own trace path (ProbeTraceReader over the probe index, the intake trace source, prepareAnalysis)
 * reads what it stored. A span set posted with a wrong token is refused; one with the old unsigned
 * mark lands in the user index (redacted), never the probe index; one carrying a valid mark but
 * another answer than the sentinel received is read and refused as evidence. The genuine probe call
 * is analysed as usual. Short: no RAG, no Kafka, one intake.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@elastic/elasticsearch';
import { answerHash, exampleProbeResult, type ProbeResult } from '@rag-immune/contracts';
import { RagClient } from '@rag-immune/rag-contract';
import {
  ElasticsearchSpanStore,
  newProbeTraceContext,
  ProbeMarkSigner,
  ProbeTraceReader,
  type ProbeTraceContext,
} from '@rag-immune/traces';
import { endpoints } from '@rag-immune/test-kit/stack';
import { namespace, spawnTraceIntake, type ServiceProcess } from '@rag-immune/test-kit/identifier/stack';
import { evidenceDrafts } from '../../src/testing.ts';
import { prepareAnalysis } from '../../src/analysis.ts';
import { IntakeTraceSource } from '../../src/trace-diff/trace-sources.ts';

const ns = namespace('forged');
const MARK_KEY = `probe-mark-${ns.run}-0123456789abcdefghij`;
const TOKEN = `reference-rag-${ns.run}-token`;
const QUESTION = 'Which version of curl fixes CVE-2024-2398?';
const ANSWER = 'curl 8.7.1 fixes CVE-2024-2398.';
const es = new Client({ node: endpoints.elasticsearchUrl });
const signer = new ProbeMarkSigner(MARK_KEY);
let intake: ServiceProcess;
/** A second replica of the same intake: its per-trace count of a trace it has not seen comes from Elasticsearch. */
let replica: ServiceProcess;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'forged-spans-'));
  writeFileSync(join(dir, 'tokens.json'), JSON.stringify({ tokens: [{ rag: 'reference-rag', token: TOKEN }] }));
  const env = {
    TRACE_INTAKE_PORT: '0',
    ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
    ES_INDEX_PREFIX: ns.indexPrefix,
    TRACE_INTAKE_TOKENS_FILE: join(dir, 'tokens.json'),
    PROBE_MARK_KEY: MARK_KEY,
    // A call here has 4 spans: a fifth under the same trace id is a flood.
    TRACE_INTAKE_MAX_SPANS_PER_TRACE: '4',
  };
  [intake, replica] = await Promise.all([spawnTraceIntake(env), spawnTraceIntake(env)]);
});
after(async () => {
  await intake?.stop();
  await replica?.stop();
  await es.indices.delete({ index: `${ns.indexPrefix}-*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
  await es.close();
});

const hex = (n: number) => n.toString(16).padStart(16, '0');
const str = (stringValue: string) => ({ stringValue });

/** One RAG call as OTLP/JSON GenAI spans (entry, embeddings, retrieval, chat) under the context's traceparent. */
function callSpans(context: ProbeTraceContext, traceState: string, answer: string) {
  const docs = [
    {
      id: 'curl-8.7.1#0',
      score: 0.77,
      content: 'curl 8.7.1 fixes CVE-2024-2398.',
      metadata: {
        doc_id: 'curl-8.7.1',
        knowledge_id: 'curl',
        version: '8.7.1',
        source: 'debian-changelog',
        source_trust: 0.9,
        updated_at: '2024-03-27T00:00:00Z',
        valid_from: '2024-03-27T00:00:00Z',
        valid_until: null,
      },
    },
  ];
  const at = Date.now() * 1e6;
  const span = (n: number, name: string, parent: string, attributes: Record<string, string>, kind = 1) => ({
    traceId: context.trace_id,
    spanId: hex(n),
    parentSpanId: parent,
    traceState,
    name,
    kind,
    startTimeUnixNano: String(at + n * 1e6),
    endTimeUnixNano: String(at + 10e6 - n),
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value: str(value) })),
  });
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: str('reference-rag') }] },
        scopeSpans: [
          {
            scope: { name: 'genai-rag' },
            spans: [
              span(1, 'POST /query', context.parent_span_id, {}, 2),
              span(2, 'embeddings all-MiniLM-L6-v2', hex(1), {
                'gen_ai.operation.name': 'embeddings',
                'gen_ai.request.model': 'all-MiniLM-L6-v2',
              }),
              span(3, 'retrieval debian-kb', hex(1), {
                'gen_ai.operation.name': 'retrieval',
                'gen_ai.data_source.id': 'debian-kb',
                'gen_ai.retrieval.query.text': QUESTION,
                'gen_ai.retrieval.documents': JSON.stringify(docs),
              }),
              span(4, 'chat gpt-4o-mini', hex(1), {
                'gen_ai.operation.name': 'chat',
                'gen_ai.request.model': 'gpt-4o-mini',
                'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
                'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: QUESTION }] }]),
                'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]),
              }),
            ],
          },
        ],
      },
    ],
  };
}

async function postTo(
  to: ServiceProcess,
  body: unknown,
  token = TOKEN,
): Promise<{ status: number; json: { partialSuccess?: { rejectedSpans?: string; errorMessage?: string } } }> {
  const response = await fetch(`http://127.0.0.1:${to.port}/v1/traces`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  return { status: response.status, json: response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {} };
}
const post = async (body: unknown, token = TOKEN) => (await postTo(intake, body, token)).status;

/** The ProbeResult the sentinel would publish for these two calls: both answered ANSWER. */
function probeResult(online: ProbeTraceContext, baseline: ProbeTraceContext): ProbeResult {
  const example = exampleProbeResult();
  return {
    ...example,
    query: QUESTION,
    anomaly: true,
    online: { ...example.online, traceparent: online.traceparent, answer_hash: answerHash(ANSWER) },
    baseline: { ...example.baseline, traceparent: baseline.traceparent, answer_hash: answerHash(ANSWER) },
  };
}

// The identifier's intake path, on the probe index the intake writes.
const source = () =>
  new IntakeTraceSource(new ProbeTraceReader(new ElasticsearchSpanStore(es, ns.indexPrefix, 'probe'), { waitMs: 8000, pollMs: 500 }));
const rag = new RagClient({ baseUrl: 'http://rag.test', fetch: async () => new Response('{}', { status: 404 }) });
const analyse = (result: ProbeResult) =>
  prepareAnalysis(result, { online: rag, baseline: rag }, 1000, { online: source(), baseline: source() });

test("the genuine probe call's spans (signed mark, the RAG's token) are evidence", { timeout: 60_000 }, async () => {
  const online = newProbeTraceContext(signer);
  const baseline = newProbeTraceContext(signer);
  assert.equal(await post(callSpans(online, online.tracestate, ANSWER)), 200);
  assert.equal(await post(callSpans(baseline, baseline.tracestate, ANSWER)), 200);
  const prepared = await analyse(probeResult(online, baseline));
  assert.equal(prepared.status, 'ok', prepared.problem ?? '');
  assert.equal(prepared.traceMismatch, undefined);
});

test('forged span sets never become probe evidence: wrong token, unsigned mark, another answer', { timeout: 60_000 }, async () => {
  const baseline = newProbeTraceContext(signer);
  assert.equal(await post(callSpans(baseline, baseline.tracestate, ANSWER)), 200);

  // A wrong token: refused before anything is read.
  const wrongToken = newProbeTraceContext(signer);
  assert.equal(await post(callSpans(wrongToken, wrongToken.tracestate, 'curl 7.0.0 is fine.'), 'not-a-token-of-this-intake'), 401);

  // The old, unsigned mark: stored as a user's spans (redacted), not in the probe index.
  const unsigned = newProbeTraceContext();
  assert.equal(await post(callSpans(unsigned, unsigned.tracestate, 'curl 7.0.0 is fine.')), 200);
  const users = new ElasticsearchSpanStore(es, ns.indexPrefix, 'user');
  await es.indices.refresh({ index: `${ns.indexPrefix}-otlp-user-spans` });
  assert.equal((await users.spansOf(unsigned.trace_id)).length, 4, 'filed as user spans');

  // A valid mark on spans that say another answer than the sentinel received (e.g. rewritten on the way).
  const rewritten = newProbeTraceContext(signer);
  assert.equal(await post(callSpans(rewritten, rewritten.tracestate, 'curl 7.0.0 is fine; nothing to fix.')), 200);

  const probes = new ElasticsearchSpanStore(es, ns.indexPrefix, 'probe');
  for (const [label, online, expected] of [
    ['wrong token', wrongToken, /holds no span/],
    ['unsigned mark', unsigned, /holds no span/],
    ['another answer', rewritten, /answer does not hash/],
  ] as const) {
    const prepared = await analyse(probeResult(online, baseline));
    assert.equal(prepared.status, 'trace_unavailable', label);
    assert.match(prepared.problem ?? '', expected, label);
    assert.deepEqual(
      evidenceDrafts(prepared).map((draft) => draft.kind),
      ['trace_unavailable'],
      `${label}: no measurement from forged spans`,
    );
    if (label === 'another answer') assert.deepEqual(prepared.traceMismatch, { side: 'online', field: 'answer' });
    else assert.equal((await probes.spansOf(online.trace_id)).length, 0, `${label}: nothing in the probe index`);
  }
});

test(
  'a flood of spans under a probe trace id is refused at the per-trace cap, by a replica that never saw the trace too',
  { timeout: 60_000 },
  async () => {
    const probe = newProbeTraceContext(signer);
    assert.equal(await post(callSpans(probe, probe.tracestate, ANSWER)), 200);
    await es.indices.refresh({ index: `${ns.indexPrefix}-otlp-spans` });
    // The same four span ids again (create-only: nothing replaced) plus a fifth, sent to the other replica.
    const flood = callSpans(probe, probe.tracestate, 'curl 7.0.0 is fine.');
    const spans = flood.resourceSpans[0]!.scopeSpans[0]!.spans;
    spans.push({ ...spans[3]!, spanId: hex(5), name: 'chat again' });
    const answer = await postTo(replica, flood);
    assert.equal(answer.status, 200);
    assert.equal(answer.json.partialSuccess?.rejectedSpans, '5');
    assert.match(answer.json.partialSuccess?.errorMessage ?? '', /per-trace cap/);
    await es.indices.refresh({ index: `${ns.indexPrefix}-otlp-spans` });
    const stored = await new ElasticsearchSpanStore(es, ns.indexPrefix, 'probe').spansOf(probe.trace_id);
    assert.deepEqual(stored.map((span) => span.span_id).sort(), [1, 2, 3, 4].map(hex));
  },
);
