import type { RootCauseReport } from './generated/RootCauseReport.ts';

/** One cause of a report with several (RootCauseReport.findings). */
export type Finding = RootCauseReport['findings'][number];

/**
 * The report as one of its causes sees it: that finding's cause, component, confidence, claims,
 * knowledge and intents at the top level (where a consumer of one-cause reports reads them), the
 * rest of the report (incident, revision, probes, window) unchanged. `findings` becomes `ordered`
 * (the finding itself first), or just the finding.
 */
export function reportForFinding(report: RootCauseReport, finding: Finding, ordered: Finding[] = [finding]): RootCauseReport {
  return {
    ...report,
    root_cause: finding.root_cause,
    affected_component: finding.affected_component,
    confidence: finding.confidence,
    claims: finding.claims,
    affected_knowledge_ids: finding.affected_knowledge_ids,
    recommended_intents: finding.recommended_intents,
    findings: ordered,
  };
}
