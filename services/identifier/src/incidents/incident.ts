import type { IncidentOutcome, RagComponent, RootCause, RootCauseReport } from '@rag-immune/contracts';
import type { LedgerHead } from '../ledger/evidence-record.ts';
import type { ProbeAnalysis, Verdict } from '../verdict/verdict.ts';
import type { DroppedCounts } from './incident-caps.ts';
import { assertTransition, type IncidentState } from './incident-state.ts';

export interface TimelineEntry {
  at: number;
  /** What happened: opened, anomaly, verdict, reported, repair_<status>, clean_round, closed… */
  event: string;
  state: IncidentState;
  detail: Record<string, unknown>;
}

export interface IncidentProbe {
  probe_id: string;
  probe_version: number;
  query: string;
  event_ids: string[];
  last_anomaly_at: number;
  /** Consecutive clean results since the last anomaly. */
  clean_streak: number;
}

/** One incident: one underlying fault, persisted in `<prefix>-incidents`. */
export interface Incident {
  doc_type: 'incident';
  incident_id: string;
  state: IncidentState;
  opened_at: number;
  updated_at: number;
  closed_at: number | null;
  /** occurred_at of the first and last anomalous ProbeResult. */
  window_start: number;
  window_end: number;
  /** When the identifier first saw an anomaly of this incident (wall clock): start of the time-to-report. */
  first_seen_at: number;
  probes: IncidentProbe[];
  probe_event_ids: string[];
  analyses: ProbeAnalysis[];
  verdict: Pick<Verdict, 'outcome' | 'root_cause' | 'component' | 'confidence' | 'best_cause'> | null;
  report_revision: number;
  reported_at: number | null;
  /** A report decided but not yet acknowledged by Kafka (outbox): published first on the next delivery. */
  pending_report: RootCauseReport | null;
  /** What the effector checks a report against (its admission): the issued revision's identity and scope. */
  last_report:
    | (Pick<RootCauseReport, 'event_id' | 'report_revision' | 'root_cause' | 'affected_component' | 'confidence'> &
        Partial<Pick<RootCauseReport, 'affected_knowledge_ids'>> & {
          /** Every cause the report named (its findings), sorted; absent on reports before findings. */
          causes?: string[];
          /** Each finding's identity and scope, for the effector's admission; absent on reports before findings. */
          findings?: Pick<RootCauseReport['findings'][number], 'root_cause' | 'affected_component' | 'affected_knowledge_ids'>[];
        })
    | null;
  ledger_head: LedgerHead;
  repair: { action_id: string; status: string; attempt: number; intent: string; recovered: boolean | null } | null;
  resolution: 'repaired' | 'fault_went_away' | 'escalated' | null;
  timeline: TimelineEntry[];
  /** How many of the oldest ids, analyses and timeline entries were rolled off (incident-caps.ts); absent when none. */
  dropped?: DroppedCounts;
}

export function moveTo(incident: Incident, to: IncidentState, at: number, event: string, detail: Record<string, unknown> = {}): void {
  if (incident.state !== to || to === 'reported' || to === 'repairing') assertTransition(incident.state, to);
  incident.state = to;
  incident.updated_at = at;
  incident.timeline.push({ at, event, state: to, detail });
  if (to === 'closed') incident.closed_at = at;
}

/**
 * Whether a timeline entry records a repair verified (the effector's `succeeded`, recovered). Not
 * every entry in state `verified`: anomalies noted while the incident stays verified carry that
 * state too, and reading their times as verification times kept pushing it forward.
 */
export function isVerification(entry: Pick<TimelineEntry, 'state' | 'event'>): boolean {
  return entry.state === 'verified' && entry.event === 'repair_succeeded';
}

export function note(incident: Incident, at: number, event: string, detail: Record<string, unknown> = {}): void {
  incident.updated_at = at;
  incident.timeline.push({ at, event, state: incident.state, detail });
}

export type IncidentSummary = Pick<
  Incident,
  'incident_id' | 'state' | 'opened_at' | 'updated_at' | 'closed_at' | 'report_revision' | 'window_start' | 'window_end'
> & { root_cause: RootCause | null; component: RagComponent | null; confidence: number | null; probes: number; outcome: IncidentOutcome };

/**
 * The incident in the vocabulary every worker shares (avro/common/IncidentOutcome.avsc): still open
 * while diagnosed or repaired; recovered once a repair verified, or closed after clean rounds;
 * escalated while a human has it; failed when repairs failed, or when a later fault superseded it unhealed.
 */
export function incidentOutcome(incident: Pick<Incident, 'state' | 'resolution'>): IncidentOutcome {
  switch (incident.state) {
    case 'verified':
      return 'recovered';
    case 'failed':
      return 'failed';
    case 'escalated':
      return 'escalated';
    case 'closed':
      return incident.resolution === 'escalated' ? 'escalated' : incident.resolution === null ? 'failed' : 'recovered';
    default:
      return 'open';
  }
}

export function summarise(incident: Incident): IncidentSummary {
  return {
    incident_id: incident.incident_id,
    state: incident.state,
    opened_at: incident.opened_at,
    updated_at: incident.updated_at,
    closed_at: incident.closed_at,
    report_revision: incident.report_revision,
    window_start: incident.window_start,
    window_end: incident.window_end,
    root_cause: incident.verdict?.root_cause ?? null,
    component: incident.verdict?.component ?? null,
    confidence: incident.verdict?.confidence ?? null,
    probes: incident.probes.length,
    outcome: incidentOutcome(incident),
  };
}
