/**
 * Which path a RAG's traces take (its capabilities say), and what an intake trace that lacks a
 * piece becomes: an analysis that is trace_incomplete, raised as that open question, never a diff
 * over invented values.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { exampleProbeResult } from '@rag-immune/contracts';
import { RagClient } from '@rag-immune/rag-contract';
import { InMemorySpanStore, ProbeTraceReader, newProbeTraceContext, type SpanRecord } from '@rag-immune/traces';
import { prepareAnalysis } from '../../src/analysis.ts';
import { CapabilityTraceSource, IntakeTraceSource, type TraceSource } from '../../src/trace-diff/trace-sources.ts';
import { decideVerdict, DEFAULT_POLICY, UNFITTED_CALIBRATION } from '../../src/testing.ts';

/** A RagClient over a fetch that answers capabilities with the given `traces` and counts the calls. */
function ragDeclaring(traces: 'endpoint' | 'otlp' | undefined | 'down' | 'not served') {
  const calls: string[] = [];
  const fetchImpl: typeof fetch = async (input) => {
    const path = new URL(String(input)).pathname;
    calls.push(path);
    if (traces === 'down') throw new TypeError('fetch failed');
    if (path === '/capabilities' && traces !== 'not served')
      return new Response(JSON.stringify({ contract_version: '1.4.0', repair_hooks: [], ...(traces ? { traces } : {}) }), { status: 200 });
    return new Response(JSON.stringify({ error: 'not served' }), { status: 404 });
  };
  return { client: new RagClient({ baseUrl: 'http://rag.test', fetch: fetchImpl }), calls };
}

const marker = (name: string): TraceSource & { reads: number } => ({
  reads: 0,
  async read() {
    this.reads += 1;
    return { ok: false, reason: name, incomplete: false };
  },
});

test('capabilities decide the path: otlp reads the intake, endpoint or silence the RAG; the answer is cached', async () => {
  for (const [declared, expected] of [
    ['otlp', 'intake'],
    ['endpoint', 'endpoint'],
    [undefined, 'endpoint'],
    ['not served', 'endpoint'],
    ['down', 'endpoint'],
  ] as const) {
    const { client, calls } = ragDeclaring(declared);
    const endpoint = marker('endpoint');
    const otlp = marker('intake');
    const source = new CapabilityTraceSource(client, { endpoint, otlp });
    const observation = exampleProbeResult().online;
    assert.equal(((await source.read(observation, 1000)) as { reason: string }).reason, expected, String(declared));
    await source.read(observation, 1000);
    assert.equal(endpoint.reads + otlp.reads, 2);
    // Cached after an answer (a 404 too); asked again when the RAG could not be reached.
    assert.equal(calls.filter((c) => c === '/capabilities').length, declared === 'down' ? 2 : 1, String(declared));
  }
});

function retrieverSpan(traceId: string, parent: string): SpanRecord {
  return {
    trace_id: traceId,
    span_id: '00000000000000aa',
    parent_span_id: parent,
    name: 'retrieve',
    kind: 'internal',
    start_ms: 1,
    end_ms: 2,
    status: 'ok',
    // Ids and content but no scores: the stock LangChain instrumentation without the adapter.
    attributes: {
      'openinference.span.kind': 'RETRIEVER',
      'input.value': 'q',
      'retrieval.documents.0.document.id': 'c1',
      'retrieval.documents.0.document.content': 'text',
    },
    dropped_attributes_count: 0,
    events: [],
    resource: {},
    scope: { name: '', version: '' },
  };
}

test('intake spans without scores: the analysis is trace_incomplete and the verdict raises it as an open question', async () => {
  const store = new InMemorySpanStore();
  const result = exampleProbeResult();
  const online = newProbeTraceContext();
  const baseline = newProbeTraceContext();
  result.online.traceparent = online.traceparent;
  result.baseline.traceparent = baseline.traceparent;
  await store.write(
    [retrieverSpan(online.trace_id, online.parent_span_id), retrieverSpan(baseline.trace_id, baseline.parent_span_id)],
    Date.now(),
  );
  const intake = new IntakeTraceSource(new ProbeTraceReader(store, { waitMs: 100 }));
  const { client } = ragDeclaring('otlp');
  const prepared = await prepareAnalysis(result, { online: client, baseline: client }, 1000, { online: intake, baseline: intake });
  assert.equal(prepared.status, 'trace_incomplete');
  assert.equal(prepared.diff, null);
  assert.match(prepared.problem!, /online: trace intake: trace [0-9a-f]{32} \(openinference\) is incomplete: .*has no score/);

  const analysis = {
    probe_event_id: 'e1',
    probe_id: 'p1',
    probe_version: 1,
    query: 'q',
    occurred_at: 0,
    trace_status: prepared.status,
    trace_evidence_id: 't1',
    scores: {},
    evidence_ids: {},
    knowledge_ids: {},
    first_diverging_layer: 'none' as const,
    divergence_evidence_id: null,
  };
  const verdict = decideVerdict(
    [analysis, { ...analysis, probe_id: 'p2' }],
    UNFITTED_CALIBRATION,
    DEFAULT_POLICY,
    DEFAULT_POLICY.maxWaitMs,
  );
  assert.equal(verdict.root_cause, 'unknown');
  assert.deepEqual(
    verdict.open_questions.map((q) => [q.kind, q.subject]),
    [
      ['trace_incomplete', 'p1'],
      ['trace_incomplete', 'p2'],
    ],
  );
});

test('no traceparent, or no spans in time: trace_unavailable with the reason', async () => {
  const intake = new IntakeTraceSource(new ProbeTraceReader(new InMemorySpanStore(), { waitMs: 50, pollMs: 10 }));
  const result = exampleProbeResult();
  assert.deepEqual(await intake.read(result.online), {
    ok: false,
    reason: 'trace intake: the probe result carries no traceparent',
    incomplete: false,
  });
  result.online.traceparent = newProbeTraceContext().traceparent;
  const read = await intake.read(result.online);
  assert.equal(read.ok, false);
  assert.match((read as { reason: string }).reason, /holds no span of trace/);
});
