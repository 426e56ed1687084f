import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { ProbeResult } from '@rag-immune/contracts';
import { healingLog, testPause } from '@rag-immune/worker-runtime';
import { evidenceDrafts, toProbeAnalysis, type PreparedAnalysis } from '../analysis.ts';
import type { IdentifierMetrics } from '../metrics.ts';
import type { EvidenceLedger } from '../ledger/evidence-ledger.ts';
import { EMPTY_HEAD } from '../ledger/evidence-record.ts';
import type { ReportOutbox } from '../report/report-outbox.ts';
import type { ReportStaging } from '../report/report-staging.ts';
import { DEFAULT_INCIDENT_CAPS, rollIncident, type IncidentCaps } from './incident-caps.ts';
import { appendEvidence } from './incident-evidence.ts';
import { isVerification, moveTo, note, type Incident } from './incident.ts';
import type { IncidentStore, Versioned } from './incident-store.ts';

export interface GroupingDeps {
  store: IncidentStore;
  ledger: EvidenceLedger;
  staging: ReportStaging;
  outbox: ReportOutbox;
  /** An anomaly later than this after the incident's last one opens a new incident (unless it is repairing). */
  groupWindowMs: number;
  /** Consecutive clean results every probe of the incident needs before it closes. */
  cleanRoundsToClose: number;
  metrics: IdentifierMetrics;
  logger: Logger;
  now: () => number;
  /** How much of an incident its document keeps (default DEFAULT_INCIDENT_CAPS). */
  incidentCaps?: IncidentCaps;
}

const incidentIdFor = (eventId: string) => `inc-${createHash('sha256').update(eventId).digest('hex').slice(0, 16)}`;

/**
 * How long after a verification a probe run may still have begun before it: a run's start is
 * estimated from when it finished less its two RAG calls, which leaves out the scoring (seconds on a
 * loaded machine).
 */
const STALE_RESULT_MARGIN_MS = 5000;

/** When the incident's latest repair was verified (identifier time), or null if none was. */
function lastVerifiedAt(incident: Incident): number | null {
  const at = incident.timeline.filter(isVerification).map((t) => t.at);
  return at.length > 0 ? Math.max(...at) : null;
}

/** Whether the probe run began after `at`: it finished at occurred_at, after its online and baseline calls. */
function runStartedAfter(result: ProbeResult, at: number): boolean {
  return result.occurred_at - result.online.latency_ms - result.baseline.latency_ms > at;
}

/**
 * Which incident a ProbeResult belongs to. An anomaly joins the active incident while it is within
 * the group window (or being repaired), else it opens a new one (closing a stale one as superseded);
 * its analysis is ledgered and the verdict re-evaluated. A clean result counts towards closing the
 * incident its probe belongs to: once every probe had enough clean rounds, it closes.
 */
export class IncidentGrouping {
  constructor(private readonly deps: GroupingDeps) {}

  private get caps(): IncidentCaps {
    return this.deps.incidentCaps ?? DEFAULT_INCIDENT_CAPS;
  }

