/**
 * Every probe query carries a fresh W3C traceparent, and the ProbeResult records the one of the
 * attempt that answered: the trace intake finds the RAG's spans of exactly that call.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { RagUnreachableError, type QueryResponse } from '@rag-immune/rag-contract';
import { answerHash } from '@rag-immune/contracts';
import { isProbeTraceState, parseTraceparent, ProbeMarkVerifier } from '@rag-immune/traces';
import { ProbeMarkSigner, ProbeRunner, ProbeSetBuilder, defaultProbeSetOptions, defaultThresholds, type RagPort } from '../../src/index.ts';

const response: QueryResponse = {
  trace_id: 'rag-own-id',
  answer: 'openssl 3.0.13',
  citations: [],
  chunks: [],
  models: { embedder: 'e', reranker: 'r', generator: 'g' },
  timings: { total_ms: 3 },
  as_of: '2024-06-01T00:00:00Z',
};

function recordingRag(failFirst: boolean): RagPort & { sent: (string | undefined)[]; states: (string | undefined)[] } {
  const sent: (string | undefined)[] = [];
  const states: (string | undefined)[] = [];
  return {
    sent,
    states,
    async query(_request, options) {
      sent.push(options?.headers?.traceparent);
      states.push(options?.headers?.tracestate);
      if (failFirst && sent.length === 1) throw new RagUnreachableError('query', 'http://rag', 'network', new Error('reset'));
      return response;
    },
  };
}

test('each attempt sends a new traceparent; the result keeps the answering attempt’s, and the RAG’s own trace id beside it', async () => {
  const online = recordingRag(true);
  const baseline = recordingRag(false);
  const runner = new ProbeRunner({
    online,
    baseline,
    fcs: { score: async () => ({ status: 'scored', score: 0.9, truncated: false, evidence_snippets: [] }) },
    tracer: trace.getTracer('test'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 1000,
    callAttempts: 2,
    version: 'test',
  });
  const result = await runner.run({
    id: 'p1',
    version: 1,
    query: 'What is the latest version of openssl?',
    expected_sources: [],
    business_value: 1,
    cluster: 'head',
    created_at: '2024-01-01T00:00:00Z',
    retired_at: null,
  });
  assert.equal(online.sent.length, 2);
  const [first, second] = online.sent.map((header) => parseTraceparent(header));
  assert.ok(first && second, `both attempts carry a valid traceparent: ${online.sent.join(', ')}`);
  assert.notEqual(first.trace_id, second.trace_id);
  assert.equal(result.online.traceparent, second.traceparent);
  assert.equal(result.online.trace_id, 'rag-own-id');
  assert.equal(result.baseline.traceparent, baseline.sent[0]);
  assert.notEqual(parseTraceparent(result.baseline.traceparent)!.trace_id, second.trace_id);
  // Every call, both sides and each attempt, is marked as a probe for the trace intake.
  for (const state of [...online.states, ...baseline.states]) assert.ok(isProbeTraceState(state), `probe tracestate sent: ${state}`);
});

test('the probe-set builder’s calls are the sentinel’s too: each carries a fresh traceparent and the probe tracestate', async () => {
  const headers: (Readonly<Record<string, string>> | undefined)[] = [];
  const rag: RagPort = {
    async query(_request, options) {
      headers.push(options?.headers);
      return { ...response, chunks: [] };
    },
  };
  const builder = new ProbeSetBuilder(
    {
      embed: async (texts) => texts.map(() => new Float32Array([1, 0])),
      rag,
      fcs: { score: async () => ({ status: 'scored', score: 0.9, truncated: false, evidence_snippets: [] }) },
    },
    { ...defaultProbeSetOptions, size: 1, headShare: 1, runs: 2 },
  );
  await builder.build([{ query: 'What is the latest version of openssl?', count: 3 }]);
  assert.equal(headers.length, 2);
  for (const sent of headers) {
    assert.ok(parseTraceparent(sent?.traceparent), `traceparent sent: ${sent?.traceparent}`);
    assert.ok(isProbeTraceState(sent?.tracestate), `probe tracestate sent: ${sent?.tracestate}`);
  }
  assert.notEqual(headers[0]!.traceparent, headers[1]!.traceparent);
});

test('with a probe mark key every call’s mark is signed for its own trace id, and the result carries the answer hash', async () => {
  const KEY = 'probe-mark-key-for-tests-0123456789abcdef';
  const online = recordingRag(false);
  const baseline = recordingRag(false);
  const runner = new ProbeRunner({
    online,
    baseline,
    fcs: { score: async () => ({ status: 'scored', score: 0.9, truncated: false, evidence_snippets: [] }) },
    tracer: trace.getTracer('test'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 1000,
    callAttempts: 1,
    version: 'test',
    probeMark: new ProbeMarkSigner(KEY),
  });
  const result = await runner.run({
    id: 'p1',
    version: 1,
    query: 'What is the latest version of openssl?',
    expected_sources: [],
    business_value: 1,
    cluster: 'head',
    created_at: '2024-01-01T00:00:00Z',
    retired_at: null,
  });
  const verifier = new ProbeMarkVerifier({ keys: [KEY] });
  for (const [side, rag] of [
    ['online', online],
    ['baseline', baseline],
  ] as const) {
    const traceId = parseTraceparent(rag.sent[0])!.trace_id;
    assert.equal(verifier.check(rag.states[0], traceId), 'verified', `${side}: ${rag.states[0]}`);
    assert.equal(result[side].answer_hash, answerHash(response.answer));
  }
  assert.equal(answerHash('  openssl\n 3.0.13 '), answerHash('openssl 3.0.13'), 'whitespace-normalised');
  assert.notEqual(answerHash('openssl 3.0.12'), answerHash('openssl 3.0.13'));
});
