import { test } from 'node:test';
import assert from 'node:assert/strict';
import { caseDetail, type CaseView } from '../../src/commands/cases.ts';
import { renderShow } from '../../src/commands/incidents.ts';
import type { IndexDiffView } from '../../src/index-diff-view.ts';

const diff: IndexDiffView = {
  online_collection: 'rag-online',
  baseline_collection: 'rag-baseline',
  online_target: 'rag-online-v2',
  online_target_before: 'rag-online-v1',
  knowledge_ids: ['pkg/openssl'],
  online_points: 2,
  baseline_points: 2,
  missing: 0,
  added_unexpected: 0,
  added_after_pin: 0,
  relabelled: 0,
  payload_changed: 0,
  text_changed: 2,
  vectors_moved: 0,
  min_vector_cosine: 1,
  explained_by: [],
  unexplained: ['text_changed'],
  examples: [
    {
      kind: 'text_changed',
      knowledge_id: 'pkg/openssl',
      point_id: 'p-1',
      chunk: 'openssl@3.0#0',
      field: 'text',
      before: 'openssl 3.0',
      after: 'openssl 9.9',
    },
  ],
};

const aCase = (index_diff?: IndexDiffView | null): CaseView => ({
  case_id: 'c1',
  incident_id: 'inc-1',
  environment: 'default',
  outcome: 'escalated',
  intents: ['escalate_to_human'],
  recovered_by: null,
  time_to_recovery_ms: null,
  incident_at: 0,
  signature_text: 'unknown in vector index',
  signature: {
    root_cause: 'unknown',
    affected_component: 'vector_index',
    confidence: 0.8,
    claims: [],
    affected_knowledge_ids: [],
    ...(index_diff === undefined ? {} : { index_diff }),
  },
  actions: [],
  card: {
    status: 'active',
    importance: 1,
    access_count: 0,
    duplicate_count: 1,
    created_at: 'x',
    updated_at: 'x',
    last_used_at: null,
    superseded_by: null,
    source_event_ids: [],
    history: [],
  },
});

test('immune cases show prints the index diff kept with the case: collections, alias move, counts, what no cause explains, a changed chunk', () => {
  const text = caseDetail(aCase(diff));
  assert.match(text, /index +rag-online \(-> rag-online-v2, was rag-online-v1\) against rag-baseline: 2 vs 2 points of pkg\/openssl/);
  assert.match(text, /2 text changed/);
  assert.match(text, /fits no catalogue cause; UNEXPLAINED: text_changed/);
  assert.match(text, /text_changed pkg\/openssl openssl@3.0#0 \(point p-1\) text: openssl 3.0 -> openssl 9.9/);
});

test('a case recorded before index diffs (or with none read) prints no index line', () => {
  assert.doesNotMatch(caseDetail(aCase()), /^index/m);
  assert.doesNotMatch(caseDetail(aCase(null)), /^index/m);
});

test('immune incidents show prints the latest changed index diff of its evidence chain', () => {
  const record = (seq: number, observed: number, detail: Record<string, unknown>) => ({
    seq,
    record_id: `ev-${seq}-0123456789`,
    prev_hash: 'h',
    kind: 'measurement',
    detector: null,
    subject: 'pkg/openssl',
    metric: 'index_changed',
    observed,
    baseline: 0,
    detail,
  });
  const text = renderShow({
    incident: {
      incident_id: 'inc-1',
      state: 'reported',
      resolution: null,
      opened_at: 0,
      window_start: 0,
      window_end: 0,
      verdict: null,
      report_revision: 1,
      probes: [{ probe_id: 'p1' }],
      timeline: [],
    },
    evidence: [
      record(1, 1, {
        ...diff,
        collections: { online: 'rag-online', baseline: 'rag-baseline', online_target: null, online_target_before: null },
      }),
      record(2, 0, { ...diff, text_changed: 0, examples: [] }),
    ],
  });
  assert.match(text, /index \(record ev-1-.*\): rag-online/);
  assert.match(text, /openssl 3.0 -> openssl 9.9/);
});