  /** Applies one result; returns the incident it touched, or null. Throws ConcurrentUpdateError when another writer won. */
  async apply(result: ProbeResult, prepared: PreparedAnalysis | null): Promise<string | null> {
    const { store, outbox, staging } = this.deps;
    const now = this.deps.now();
    const pointer = await store.activePointer();
    let current = pointer?.doc.incident_id ? await store.get(pointer.doc.incident_id) : null;
    if (current?.doc.pending_report) current = await outbox.flush(current);

    if (current && current.doc.probe_event_ids.includes(result.event_id)) return current.doc.incident_id; // a replay
    const active = current && current.doc.state !== 'closed' ? current : null;

    if (!result.anomaly) {
      if (!active || !active.doc.probes.some((p) => p.probe_id === result.probe_id)) return null;
      const incident = structuredClone(active.doc);
      const probe = incident.probes.find((p) => p.probe_id === result.probe_id)!;
      if (result.occurred_at <= probe.last_anomaly_at) return incident.incident_id;
      probe.clean_streak += 1;
      if (incident.probes.every((p) => p.clean_streak >= this.deps.cleanRoundsToClose) && incident.state !== 'repairing') {
        const resolution = incident.state === 'verified' ? 'repaired' : 'fault_went_away';
        incident.resolution = resolution;
        moveTo(incident, 'closed', now, 'closed', { resolution, clean_rounds: this.deps.cleanRoundsToClose });
        this.deps.metrics.transitions.inc({ to: 'closed' });
        healingLog(
          this.deps.logger,
          { incident_id: incident.incident_id, resolution },
          `incident closed after clean rounds (${resolution})`,
        );
        await store.save(incident, active);
        await store.setActive(null, pointer, now);
        return incident.incident_id;
      }
      // A clean round may also end the wait of an inconclusive incident.
      if (incident.state === 'open' || incident.state === 'diagnosing') await staging.evaluate(incident, now);
      rollIncident(incident, this.caps);
      await store.save(incident, active);
      await outbox.flushAfterSave(incident.incident_id);
      return incident.incident_id;
    }

    let basis: Versioned<Incident> | null = active;
    let incident: Incident;
    const repairing = active?.doc.state === 'repairing';
    const withinWindow = active !== null && result.occurred_at - active.doc.window_end <= this.deps.groupWindowMs;
    // Once its repair is verified, an incident keeps only what its probes saw before the repair: a
    // probe run that began after the verification looks at the repaired RAG, and its anomaly is a new
    // fault (or the old one back), diagnosed from its own evidence in its own incident. Joined to the
    // repaired incident, such anomalies diluted its reported cause (so the identifier held back its
    // abstention and nothing ever reported them) or revised it into a wrong repair.
    const verifiedAt = active ? lastVerifiedAt(active.doc) : null;
    const afterVerifiedRepair = verifiedAt !== null && !repairing && runStartedAfter(result, verifiedAt + STALE_RESULT_MARGIN_MS);
    if (active && !afterVerifiedRepair && (repairing || withinWindow)) {
      incident = structuredClone(active.doc);
    } else {
      if (active) {
        const previous = structuredClone(active.doc);
        if (afterVerifiedRepair && previous.state === 'verified') {
          previous.resolution = 'repaired';
          moveTo(previous, 'closed', now, 'closed', { resolution: 'repaired', new_fault_probe_event: result.event_id });
          this.deps.metrics.transitions.inc({ to: 'closed' });
          healingLog(
            this.deps.logger,
            { incident_id: previous.incident_id, resolution: 'repaired', probe_id: result.probe_id },
            'incident closed: its repair was verified and a probe run begun since then is anomalous (a new incident)',
          );
        } else {
          // An old incident nobody closed: a later fault is a new incident.
          moveTo(previous, 'closed', now, 'superseded', { by_probe_event: result.event_id });
        }
        rollIncident(previous, this.caps);
        await store.save(previous, active);
      }
      const id = incidentIdFor(result.event_id);
      await store.setActive(id, pointer, now);
      const existing = await store.get(id);
      basis = existing;
      incident = existing?.doc ?? newIncident(id, result, now);
      if (!existing) {
        this.deps.metrics.transitions.inc({ to: 'open' });
        healingLog(this.deps.logger, { incident_id: id, probe_id: result.probe_id }, 'incident opened');
      }
    }

    // The anomaly joins the incident: analysis → ledger → verdict.
    let probe = incident.probes.find((p) => p.probe_id === result.probe_id);
    if (!probe) {
      probe = {
        probe_id: result.probe_id,
        probe_version: result.probe_version,
        query: result.query,
        event_ids: [],
        last_anomaly_at: 0,
        clean_streak: 0,
      };
      incident.probes.push(probe);
    }
    probe.event_ids.push(result.event_id);
    probe.last_anomaly_at = Math.max(probe.last_anomaly_at, result.occurred_at);
    probe.clean_streak = 0;
    probe.probe_version = result.probe_version;
    incident.probe_event_ids.push(result.event_id);
    incident.window_start = Math.min(incident.window_start, result.occurred_at);
    incident.window_end = Math.max(incident.window_end, result.occurred_at);
    const records = await appendEvidence(this.deps.ledger, incident, evidenceDrafts(prepared!));
    // Chaos tests kill the identifier here: evidence written, incident not yet saved or reported (no-op unless armed).
    await testPause('identifier.mid-analysis', this.deps.logger, { incident_id: incident.incident_id });
    incident.analyses.push(toProbeAnalysis(prepared!, records));
    note(incident, now, 'anomaly', {
      probe_id: result.probe_id,
      probe_event_id: result.event_id,
      signals: result.anomaly_signals,
      severity: result.severity,
      trace: prepared!.status,
      layer: prepared!.layer,
    });
    if (incident.state === 'open') {
      moveTo(incident, 'diagnosing', now, 'diagnosing');
      this.deps.metrics.transitions.inc({ to: 'diagnosing' });
    }
    // The verdict and the report see the most recent analyses only; the document stays bounded.
    rollIncident(incident, this.caps);
    await staging.evaluate(incident, now);
    rollIncident(incident, this.caps);
    await store.save(incident, basis);
    await outbox.flushAfterSave(incident.incident_id);
    return incident.incident_id;
  }
}

/** A fresh incident opened by `result`. */
export function newIncident(id: string, result: ProbeResult, now: number): Incident {
  return {
    doc_type: 'incident',
    incident_id: id,
    state: 'open',
    opened_at: now,
    updated_at: now,
    closed_at: null,
    window_start: result.occurred_at,
    window_end: result.occurred_at,
    first_seen_at: now,
    probes: [],
    probe_event_ids: [],
    analyses: [],
    verdict: null,
    report_revision: 0,
    reported_at: null,
    pending_report: null,
    last_report: null,
    ledger_head: EMPTY_HEAD,
    repair: null,
    resolution: null,
    timeline: [{ at: now, event: 'opened', state: 'open', detail: { probe_id: result.probe_id, probe_event_id: result.event_id } }],
  };
}
