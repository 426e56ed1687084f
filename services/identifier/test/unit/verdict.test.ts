import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideVerdict, DEFAULT_POLICY, revisesReport, UNFITTED_CALIBRATION, type ProbeAnalysis } from '../../src/testing.ts';

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

test('anomalies no detector explains dilute a reported cause to unknown, which does not replace it; a new cause or a grown scope does', () => {
  const strong = [analysis({ parser_bug: 1 }), analysis({ parser_bug: 1 })];
  const reported = decideVerdict(strong, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0);
  assert.equal(reported.root_cause, 'parser_bug');
  assert.equal(revisesReport(null, reported, false), true, 'the first verdict is reported');
  // Probes caught while the fault is undone: anomalous, but their traces fit no cause.
  const diluted = decideVerdict(
    [...strong, ...Array.from({ length: 6 }, () => analysis({}, { first_diverging_layer: 'none' }))],
    UNFITTED_CALIBRATION,
    DEFAULT_POLICY,
    0,
  );
  assert.equal(diluted.outcome, 'unknown', 'the mean fit does fall below the bar');
  assert.equal(revisesReport(reported, diluted, false), false);
  assert.equal(revisesReport(reported, reported, false), false, 'the same verdict is not re-reported');
  assert.equal(revisesReport(reported, reported, true), true, 'a grown scope is');
  const other = decideVerdict([analysis({ reranker_drift: 1 }), analysis({ reranker_drift: 1 })], UNFITTED_CALIBRATION, DEFAULT_POLICY, 0);
  assert.equal(revisesReport(reported, other, false), true, 'a different named cause is');
  // An abstention is still followed by a named cause, but not by the same abstention again.
  const abstained = { root_cause: 'unknown' as const, component: 'retriever' as const };
  assert.equal(revisesReport(abstained, reported, false), true);
  assert.equal(revisesReport(abstained, { ...abstained, outcome: 'unknown' }, false), false);
});
