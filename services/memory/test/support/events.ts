import { randomUUID } from 'node:crypto';
import type { RepairAction, RootCauseReport } from '@rag-immune/contracts';
import { eventEnvelope } from '@rag-immune/contracts';

type Claim = RootCauseReport['claims'][number];

export function claim(kind: Claim['kind'], metric: string, observed: number, baseline: number | null, subject = 'probe-1'): Claim {
  return { claim_id: randomUUID().slice(0, 8), kind, subject, metric, observed, baseline, evidence_ids: ['ev-1'] };
}

export function report(incidentId: string, fields: Partial<Omit<RootCauseReport, 'incident_id'>> & { at?: number } = {}): RootCauseReport {
  const at = fields.at ?? Date.now();
  const { at: _at, ...rest } = fields;
  return {
    ...eventEnvelope('identifier', 'test', new Date(at)),
    incident_id: incidentId,
    report_revision: 1,
    probe_event_ids: [randomUUID()],
    window_start: at - 60_000,
    window_end: at,
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    confidence: 0.9,
    claims: [claim('rerank_score_shift', 'top1_rerank_score', 0.4, 0.9)],
    open_questions: [],
    affected_probes: [],
    affected_knowledge_ids: [],
    recommended_intents: [],
    findings: [],
    unexplained_probes: [],
    ledger_head: null,
    index_diff: null,
    ...rest,
  };
}

export function action(
  incidentId: string,
  fields: Partial<Omit<RepairAction, 'incident_id'>> & { at?: number; recovered?: boolean } = {},
): RepairAction {
  const at = fields.at ?? Date.now();
  const { at: _at, recovered, ...rest } = fields;
  const status = rest.status ?? 'succeeded';
  return {
    ...eventEnvelope('effector', 'test', new Date(at)),
    incident_id: incidentId,
    action_id: randomUUID(),
    report_event_id: randomUUID(),
    intent: 'rollback_reranker',
    tool: 'pin_reranker',
    tool_version: '1',
    arguments: {},
    status,
    attempt: 1,
    snapshot_id: null,
    reversible: true,
    grant: null,
    verification:
      status === 'succeeded' || status === 'failed'
        ? {
            probe_ids: ['probe-1'],
            fcs_before: 0.4,
            fcs_after: (recovered ?? status === 'succeeded') ? 0.9 : 0.4,
            ic_before: null,
            ic_after: null,
            kf_age_days_before: null,
            kf_age_days_after: null,
            recovered: recovered ?? status === 'succeeded',
            outcome: 'unknown' as const,
            healed_probe_ids: [],
            unhealed_probe_ids: [],
            worsened_probe_ids: [],
          }
        : null,
    failure: status === 'failed' ? { reason: 'verification_failed', message: 'probes still degraded' } : null,
    rollback_of_action_id: null,
    ...rest,
  };
}

/** An index diff as a report carries it: two points of one knowledge id with their text rewritten in place. */
export function exampleIndexDiff(): NonNullable<RootCauseReport['index_diff']> {
  return {
    online_collection: 'rag-online',
    baseline_collection: 'rag-baseline',
    online_target: 'rag-online-v1',
    baseline_target: null,
    online_target_before: null,
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
        chunk: 'debian-changelog:openssl@3.0.17-1#0',
        field: 'text',
        before: 'openssl 3.0.17-1',
        after: 'openssl 9.9',
      },
    ],
    evidence_id: 'ev-index-1',
  };
}
