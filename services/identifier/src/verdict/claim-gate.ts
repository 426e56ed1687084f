/**
 * The claim gate (seed 002's non-LLM schema/claim verifier): a report is published only if every
 * claim cites at least one evidence record and every cited id exists in the ledger for this
 * incident. Otherwise it is refused, naming what is missing.
 */
import type { RootCauseReport } from '@rag-immune/contracts';

export class ClaimGateError extends Error {
  constructor(
    readonly incidentId: string,
    readonly problems: string[],
  ) {
    super(`report for incident ${incidentId} refused by the claim gate: ${problems.join('; ')}`);
    this.name = 'ClaimGateError';
  }
}

export interface LedgerLookup {
  existing(incidentId: string, ids: readonly string[]): Promise<Set<string>>;
}

export async function assertClaimsBacked(report: RootCauseReport, ledger: LedgerLookup): Promise<void> {
  const problems: string[] = [];
  if (report.root_cause !== 'unknown' && report.claims.length === 0) problems.push(`cause ${report.root_cause} named without any claim`);
  if (report.confidence < 0 || report.confidence > 1 || Number.isNaN(report.confidence))
    problems.push(`confidence ${report.confidence} outside [0,1]`);
  for (const finding of report.findings ?? [])
    if (finding.claims.length === 0) problems.push(`finding ${finding.root_cause} named without any claim`);
  const allClaims = [...report.claims, ...(report.findings ?? []).flatMap((f) => f.claims)];
  for (const claim of allClaims) if (claim.evidence_ids.length === 0) problems.push(`claim ${claim.claim_id} cites no evidence`);
  const cited = [...allClaims.flatMap((c) => c.evidence_ids), ...report.open_questions.flatMap((q) => q.evidence_ids)];
  const found = await ledger.existing(report.incident_id, cited);
  const missing = [...new Set(cited.filter((id) => !found.has(id)))];
  if (missing.length > 0) problems.push(`cites evidence missing from the ledger: ${missing.join(', ')}`);
  if (problems.length > 0) throw new ClaimGateError(report.incident_id, problems);
}
