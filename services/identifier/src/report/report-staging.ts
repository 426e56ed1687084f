import type { Logger } from 'pino';
import { healingLog } from '@rag-immune/worker-runtime';
import type { IdentifierMetrics } from '../metrics.ts';
import { appendEvidence } from '../incidents/incident-evidence.ts';
import { moveTo, note, type Incident } from '../incidents/incident.ts';
import type { EvidenceLedger } from '../ledger/evidence-ledger.ts';
import type { Calibration } from '../verdict/calibration.ts';
import { assertClaimsBacked, ClaimGateError } from '../verdict/claim-gate.ts';
import { decideVerdict, revisesReport, weakensReportedCause, type VerdictPolicy } from '../verdict/verdict.ts';
import { decideFindings, reportedFindings } from '../verdict/findings.ts';
import { buildReport, scopeGrewSinceReport } from './report-builder.ts';

export interface ReportStagingDeps {
  ledger: EvidenceLedger;
  calibration: Calibration;
  policy: VerdictPolicy;
  metrics: IdentifierMetrics;
  logger: Logger;
  now: () => number;
}

/**
 * Recomputes an incident's verdict and, only when it changed (or its scope grew), stages the next
 * report revision on the incident: the verdict ledgered, the report built and checked against the
 * ledger (claim gate), the incident moved to reported. The outbox publishes what is staged.
 */
export class ReportStaging {
  constructor(private readonly deps: ReportStagingDeps) {}

  async evaluate(incident: Incident, now: number): Promise<void> {
    const { deps } = this;
    const waited = now - incident.first_seen_at;
    const whole = decideVerdict(incident.analyses, deps.calibration, deps.policy, waited);
    // Several causes: each probe group judged on its own; the primary finding is the top-level verdict.
    const { primary: verdict, findings } = reportedFindings(
      whole,
      decideFindings(incident.analyses, deps.calibration, deps.policy, waited),
      incident.analyses,
      incident.probes.map((p) => p.probe_id),
      incident.last_report?.root_cause ?? null,
    );
    const causes = findings.findings.map((f) => f.verdict.root_cause).sort();
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
    const scopeGrew = findings.findings.some((f) => scopeGrewSinceReport(incident, f.verdict.knowledge_ids));
    // A cause found or gone beside the reported one is a new report too (the effector repairs per cause).
    if (!revisesReport(previous, verdict, scopeGrew || causesChanged(incident.last_report, causes))) return;

    const revision = incident.report_revision + 1;
    const [verdictRecord] = await appendEvidence(deps.ledger, incident, [
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
          causes,
          unexplained: findings.unexplained.length,
        },
      },
    ]);
    const report = buildReport(
      incident,
      verdict,
      revision,
      await deps.ledger.recordsById(incident.incident_id, citedIds(incident)),
      deps.now(),
      findings,
    );
    try {
      await assertClaimsBacked(report, deps.ledger);
    } catch (error) {
      if (!(error instanceof ClaimGateError)) throw error;
      // Refused, not retried: the same evidence would be refused again and block the partition.
      deps.metrics.reportsRefused.inc();
      deps.logger.error({ incident_id: incident.incident_id, problems: error.problems }, error.message);
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
      affected_knowledge_ids: report.affected_knowledge_ids,
      causes,
      // What the effector's admission checks each finding of the report against (a finding scopes its own repair).
      findings: report.findings.map((f) => ({
        root_cause: f.root_cause,
        affected_component: f.affected_component,
        affected_knowledge_ids: f.affected_knowledge_ids,
      })),
    };
    moveTo(incident, 'reported', now, 'reported', {
      revision,
      root_cause: report.root_cause,
      component: report.affected_component,
      confidence: report.confidence,
      verdict_evidence_id: verdictRecord?.record_id,
    });
    deps.metrics.transitions.inc({ to: 'reported' });
    deps.metrics.verdicts.inc({ cause: report.root_cause, outcome: verdict.outcome });
    if (revision === 1) deps.metrics.timeToReport.observe(Math.max(0, now - incident.window_start) / 1000);
    healingLog(
      deps.logger,
      {
        incident_id: incident.incident_id,
        revision,
        root_cause: report.root_cause,
        component: report.affected_component,
        confidence: Number(report.confidence.toFixed(3)),
        open_questions: report.open_questions.map((q) => q.kind),
        claims: report.claims.length,
        findings: causes,
        unexplained_probes: report.unexplained_probes.length,
      },
      `verdict ${report.root_cause} (${report.affected_component}) at confidence ${report.confidence.toFixed(2)}, revision ${revision}`,
    );
  }
}

/** Whether the named causes differ from the last report's (reports before findings named one: their root cause). */
function causesChanged(last: Incident['last_report'], causes: readonly string[]): boolean {
  if (last === null) return false;
  const before = last.causes ?? (last.root_cause === 'unknown' ? [] : [last.root_cause]);
  return before.length !== causes.length || before.some((c) => !causes.includes(c));
}

/** Every ledger record id the incident's analyses point at: all a report can cite (never the whole chain). */
function citedIds(incident: Incident): string[] {
  return incident.analyses.flatMap((a) => [
    ...Object.values(a.evidence_ids).flatMap((ids) => ids ?? []),
    ...(a.divergence_evidence_id ? [a.divergence_evidence_id] : []),
  ]);
}
