import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideVerdict, DEFAULT_POLICY, UNFITTED_CALIBRATION, type ProbeAnalysis } from '../../src/testing.ts';

const analysis = (scores: ProbeAnalysis['scores'], extra: Partial<ProbeAnalysis> = {}): ProbeAnalysis => ({
  probe_event_id: `e-${Math.random()}`,
  probe_id: 'p1',
  probe_version: 1,
  query: 'q',
  occurred_at: 0,
  trace_status: 'ok',
  trace_evidence_id: null,
  scores,
  evidence_ids: { reranker_drift: ['r1'] },
  knowledge_ids: { reranker_drift: [] },
  first_diverging_layer: 'rerank',
  divergence_evidence_id: 'd1',
  ...extra,
});

test('one analysed probe with a middling fit is inconclusive until the wait is over', () => {
  const one = [analysis({ reranker_drift: 0.7 })];
  assert.equal(decideVerdict(one, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0).outcome, 'inconclusive');
  assert.notEqual(decideVerdict(one, UNFITTED_CALIBRATION, DEFAULT_POLICY, DEFAULT_POLICY.maxWaitMs).outcome, 'inconclusive');
});

test('a strong, unambiguous fit over two probes names the cause and its component', () => {
  const verdict = decideVerdict(
    [analysis({ reranker_drift: 1 }), analysis({ reranker_drift: 1 })],
    UNFITTED_CALIBRATION,
    DEFAULT_POLICY,
    0,
  );
  assert.equal(verdict.outcome, 'cause');
  assert.equal(verdict.root_cause, 'reranker_drift');
  assert.equal(verdict.component, 'reranker');
  assert.ok(verdict.confidence >= DEFAULT_POLICY.acceptConfidence);
});

test('weak evidence abstains: unknown, the diverging layer as component, an open question', () => {
  const verdict = decideVerdict(
    [
      analysis({ vector_index_corruption: 0.2 }, { first_diverging_layer: 'retrieval' }),
      analysis({ vector_index_corruption: 0.15 }, { first_diverging_layer: 'retrieval' }),
    ],
    UNFITTED_CALIBRATION,
    DEFAULT_POLICY,
    0,
  );
  assert.equal(verdict.outcome, 'unknown');
  assert.equal(verdict.root_cause, 'unknown');
  assert.equal(verdict.component, 'retriever');
  assert.equal(verdict.open_questions[0]?.kind, 'insufficient_evidence');
});

test('two causes fitting equally well is conflicting evidence, not a guess', () => {
  const verdict = decideVerdict(
    [analysis({ parser_bug: 0.6, knowledge_source_failure: 0.6 }), analysis({ parser_bug: 0.6, knowledge_source_failure: 0.6 })],
    UNFITTED_CALIBRATION,
    DEFAULT_POLICY,
    0,
  );
  assert.equal(verdict.root_cause, 'unknown');
  assert.equal(verdict.open_questions[0]?.kind, 'conflicting_evidence');
});

test('no trace at all: unknown with trace_unavailable once the wait is over, citing the record that says so', () => {
  const missing = analysis(
    {},
    { trace_status: 'trace_unavailable', trace_evidence_id: 't1', divergence_evidence_id: null, first_diverging_layer: 'none' },
  );
  assert.equal(decideVerdict([missing], UNFITTED_CALIBRATION, DEFAULT_POLICY, 0).outcome, 'inconclusive');
  const verdict = decideVerdict([missing, { ...missing, probe_id: 'p2' }], UNFITTED_CALIBRATION, DEFAULT_POLICY, DEFAULT_POLICY.maxWaitMs);
  assert.equal(verdict.root_cause, 'unknown');
  assert.deepEqual(
    verdict.open_questions.map((q) => [q.kind, q.evidence_ids]),
    [
      ['trace_unavailable', ['t1']],
      ['trace_unavailable', ['t1']],
    ],
  );
});
