import type { RootCauseReport } from '@rag-immune/contracts';
import type { EffectorDeps } from '../effector-deps.ts';
import { IdentifierUnreachableError, type IdentifierIncident } from './identifier-records.ts';

export { IdentifierUnreachableError } from './identifier-records.ts';

/** The default cap on affected probes a report may name (EFFECTOR_MAX_AFFECTED_PROBES). */
export const DEFAULT_MAX_AFFECTED_PROBES = 200;

/** Why a report is not acted on. */
export type RefusalReason =
  /** It names more affected probes than any incident plausibly has. */
  | 'too_many_probes'
  /** The identifier knows no such incident. */
  | 'unknown_incident'
  /** A revision the identifier has not issued (beyond its latest), or not the one it issued under that revision. */
  | 'not_issued'
  /** Affected probes the identifier did not group into the incident (or with another query). */
  | 'probes_mismatch'
  /** A window outside the identifier's window of the incident. */
  | 'window_mismatch'
  /** Knowledge ids (what a reparse or re-ingest touches) the identifier's report did not name. */
  | 'knowledge_mismatch'
  /**
   * The evidence ledger is behind (or beside) the head the report carried from Kafka: cut back to an
   * older head, or rewritten, since the report was issued. Its evidence cannot be trusted.
   */
  | 'ledger_truncated';

export type Admission =
  | { admitted: true; report: RootCauseReport; adjusted: string[] }
  /** An earlier revision than the identifier's latest: its successor is on its way. */
  | { admitted: false; superseded: true; message: string }
  | { admitted: false; superseded: false; reason: RefusalReason; message: string };

/** A report naming implausibly many probes (a burst of them would run thousands of verification queries). */
export function probeCapRefusal(report: RootCauseReport, maxProbes: number): Admission | null {
  if (report.affected_probes.length <= maxProbes) return null;
  return {
    admitted: false,
    superseded: false,
    reason: 'too_many_probes',
    message: `the report names ${report.affected_probes.length} affected probes (at most ${maxProbes} are plausible)`,
  };
}

/**
 * Checks a report against the identifier's record of its incident. Admitted, it is returned as the
 * effector will act on it: its probes are the union of its own and the identifier's (verification
 * re-runs every probe the identifier grouped into the incident, not only those the report names) and
 * its window starts where the identifier's does (a restore picks its snapshot from it).
 */
export function checkAgainstRecord(report: RootCauseReport, record: IdentifierIncident | null): Admission {
  const refuse = (reason: RefusalReason, message: string): Admission => ({ admitted: false, superseded: false, reason, message });
  if (record === null) return refuse('unknown_incident', `the identifier knows no incident ${report.incident_id}`);
  if (report.report_revision < record.report_revision)
    return {
      admitted: false,
      superseded: true,
      message: `revision ${report.report_revision} is superseded: the identifier's latest is ${record.report_revision}`,
    };
  if (report.report_revision > record.report_revision)
    return refuse(
      'not_issued',
      `revision ${report.report_revision} was never issued: the identifier's latest is ${record.report_revision}`,
    );
  const issued = record.last_report;
  if (issued === null || issued.report_revision !== report.report_revision || issued.event_id !== report.event_id)
    return refuse(
      'not_issued',
      `revision ${report.report_revision} is not the report the identifier issued (event ${issued?.event_id ?? 'none'}, not ${report.event_id})`,
    );
  if (issued.root_cause !== report.root_cause || issued.affected_component !== report.affected_component)
    return refuse(
      'not_issued',
      `the identifier's revision ${report.report_revision} names ${issued.root_cause} (${issued.affected_component}), not ${report.root_cause} (${report.affected_component})`,
    );
  // The ids scope reparse / re-ingest: a forged list would re-ingest documents nothing implicated.
  if (issued.affected_knowledge_ids !== undefined) {
    const issuedIds = new Set(issued.affected_knowledge_ids);
    const unnamed = report.affected_knowledge_ids.filter((id) => !issuedIds.has(id));
    if (unnamed.length > 0 || issuedIds.size !== new Set(report.affected_knowledge_ids).size)
      return refuse(
        'knowledge_mismatch',
        unnamed.length > 0
          ? `knowledge ids ${unnamed.slice(0, 5).join(', ')}${unnamed.length > 5 ? ` (+${unnamed.length - 5})` : ''} are not the ones the identifier's revision ${report.report_revision} names`
          : `the report drops knowledge ids the identifier's revision ${report.report_revision} names`,
      );
  }
  // Several causes: each finding is repaired on its own, scoped by its own ids; every one must be one the identifier issued.
  if (issued.findings !== undefined) {
    const findings = report.findings ?? [];
    const forged = findings.filter((f) => {
      const own = issued.findings!.find((i) => i.root_cause === f.root_cause && i.affected_component === f.affected_component);
      const ids = new Set(f.affected_knowledge_ids);
      return own === undefined || own.affected_knowledge_ids.length !== ids.size || own.affected_knowledge_ids.some((id) => !ids.has(id));
    });
    if (forged.length > 0 || findings.length !== issued.findings.length)
      return refuse(
        'knowledge_mismatch',
        `the report's findings (${findings.map((f) => f.root_cause).join(', ') || 'none'}) are not the ones the identifier's revision ${report.report_revision} names${
          forged.length > 0 ? ` (${forged.map((f) => f.root_cause).join(', ')} differ in cause, component or knowledge ids)` : ''
        }`,
      );
  }
  // A head no ledger could have (the identifier's verify would answer 400 and hold the report for ever).
  if (
    report.ledger_head !== null &&
    (!Number.isSafeInteger(report.ledger_head.seq) || report.ledger_head.seq < 1 || !/^[0-9a-f]{64}$/.test(report.ledger_head.hash))
  )
    return refuse('ledger_truncated', `the report's ledger head (sequence ${report.ledger_head.seq}) is not one a ledger could have`);
  // The report's ledger head (kept in Kafka) against the identifier's: the identifier's head only moves on.
  if (report.ledger_head !== null && record.ledger_head !== undefined && record.ledger_head.seq < report.ledger_head.seq)
    return refuse(
      'ledger_truncated',
      `the identifier's evidence ledger head is at sequence ${record.ledger_head.seq}, behind sequence ${report.ledger_head.seq} that revision ${report.report_revision} carried (the ledger was cut back)`,
    );
  const known = new Map(record.probes.map((p) => [p.probe_id, p]));
  const foreign = [...report.affected_probes, ...(report.findings ?? []).flatMap((f) => f.affected_probes)]
    .filter((p) => known.get(p.probe_id)?.query !== p.query)
    .map((p) => p.probe_id);
  if (foreign.length > 0)
    return refuse(
      'probes_mismatch',
      `affected probes ${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ` (+${foreign.length - 5})` : ''} are not the incident's as the identifier recorded them`,
    );
  // An anomaly seen late (out of order) may have moved the identifier's start earlier since the
  // report was built; a report's window outside the identifier's is not its own.
  if (
    report.window_start < record.window_start ||
    report.window_start > record.window_end ||
    report.window_end < report.window_start ||
    report.window_end > record.window_end
  )
    return refuse(
      'window_mismatch',
      `window ${report.window_start}..${report.window_end} is not within the identifier's ${record.window_start}..${record.window_end}`,
    );
  const adjusted: string[] = [];
  const probes = record.probes.map((p) => ({ probe_id: p.probe_id, probe_version: p.probe_version, query: p.query }));
  const named = new Set(report.affected_probes.map((p) => p.probe_id));
  const added = probes.filter((p) => !named.has(p.probe_id)).map((p) => p.probe_id);
  if (added.length > 0) adjusted.push(`verification also re-runs the identifier's probes ${added.join(', ')}`);
  if (report.window_start !== record.window_start)
    adjusted.push(`window_start ${report.window_start} → ${record.window_start} (the identifier's start of the incident)`);
  return { admitted: true, report: { ...report, affected_probes: probes, window_start: record.window_start }, adjusted };
}

