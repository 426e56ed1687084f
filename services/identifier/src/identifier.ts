/**
 * The identifier's behaviour, independent of Kafka and HTTP: a ProbeResult joins (or opens) an
 * incident, is analysed and ledgered; the incident's verdict is recomputed and reported when it
 * changed; RepairActions move the incident through repairing/verified/failed/escalated; clean
 * rounds close it. All incident writes use optimistic concurrency; a conflict re-reads and retries.
 */
import { createHash } from 'node:crypto';
import { context, type Context, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { eventEnvelope, type EvidenceClaim, type ProbeResult, type RepairAction, type RootCauseReport } from '@rag-immune/contracts';
import type { RagClient } from '@rag-immune/rag-contract';
import { healingLog, inSpan, testPause } from '@rag-immune/worker-runtime';
import { evidenceDrafts, prepareAnalysis, toProbeAnalysis, type PreparedAnalysis } from './analysis.ts';
import { DETECTORS } from './detectors/index.ts';
import type { IdentifierMetrics } from './identifier-metrics.ts';
import type { TraceSource } from './trace-diff/trace-sources.ts';
import { moveTo, note, type Incident } from './incidents/incident.ts';
import { ConcurrentUpdateError, type IncidentStore, type Versioned } from './incidents/incident-store.ts';
import type { EvidenceLedger } from './ledger/evidence-ledger.ts';
import { EMPTY_HEAD, type EvidenceDraft, type EvidenceRecord } from './ledger/evidence-record.ts';
import type { Calibration } from './verdict/calibration.ts';
import { assertClaimsBacked, ClaimGateError } from './verdict/claim-gate.ts';
import { decideVerdict, revisesReport, weakensReportedCause, type Verdict, type VerdictPolicy } from './verdict/verdict.ts';

export const IDENTIFIER_VERSION = '0.1.0';
const MAX_CLAIMS = 20;
const CONFLICT_RETRIES = 8;

export interface IdentifierOptions {
  store: IncidentStore;
  ledger: EvidenceLedger;
  rag: { online: RagClient; baseline: RagClient };
  /** Where each side's traces are read; default the RAGs' GET /traces. */
  traces?: { online: TraceSource; baseline: TraceSource };
  publishReport: (report: RootCauseReport) => Promise<void>;
  calibration: Calibration;
  policy: VerdictPolicy;
  /** An anomaly later than this after the incident's last one opens a new incident (unless it is repairing). */
  groupWindowMs: number;
  /** Consecutive clean results every probe of the incident needs before it closes. */
  cleanRoundsToClose: number;
  traceTimeoutMs: number;
  metrics: IdentifierMetrics;
  logger: Logger;
  tracer: Tracer;
  now?: () => number;
}

/**
 * How long after a verification a probe run may still have begun before it: a run's start is
 * estimated from when it finished less its two RAG calls, which leaves out the scoring (seconds on a
 * loaded machine).
 */
const STALE_RESULT_MARGIN_MS = 5000;

/** When the incident's latest repair was verified (identifier time), or null if none was. */
function lastVerifiedAt(incident: Incident): number | null {
  const at = incident.timeline.filter((t) => t.state === 'verified').map((t) => t.at);
  return at.length > 0 ? Math.max(...at) : null;
}

/** Whether the probe run began after `at`: it finished at occurred_at, after its online and baseline calls. */
function runStartedAfter(result: ProbeResult, at: number): boolean {
  return result.occurred_at - result.online.latency_ms - result.baseline.latency_ms > at;
}

const incidentIdFor = (eventId: string) => `inc-${createHash('sha256').update(eventId).digest('hex').slice(0, 16)}`;

export class Identifier {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly options: IdentifierOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Serialises incident mutations within this replica (other replicas are kept apart by seq_no). */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async withRetries<T>(work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        if (!(error instanceof ConcurrentUpdateError) || attempt >= CONFLICT_RETRIES) throw error;
        this.options.logger.info({ attempt }, 'incident changed concurrently; re-reading');
      }
    }
  }

  /** Handles one ProbeResult in span `identifier.analyze`, continuing the sentinel's trace. */
  async handleProbeResult(result: ProbeResult, parent: Context = context.active()): Promise<void> {
    await inSpan(
      this.options.tracer,
      'identifier.analyze',
      { probe_id: result.probe_id, probe_event_id: result.event_id, anomaly: result.anomaly },
      parent,
      async (span) => {
        const prepared = result.anomaly
          ? await prepareAnalysis(result, this.options.rag, this.options.traceTimeoutMs, this.options.traces)
          : null;
        if (prepared) this.options.metrics.traceFetches.inc({ outcome: prepared.status });
        const incidentId = await this.serial(() => this.withRetries(() => this.apply(result, prepared)));
        if (incidentId) span.setAttribute('incident_id', incidentId);
      },
    );
  }

  private async apply(result: ProbeResult, prepared: PreparedAnalysis | null): Promise<string | null> {
    const { store } = this.options;
    const now = this.now();
    const pointer = await store.activePointer();
    let current = pointer?.doc.incident_id ? await store.get(pointer.doc.incident_id) : null;
    if (current?.doc.pending_report) current = await this.flushPending(current);

    if (current && current.doc.probe_event_ids.includes(result.event_id)) return current.doc.incident_id; // a replay
    const active = current && current.doc.state !== 'closed' ? current : null;

    if (!result.anomaly) {
      if (!active || !active.doc.probes.some((p) => p.probe_id === result.probe_id)) return null;
      const incident = structuredClone(active.doc);
      const probe = incident.probes.find((p) => p.probe_id === result.probe_id)!;
      if (result.occurred_at <= probe.last_anomaly_at) return incident.incident_id;
      probe.clean_streak += 1;
      if (incident.probes.every((p) => p.clean_streak >= this.options.cleanRoundsToClose) && incident.state !== 'repairing') {
        const resolution = incident.state === 'verified' ? 'repaired' : 'fault_went_away';
        incident.resolution = resolution;
        moveTo(incident, 'closed', now, 'closed', { resolution, clean_rounds: this.options.cleanRoundsToClose });
        this.options.metrics.transitions.inc({ to: 'closed' });
        healingLog(
          this.options.logger,
          { incident_id: incident.incident_id, resolution },
          `incident closed after clean rounds (${resolution})`,
        );
        await this.save(incident, active);
        await store.setActive(null, pointer, now);
        return incident.incident_id;
      }
      // A clean round may also end the wait of an inconclusive incident.
      if (incident.state === 'open' || incident.state === 'diagnosing') await this.evaluate(incident, now);
      await this.save(incident, active);
      await this.flushAfterSave(incident.incident_id);
      return incident.incident_id;
    }

    let basis: Versioned<Incident> | null = active;
    let incident: Incident;
    const repairing = active?.doc.state === 'repairing';
    const withinWindow = active !== null && result.occurred_at - active.doc.window_end <= this.options.groupWindowMs;
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
          this.options.metrics.transitions.inc({ to: 'closed' });
          healingLog(
            this.options.logger,
            { incident_id: previous.incident_id, resolution: 'repaired', probe_id: result.probe_id },
            'incident closed: its repair was verified and a probe run begun since then is anomalous (a new incident)',
          );
        } else {
          // An old incident nobody closed: a later fault is a new incident.
          moveTo(previous, 'closed', now, 'superseded', { by_probe_event: result.event_id });
        }
        await this.save(previous, active);
      }
      const id = incidentIdFor(result.event_id);
      await store.setActive(id, pointer, now);
      const existing = await store.get(id);
      basis = existing;
      incident = existing?.doc ?? this.newIncident(id, result, now);
      if (!existing) {
        this.options.metrics.transitions.inc({ to: 'open' });
        healingLog(this.options.logger, { incident_id: id, probe_id: result.probe_id }, 'incident opened');
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
    const records = await this.appendEvidence(incident, evidenceDrafts(prepared!));
    // Chaos tests kill the identifier here: evidence written, incident not yet saved or reported (no-op unless armed).
    await testPause('identifier.mid-analysis', this.options.logger, { incident_id: incident.incident_id });
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
      this.options.metrics.transitions.inc({ to: 'diagnosing' });
    }
    await this.evaluate(incident, now);
    await this.save(incident, basis);
    await this.flushAfterSave(incident.incident_id);
    return incident.incident_id;
  }

  private newIncident(id: string, result: ProbeResult, now: number): Incident {
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

  private async appendEvidence(incident: Incident, drafts: EvidenceDraft[]): Promise<EvidenceRecord[]> {
    const { records, head } = await this.options.ledger.append(incident.incident_id, incident.ledger_head, drafts);
    incident.ledger_head = head;
    return records;
  }

  /** Recomputes the verdict; stages a new report revision only when the verdict changed. */
  private async evaluate(incident: Incident, now: number): Promise<void> {
    const waited = now - incident.first_seen_at;
    const verdict = decideVerdict(incident.analyses, this.options.calibration, this.options.policy, waited);
    if (verdict.outcome === 'inconclusive') {
      incident.verdict = {
        outcome: verdict.outcome,
        root_cause: 'unknown',
        component: 'unknown',
        confidence: verdict.confidence,
        best_cause: verdict.best_cause,
      };
      return;
    }
    const previous = incident.last_report
      ? { root_cause: incident.last_report.root_cause, component: incident.last_report.affected_component }
      : null;
    if (weakensReportedCause(previous, verdict)) {
      // The reported cause stands (revisesReport); the weaker fit goes on the timeline, once per revision.
      const revision = incident.report_revision;
      if (!incident.timeline.some((t) => t.event === 'verdict_weakened' && t.detail.revision === revision))
        note(incident, now, 'verdict_weakened', {
          revision,
          reported: previous!.root_cause,
          confidence: verdict.confidence,
          best_cause: verdict.best_cause,
        });
      return;
    }
    incident.verdict = {
      outcome: verdict.outcome,
      root_cause: verdict.root_cause,
      component: verdict.component,
      confidence: verdict.confidence,
      best_cause: verdict.best_cause,
    };
    // Same verdict, but it now implicates knowledge the last report did not name (a scoped fault shows
    // on more knowledge than its first anomalies did): a revision with the grown scope, so that the
    // repair covers it. Global causes (no knowledge ids) get no such revision.
    if (!revisesReport(previous, verdict, scopeGrewSinceReport(incident, verdict.knowledge_ids))) return;

    const revision = incident.report_revision + 1;
    const [verdictRecord] = await this.appendEvidence(incident, [
      {
        kind: 'verdict',
        probe_event_id: null,
        probe_id: null,
        detector: verdict.best_cause,
        claim_kind: null,
        subject: verdict.root_cause,
        metric: 'calibrated_confidence',
        observed: verdict.confidence,
        baseline: null,
        occurred_at: incident.window_end,
        detail: {
          outcome: verdict.outcome,
          component: verdict.component,
          features: verdict.features,
          revision,
          analysed: incident.analyses.length,
        },
      },
    ]);
    const report = await this.buildReport(incident, verdict, revision);
    try {
      await assertClaimsBacked(report, this.options.ledger);
    } catch (error) {
      if (!(error instanceof ClaimGateError)) throw error;
      // Refused, not retried: the same evidence would be refused again and block the partition.
      this.options.metrics.reportsRefused.inc();
      this.options.logger.error({ incident_id: incident.incident_id, problems: error.problems }, error.message);
      note(incident, now, 'report_refused', { revision, problems: error.problems });
      return;
    }
    incident.pending_report = report;
    incident.report_revision = revision;
    incident.reported_at = now;
    incident.last_report = {
      event_id: report.event_id,
      report_revision: revision,
      root_cause: report.root_cause,
      affected_component: report.affected_component,
      confidence: report.confidence,
    };
    moveTo(incident, 'reported', now, 'reported', {
      revision,
      root_cause: report.root_cause,
      component: report.affected_component,
      confidence: report.confidence,
      verdict_evidence_id: verdictRecord?.record_id,
    });
    this.options.metrics.transitions.inc({ to: 'reported' });
    this.options.metrics.verdicts.inc({ cause: report.root_cause, outcome: verdict.outcome });
    if (revision === 1) this.options.metrics.timeToReport.observe(Math.max(0, now - incident.window_start) / 1000);
    healingLog(
      this.options.logger,
      {
        incident_id: incident.incident_id,
        revision,
        root_cause: report.root_cause,
        component: report.affected_component,
        confidence: Number(report.confidence.toFixed(3)),
        open_questions: report.open_questions.map((q) => q.kind),
        claims: report.claims.length,
      },
      `verdict ${report.root_cause} (${report.affected_component}) at confidence ${report.confidence.toFixed(2)}, revision ${revision}`,
    );
  }

  private async buildReport(incident: Incident, verdict: Verdict, revision: number): Promise<RootCauseReport> {
    const traced = incident.analyses.filter((a) => a.trace_status === 'ok');
    const ids =
      verdict.outcome === 'cause'
        ? traced.flatMap((a) => a.evidence_ids[verdict.root_cause as keyof typeof a.evidence_ids] ?? [])
        : traced.flatMap((a) => (a.divergence_evidence_id ? [a.divergence_evidence_id] : []));
    const records = await this.options.ledger.records(incident.incident_id);
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
      ...eventEnvelope('identifier', IDENTIFIER_VERSION, new Date(this.now())),
      incident_id: incident.incident_id,
      report_revision: revision,
      probe_event_ids: [...incident.probe_event_ids],
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

  private async save(incident: Incident, basis: Versioned<Incident> | null): Promise<void> {
    await this.options.store.save(incident, basis);
  }

  /** Publishes a staged report (outbox), then clears it; a failed publish leaves it staged for the next delivery. */
  private async flushAfterSave(incidentId: string): Promise<void> {
    const saved = await this.options.store.get(incidentId);
    if (saved?.doc.pending_report) await this.flushPending(saved);
  }

  private async flushPending(current: Versioned<Incident>): Promise<Versioned<Incident> | null> {
    const report = current.doc.pending_report!;
    await this.options.publishReport(report);
    const incident = structuredClone(current.doc);
    incident.pending_report = null;
    note(incident, this.now(), 'report_published', { event_id: report.event_id, revision: report.report_revision });
    await this.save(incident, current);
    return this.options.store.get(incident.incident_id);
  }

  /** A RepairAction lifecycle step from the effector moves the incident it names. */
  async handleRepairAction(action: RepairAction): Promise<void> {
    await this.serial(() =>
      this.withRetries(async () => {
        const current = await this.options.store.get(action.incident_id);
        if (!current) {
          this.options.logger.warn(
            { incident_id: action.incident_id, status: action.status },
            'repair action for an unknown incident ignored',
          );
          return;
        }
        const incident = structuredClone(current.doc);
        if (incident.state === 'closed') return;
        if (incident.timeline.some((t) => t.detail.action_event_id === action.event_id)) return; // a replay
        const now = this.now();
        const to =
          action.status === 'planned' || action.status === 'started'
            ? 'repairing'
            : action.status === 'succeeded'
              ? action.verification?.recovered === false
                ? 'failed'
                : 'verified'
              : action.status === 'failed' || action.status === 'rolled_back'
                ? 'failed'
                : action.status === 'escalated'
                  ? 'escalated'
                  : null;
        incident.repair = {
          action_id: action.action_id,
          status: action.status,
          attempt: action.attempt,
          intent: action.intent,
          recovered: action.verification?.recovered ?? null,
        };
        const detail = {
          action_event_id: action.event_id,
          action_id: action.action_id,
          status: action.status,
          intent: action.intent,
          attempt: action.attempt,
        };
        if (to === null || to === incident.state) note(incident, now, `repair_${action.status}`, detail);
        else {
          moveTo(incident, to, now, `repair_${action.status}`, detail);
          this.options.metrics.transitions.inc({ to });
          healingLog(this.options.logger, { incident_id: incident.incident_id, ...detail }, `incident ${to} (repair ${action.status})`);
        }
        await this.save(incident, current);
      }),
    );
  }

  /** Incident counts by state for the gauge. */
  async refreshStateGauge(): Promise<void> {
    const incidents = await this.options.store.list({ size: 1000 });
    const counts = new Map<string, number>();
    for (const incident of incidents) counts.set(incident.state, (counts.get(incident.state) ?? 0) + 1);
    for (const state of ['open', 'diagnosing', 'reported', 'repairing', 'verified', 'failed', 'escalated', 'closed'])
      this.options.metrics.incidents.set({ state }, counts.get(state) ?? 0);
  }
}

/** Whether the verdict names knowledge that no analysis behind the last report did. */
function scopeGrewSinceReport(incident: Incident, knowledgeIds: string[]): boolean {
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
