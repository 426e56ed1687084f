import { eventEnvelope, type EvidenceClaim, type RootCauseReport } from '@rag-immune/contracts';
import { IDENTIFIER_VERSION } from '../config.ts';
import { DETECTORS } from '../detectors/index.ts';
import { indexChanged } from '../index-diff/index-diff.ts';
import { toIndexDiffEvidence } from '../index-diff/index-evidence.ts';
import { reportProbeEventIds } from '../incidents/incident-caps.ts';
import type { Incident } from '../incidents/incident.ts';
import type { EvidenceRecord } from '../ledger/evidence-record.ts';
import type { Findings } from '../verdict/findings.ts';
import type { Cause, ProbeAnalysis, Verdict } from '../verdict/verdict.ts';

export const MAX_CLAIMS = 20;

/** Claims from the ledger records of `analyses`: the cause's measurements, or (abstaining) the divergences. */
function claimsOf(
  analyses: readonly ProbeAnalysis[],
  cause: Cause | null,
  byId: ReadonlyMap<string, EvidenceRecord>,
  idPrefix: string,
): EvidenceClaim[] {
  const traced = analyses.filter((a) => a.trace_status === 'ok');
  const ids =
    cause !== null
      ? traced.flatMap((a) => a.evidence_ids[cause] ?? [])
      : traced.flatMap((a) => (a.divergence_evidence_id ? [a.divergence_evidence_id] : []));
  const claims: EvidenceClaim[] = [];
  for (const id of [...new Set(ids)]) {
    const record = byId.get(id);
    if (!record || record.claim_kind === null) continue;
    claims.push({
      claim_id: `${idPrefix}${claims.length + 1}`,
      kind: record.claim_kind,
      subject: record.subject,
      metric: record.metric,
      observed: record.observed,
      baseline: record.baseline,
      evidence_ids: [record.record_id],
    });
    if (claims.length >= MAX_CLAIMS) break;
  }
  return claims;
}

const intentsOf = (cause: string) => {
  const detector = DETECTORS.find((d) => d.cause === cause);
  return detector ? [...detector.intents] : (['escalate_to_human'] as RootCauseReport['recommended_intents']);
};

/**
 * The RootCauseReport for a verdict: every claim is a ledgered evidence record of the verdict's cause
 * (or, for an abstention, the divergences), cited by id; the recommended intents are the cause's
 * detector's. `records` are the incident's ledger records. With `findings`, each cause gets its own
 * claims, probes and knowledge; the top-level fields are the primary (first) finding's, except the
 * affected probes, which stay every probe of the incident (what the effector checks against the record).
 */
export function buildReport(
  incident: Incident,
  verdict: Verdict,
  revision: number,
  records: readonly EvidenceRecord[],
  now: number,
  findings: Findings = { findings: [], unexplained: [] },
): RootCauseReport {
  const byId = new Map(records.map((r) => [r.record_id, r]));
  const probeOf = new Map(
    incident.probes.map((p) => [p.probe_id, { probe_id: p.probe_id, probe_version: p.probe_version, query: p.query }]),
  );
  const primary = findings.findings[0];
  const claims =
    primary !== undefined && findings.findings.length > 1
      ? claimsOf(primary.analyses, primary.verdict.root_cause, byId, 'c')
      : claimsOf(incident.analyses, verdict.outcome === 'cause' ? (verdict.root_cause as Cause) : null, byId, 'c');
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
    affected_probes: [...probeOf.values()],
    affected_knowledge_ids: verdict.knowledge_ids,
    recommended_intents: intentsOf(verdict.root_cause),
    findings: findings.findings.map((f, i) => ({
      root_cause: f.verdict.root_cause,
      affected_component: f.verdict.component,
      confidence: f.verdict.confidence,
      claims: i === 0 && findings.findings.length === 1 ? claims : claimsOf(f.analyses, f.verdict.root_cause, byId, `f${i + 1}c`),
      affected_probes: f.probe_ids.flatMap((id) => probeOf.get(id) ?? []),
      affected_knowledge_ids: f.verdict.knowledge_ids,
      recommended_intents: intentsOf(f.verdict.root_cause),
    })),
    unexplained_probes: findings.unexplained.filter((id) => probeOf.has(id)),
    // The chain's head after this report's verdict record, carried in Kafka, outside the ledger's
    // store: a ledger later cut back behind it fails verification against it.
    ledger_head: incident.ledger_head.seq > 0 ? { seq: incident.ledger_head.seq, hash: incident.ledger_head.hash } : null,
    index_diff: reportedIndexDiff(incident.analyses),
  };
}

/** The index diff a report carries: the latest one that shows a change, else the latest read (null: none read). */
export function reportedIndexDiff(analyses: readonly ProbeAnalysis[]): RootCauseReport['index_diff'] {
  const read = analyses.filter((a) => a.index_diff).sort((a, b) => b.occurred_at - a.occurred_at);
  const chosen = read.find((a) => indexChanged(a.index_diff!.diff)) ?? read[0];
  return chosen === undefined ? null : toIndexDiffEvidence(chosen.index_diff!.diff, chosen.index_diff!.evidence_id);
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
