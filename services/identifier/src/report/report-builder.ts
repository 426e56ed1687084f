import { eventEnvelope, type EvidenceClaim, type RootCauseReport } from '@rag-immune/contracts';
import { IDENTIFIER_VERSION } from '../config.ts';
import { DETECTORS } from '../detectors/index.ts';
import { reportProbeEventIds } from '../incidents/incident-caps.ts';
import type { Incident } from '../incidents/incident.ts';
import type { EvidenceRecord } from '../ledger/evidence-record.ts';
import type { Verdict } from '../verdict/verdict.ts';

export const MAX_CLAIMS = 20;

/**
 * The RootCauseReport for a verdict: every claim is a ledgered evidence record of the verdict's cause
 * (or, for an abstention, the divergences), cited by id; the recommended intents are the cause's
 * detector's. `records` are the incident's ledger records.
 */
export function buildReport(
  incident: Incident,
  verdict: Verdict,
  revision: number,
  records: readonly EvidenceRecord[],
  now: number,
): RootCauseReport {
  const traced = incident.analyses.filter((a) => a.trace_status === 'ok');
  const ids =
    verdict.outcome === 'cause'
      ? traced.flatMap((a) => a.evidence_ids[verdict.root_cause as keyof typeof a.evidence_ids] ?? [])
      : traced.flatMap((a) => (a.divergence_evidence_id ? [a.divergence_evidence_id] : []));
  const byId = new Map(records.map((r) => [r.record_id, r]));
  const claims: EvidenceClaim[] = [];
  for (const id of ids) {
    const record = byId.get(id);
    if (!record || record.claim_kind === null) continue;
    claims.push({
      claim_id: `c${claims.length + 1}`,
      kind: record.claim_kind,
      subject: record.subject,
      metric: record.metric,
      observed: record.observed,
      baseline: record.baseline,
      evidence_ids: [record.record_id],
    });
    if (claims.length >= MAX_CLAIMS) break;
  }
  const detector = DETECTORS.find((d) => d.cause === verdict.root_cause);
  return {
    ...eventEnvelope('identifier', IDENTIFIER_VERSION, new Date(now)),
    incident_id: incident.incident_id,
    report_revision: revision,
    // The most recent ids only: a persistent fault's full list outgrew the bus's array and message limits.
    probe_event_ids: reportProbeEventIds(incident),
    window_start: incident.window_start,
    window_end: incident.window_end,
    root_cause: verdict.root_cause,
    affected_component: verdict.component,
    confidence: verdict.confidence,
    claims,
    open_questions: verdict.open_questions,
    affected_probes: incident.probes.map((p) => ({ probe_id: p.probe_id, probe_version: p.probe_version, query: p.query })),
    affected_knowledge_ids: verdict.knowledge_ids,
    recommended_intents: detector ? [...detector.intents] : ['escalate_to_human'],
  };
}

/** Whether the verdict names knowledge that no analysis behind the last report did. */
export function scopeGrewSinceReport(incident: Incident, knowledgeIds: string[]): boolean {
  const reportedAt = incident.reported_at;
  if (reportedAt === null || knowledgeIds.length === 0) return false;
  const reportedEvents = new Set(
    incident.timeline.filter((t) => t.at <= reportedAt && t.event === 'anomaly').map((t) => t.detail.probe_event_id),
  );
  const covered = new Set(
    incident.analyses.filter((a) => reportedEvents.has(a.probe_event_id)).flatMap((a) => Object.values(a.knowledge_ids).flat()),
  );
  return knowledgeIds.some((id) => !covered.has(id));
}
