/**
 * Issue 30, item 3: the answer can stay right while its citations point at another document (chunk
 * metadata with swapped ids). Attribution is checked against the probe's expected sources and the
 * baseline's citations, and a chunk both sides retrieved under different ids is direct evidence.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import type { QueryResponse } from '@rag-immune/rag-contract';
import { ProbeRunner, attributionCheck, defaultThresholds, misattributed, type CitingSide, type GoldenProbe } from '../../src/index.ts';

const probe: GoldenProbe = {
  id: 'curl-maintainer',
  version: 1,
  query: 'Who maintains the curl package?',
  expected_sources: ['apt/curl'],
  business_value: 1,
  cluster: 'head',
  created_at: '2024-01-01T00:00:00Z',
  retired_at: null,
};

/** The same chunk and answer; `label` is the knowledge id its metadata names. */
function response(label: string): QueryResponse {
  const chunk = {
    doc_id: label,
    chunk_id: 'apt/curl@8.5.0-2#0',
    knowledge_id: label,
    version: '8.5.0-2',
    source: 'apt-metadata',
    source_trust: 0.7,
    updated_at: '2024-01-10T00:00:00.000Z',
    valid_from: '2024-01-10T00:00:00.000Z',
    valid_until: null,
    retrieval_score: 0.8,
    text: 'Package: curl | Version: 8.5.0-2 | Maintainer: Alessandro Ghedini',
  };
  return {
    trace_id: `t-${label}`,
    answer: 'The curl package is maintained by Alessandro Ghedini.',
    citations: [{ chunk_id: chunk.chunk_id, doc_id: chunk.doc_id, knowledge_id: label, version: chunk.version }],
    chunks: [chunk],
    models: { embedder: 'e', reranker: 'r', generator: 'g' },
    timings: { total_ms: 3 },
    as_of: '2024-06-01T00:00:00.000Z',
  };
}

const run = (onlineLabel: string) =>
  new ProbeRunner({
    online: { query: async () => response(onlineLabel) },
    baseline: { query: async () => response('apt/curl') },
    fcs: { score: async () => ({ status: 'scored', score: 0.95, truncated: false, evidence_snippets: [] }) },
    tracer: trace.getTracer('test'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 1000,
    callAttempts: 1,
    version: 'test',
  }).run(probe);

test('a right answer citing another document (swapped chunk ids) raises wrong_attribution', async () => {
  const result = await run('apt/wget');
  assert.equal(result.comparison.answer_agreement, 1, 'the answer text is unchanged');
  assert.deepEqual(result.comparison.attribution, {
    expected_sources: ['apt/curl'],
    online_cited: ['apt/wget'],
    baseline_cited: ['apt/curl'],
    relabelled_chunks: ['apt/curl@8.5.0-2#0'],
    relabelled_knowledge_ids: ['apt/curl', 'apt/wget'],
  });
  assert.equal(result.anomaly, true);
  assert.deepEqual(result.anomaly_signals, ['wrong_attribution']);
  assert.equal(result.severity, 'medium');
});

test('a clean probe is attributed right: no signal', async () => {
  const result = await run('apt/curl');
  assert.equal(result.anomaly, false, result.anomaly_signals.join(','));
  assert.deepEqual(result.comparison.attribution?.relabelled_chunks, []);
});

const side = (cited: string[], chunks: { chunk_id: string; knowledge_id: string }[] = []): CitingSide => ({
  citations: cited.map((id, i) => ({ chunk_id: `${id}#${i}`, doc_id: id, knowledge_id: id })),
  chunks: chunks.map((c) => ({ ...c, doc_id: c.knowledge_id })),
});

test('citing none of the expected sources while the baseline cites one is misattribution; both missing is not', () => {
  assert.equal(misattributed(attributionCheck(['apt/curl'], side(['apt/wget']), side(['apt/curl']))), true);
  // The baseline misses the expectation too: the probe's expected sources are in doubt, not the RAG.
  assert.equal(misattributed(attributionCheck(['apt/curl'], side(['apt/wget']), side(['apt/wget']))), false);
  // Citing the expected source beside another is fine.
  assert.equal(misattributed(attributionCheck(['apt/curl'], side(['apt/curl', 'apt/wget']), side(['apt/curl']))), false);
  // An abstention cites nothing: not an attribution question.
  assert.equal(attributionCheck(['apt/curl'], side([]), side(['apt/curl'])), null);
  assert.equal(misattributed(null), false);
});

test('a chunk retrieved under other ids than in the baseline is misattribution even when citations look expected', () => {
  const check = attributionCheck(
    ['changelog/foo'],
    side(['changelog/foo'], [{ chunk_id: 'changelog/bar@2#0', knowledge_id: 'changelog/foo' }]),
    side(['changelog/foo'], [{ chunk_id: 'changelog/bar@2#0', knowledge_id: 'changelog/bar' }]),
  );
  assert.deepEqual(check?.relabelled_chunks, ['changelog/bar@2#0']);
  assert.deepEqual(check?.relabelled_knowledge_ids, ['changelog/bar', 'changelog/foo']);
  assert.equal(misattributed(check), true);
});
