import { createHash, randomUUID } from 'node:crypto';
import type { ProbeResult } from './generated/ProbeResult.ts';
import type { RootCauseReport } from './generated/RootCauseReport.ts';
import type { RepairAction } from './generated/RepairAction.ts';
import { eventEnvelope } from './envelope.ts';

/**
 * Realistic example events: used by the demo to show events flowing, by the bus benchmark as
 * payload, and by tests. Not defaults for production code.
 */
export function exampleProbeResult(probeId = 'probe-debian-openssl-version', at = new Date()): ProbeResult {
  const query = 'Which upstream version of openssl does Debian 12 ship?';
  const observation = (fcs: number, traceId: string) => ({
    call_status: 'ok' as const,
    http_status: 200,
    error_message: null,
    trace_id: traceId,
    traceparent: null,
    latency_ms: 41.7,
    signals: {
      fcs,
      fcs_status: 'scored' as const,
      fcs_truncated: false,
      ic: 0.92,
      kf_as_of: at.getTime() - 12 * 86_400_000,
      kf_age_days: 12,
    },
    retrieved_documents: [
      {
        rank: 1,
        doc_id: 'debian:openssl',
        chunk_id: 'debian:openssl#changelog-3.0.17-1',
        knowledge_id: 'pkg/openssl',
        knowledge_version: '3.0.17-1~deb12u2',
        source: 'debian-changelog',
        source_trust: 0.9,
        updated_at: at.getTime() - 12 * 86_400_000,
        retrieval_score: 0.81,
        rerank_score: 0.93,
      },
    ],
    component_versions: { embedder: 'all-MiniLM-L6-v2', reranker: 'v2.1', generator: 'extractive-1' },
    answer_hash: null,
  });
  return {
    ...eventEnvelope('sentinel', '0.1.0', at),
    correlation_id: randomUUID(),
    probe_id: probeId,
    probe_version: 1,
    query,
    query_hash: createHash('sha256').update(query).digest('hex'),
    online: observation(0.62, 'trace-online-1'),
    baseline: observation(0.94, 'trace-baseline-1'),
    comparison: {
      fcs_drop: 0.32,
      ic_drop: 0,
      kf_lag_days: 0,
      answer_agreement: 1,
      online_answer_vs_baseline_fcs: null,
      baseline_answer_vs_online_fcs: null,
      knowledge_update: false,
      altered_chunks: [],
      online_latency_p95_ms: null,
      baseline_latency_p95_ms: null,
      online_timeout_rate: null,
      feed_check: null,
      unpublished_knowledge: [],
      attribution: null,
      samples: null,
      fcs_sample_test_p: null,
      ic_sample_test_p: null,
      online_fcs_median: null,
      baseline_fcs_median: null,
      online_ic_median: null,
      baseline_ic_median: null,
      pooled_test: null,
    },
    anomaly: true,
    severity: 'high',
    anomaly_signals: ['fcs_drop'],
    origin: 'golden',
    segment: null,
  };
}

export function exampleRootCauseReport(incidentId = `inc-${randomUUID()}`, at = new Date()): RootCauseReport {
  return {
    ...eventEnvelope('identifier', '0.1.0', at),
    incident_id: incidentId,
    report_revision: 1,
    probe_event_ids: [randomUUID()],
    window_start: at.getTime() - 600_000,
    window_end: at.getTime(),
    root_cause: 'reranker_drift',
    affected_component: 'reranker',
    confidence: 0.87,
    claims: [
      {
        claim_id: 'c1',
        kind: 'rerank_score_shift',
        subject: 'debian:openssl#changelog-3.0.17-1',
        metric: 'top1_rerank_score',
        observed: 0.45,
        baseline: 0.92,
        evidence_ids: ['ev-5f2c0e1b'],
      },
    ],
    open_questions: [],
    affected_probes: [{ probe_id: 'q-openssl-version', probe_version: 1, query: 'What is the latest version of openssl?' }],
    affected_knowledge_ids: [],
    recommended_intents: ['rollback_reranker'],
    findings: [],
    unexplained_probes: [],
    ledger_head: null,
    index_diff: null,
  };
}

export function exampleRepairAction(incidentId = `inc-${randomUUID()}`, at = new Date()): RepairAction {
  return {
    ...eventEnvelope('effector', '0.1.0', at),
    incident_id: incidentId,
    action_id: randomUUID(),
    report_event_id: randomUUID(),
    intent: 'rollback_reranker',
    tool: 'pin_reranker_version',
    tool_version: '1',
    arguments: { version: 'v2.1' },
    status: 'succeeded',
    attempt: 1,
    snapshot_id: 'rag-chunks-2026-11-29-11-58-00.snapshot',
    reversible: true,
    grant: null,
    verification: {
      probe_ids: ['probe-debian-openssl-version'],
      fcs_before: 0.62,
      fcs_after: 0.93,
      ic_before: 0.92,
      ic_after: 0.92,
      kf_age_days_before: 12,
      kf_age_days_after: 12,
      recovered: true,
      outcome: 'recovered',
      healed_probe_ids: ['probe-debian-openssl-version'],
      unhealed_probe_ids: [],
      worsened_probe_ids: [],
    },
    failure: null,
    rollback_of_action_id: null,
  };
}
