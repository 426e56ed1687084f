/**
 * A RAG reached through a declarative adapter may answer with text-only documents: no ids, scores,
 * dates, versions, models or trace id. The probe runner must then leave every value that depends on
 * them null or out, never fill it in, and still score what it can (FCS, IC, answer agreement).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import type { PartialQueryResponse } from '@rag-immune/rag-contract';
import { ProbeRunner, defaultThresholds, type RagPort } from '../../src/index.ts';

const probe = {
  id: 'p1',
  version: 1,
  query: 'What is the latest version of openssl in bookworm?',
  expected_sources: ['pkg:openssl'],
  business_value: 1,
  cluster: 'head',
  created_at: '2024-01-01T00:00:00Z',
  retired_at: null,
};

const rag = (response: PartialQueryResponse): RagPort => ({ query: async () => response });

function runner(online: PartialQueryResponse, baseline: PartialQueryResponse, evidence: string[][] = []) {
  return new ProbeRunner({
    online: rag(online),
    baseline: rag(baseline),
    fcs: {
      score: async (input) => {
        evidence.push(input.evidence.map((e) => e.id));
        return { status: 'scored', score: 0.9, truncated: false, evidence_snippets: [] };
      },
    },
    tracer: trace.getTracer('test'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 1000,
    callAttempts: 1,
    version: 'test',
  });
}

test('text-only documents (Flowise without metadata): results with nulls and gaps, nothing invented', async () => {
  const online: PartialQueryResponse = {
    answer: 'The latest version of openssl in bookworm is 3.0.15-1~deb12u1.',
    chunks: [
      { text: 'openssl (3.0.15-1~deb12u1) bookworm-security' },
      { text: 'openssl (3.0.14-1~deb12u2) bookworm', doc_id: 'changelog' },
    ],
  };
  const baseline: PartialQueryResponse = {
    answer: 'The latest version of openssl in bookworm is 3.0.15-1~deb12u1.',
    chunks: [{ text: 'openssl (3.0.15-1~deb12u1) bookworm-security, edited' }],
  };
  const evidence: string[][] = [];
  const result = await runner(online, baseline, evidence).run(probe);
  for (const side of [result.online, result.baseline]) {
    assert.equal(side.call_status, 'ok');
    assert.equal(side.trace_id, null);
    // The schema needs doc and chunk ids: documents without them are left out, not given made-up ones.
    assert.deepEqual(side.retrieved_documents, []);
    assert.deepEqual(side.component_versions, { embedder: null, reranker: null, generator: null });
    assert.equal(side.signals?.kf_as_of, null);
    assert.equal(side.signals?.kf_age_days, null);
    assert.equal(side.signals?.fcs, 0.9);
  }
  assert.equal(result.comparison.knowledge_update, false);
  assert.deepEqual(result.comparison.altered_chunks, []);
  assert.equal(result.comparison.attribution, null);
  assert.equal(result.anomaly_signals.includes('kf_stale'), false);
  // FCS passages without an id are labelled by rank: a label for the scorer, not an id of the RAG's.
  assert.deepEqual(evidence.sort(), [['#1', '#2'], ['#1']].sort());
});

test('ids without versions or scores: retrieved documents keep their ids with the rest null', async () => {
  const response: PartialQueryResponse = {
    answer: 'openssl 3.0.15-1~deb12u1',
    chunks: [{ text: 'openssl (3.0.15-1~deb12u1)', doc_id: 'debian/openssl', chunk_id: 'debian/openssl#0', source: 'debian-security' }],
  };
  const result = await runner(response, response).run(probe);
  assert.deepEqual(result.online.retrieved_documents, [
    {
      rank: 1,
      doc_id: 'debian/openssl',
      chunk_id: 'debian/openssl#0',
      knowledge_id: null,
      knowledge_version: null,
      source: 'debian-security',
      source_trust: null,
      updated_at: null,
      retrieval_score: null,
      rerank_score: null,
    },
  ]);
});

test('no as_of: KF is aged at the moment the answer arrived, not NaN', async () => {
  const updated = Date.now() - 10 * 86_400_000;
  const response: PartialQueryResponse = {
    answer: 'openssl 3.0.15-1~deb12u1',
    chunks: [{ text: 'openssl (3.0.15-1~deb12u1)', updated_at: new Date(updated).toISOString(), retrieval_score: 0.8 }],
  };
  const result = await runner(response, response).run(probe);
  assert.equal(result.online.signals?.kf_as_of, updated);
  const age = result.online.signals?.kf_age_days ?? NaN;
  assert.ok(age >= 10 && age < 10.01, `age ${age}`);
});

test('the probe-set builder attributes no source to chunks without knowledge ids or scores', async () => {
  const { attribution } = await import('../../src/catalog/probe-set-builder.ts');
  assert.deepEqual(attribution({ chunks: [{ text: 'a' }, { text: 'b', knowledge_id: 'pkg:a' }] }), { source: null, share: null });
  assert.deepEqual(attribution({ chunks: [{ text: 'a', knowledge_id: 'pkg:a', retrieval_score: 0.5 }] }), { source: 'pkg:a', share: 1 });
});