/**
 * The door a report from Kafka passes before anything is recorded or repaired: the probe cap, then
 * (when the identifier's API is configured) the identifier's own record of the incident. Refusals are
 * logged and counted and the report is dropped; an identifier that cannot be asked throws
 * IdentifierUnreachableError, so the bus retries the delivery with backoff and then leaves it
 * uncommitted: the report is held in Kafka, never acted on unchecked, and handled once the identifier
 * answers (effector_identifier_unreachable is 1 meanwhile: page on it).
 */
export async function admitReport(
  deps: Pick<EffectorDeps, 'identifierRecords' | 'maxAffectedProbes' | 'logger' | 'metrics'>,
  report: RootCauseReport,
): Promise<Admission> {
  const log = deps.logger.child({
    incident_id: report.incident_id,
    report_revision: report.report_revision,
    report_event_id: report.event_id,
  });
  const capped = probeCapRefusal(report, deps.maxAffectedProbes ?? DEFAULT_MAX_AFFECTED_PROBES);
  let admission: Admission;
  if (capped !== null) admission = capped;
  else if (!deps.identifierRecords) return { admitted: true, report, adjusted: [] };
  else {
    let record: IdentifierIncident | null;
    try {
      record = await deps.identifierRecords.incident(report.incident_id);
    } catch (error) {
      deps.metrics.identifierUnreachable.set(1);
      deps.metrics.reports.inc({ outcome: 'held_unverified' });
      const message = error instanceof Error ? error.message : String(error);
      log.error({ err: message }, 'report held, not acted on: the identifier could not be asked whether it issued it (redelivered later)');
      throw error instanceof IdentifierUnreachableError ? error : new IdentifierUnreachableError(message);
    }
    admission = checkAgainstRecord(report, record);
    // The evidence behind an admitted report must still be there: the ledger verified against the head
    // the report carried in Kafka (outside the ledger's store), so a ledger cut back is caught loudly.
    if (admission.admitted && report.ledger_head !== null && deps.identifierRecords.verifyLedger) {
      let verification;
      try {
        verification = await deps.identifierRecords.verifyLedger(report.incident_id, report.ledger_head);
      } catch (error) {
        deps.metrics.identifierUnreachable.set(1);
        deps.metrics.reports.inc({ outcome: 'held_unverified' });
        const message = error instanceof Error ? error.message : String(error);
        log.error({ err: message }, 'report held, not acted on: its evidence ledger could not be verified (redelivered later)');
        throw error instanceof IdentifierUnreachableError ? error : new IdentifierUnreachableError(message);
      }
      if (!verification.ok)
        admission = {
          admitted: false,
          superseded: false,
          reason: 'ledger_truncated',
          message: `the incident's evidence ledger does not verify against the head (sequence ${report.ledger_head.seq}) the report carried: ${verification.problems.slice(0, 3).join('; ')}`,
        };
    }
    deps.metrics.identifierUnreachable.set(0);
  }
  if (admission.admitted) {
    if (admission.adjusted.length > 0) log.info({ adjusted: admission.adjusted }, "report checked against the identifier's record");
  } else if (admission.superseded) {
    deps.metrics.reports.inc({ outcome: 'superseded' });
    log.info(`report ignored: ${admission.message}`);
  } else {
    deps.metrics.reports.inc({ outcome: 'refused' });
    deps.metrics.reportsRefused.inc({ reason: admission.reason });
    log.error({ reason: admission.reason }, `report refused as forged or broken, nothing repaired: ${admission.message}`);
  }
  return admission;
}
