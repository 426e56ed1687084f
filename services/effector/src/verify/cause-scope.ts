/**
 * An incident with several causes is repaired cause by cause. Each cause's slice of the report is a
 * report of its own (its cause, component, claims, knowledge and intents at the top level), still
 * naming every probe of the incident: the probes its cause explains are what its repair must heal,
 * the others are watched so that the repair makes none of them worse.
 */
import { reportForFinding, type Finding, type RootCauseReport } from '@rag-immune/contracts';

/**
 * The report as one slice per named cause; a report with fewer than two findings is its own one
 * slice. Causes not scoped to knowledge (a reranker, a tokenizer: they touch every probe) come first,
 * then the identifier's order: a scoped repair's probes are often also broken by the global cause,
 * and verified before it is repaired they would hide that the scoped repair worked.
 */
export function causeSlices(report: RootCauseReport): RootCauseReport[] {
  const findings = report.findings ?? [];
  if (findings.length < 2) return [report];
  const scoped = (f: Finding) => (f.affected_knowledge_ids.length > 0 ? 1 : 0);
  const ordered = [...findings].sort((a, b) => scoped(a) - scoped(b));
  // Each slice names its own cause first: findings[0] is what its repair is verified against.
  return ordered.map((finding) => reportForFinding(report, finding, [finding, ...findings.filter((f) => f !== finding)]));
}

/** Whether the report names more than one cause (it is, or is sliced into, one repair per cause). */
export function hasSeveralCauses(report: Pick<RootCauseReport, 'findings'>): boolean {
  return (report.findings ?? []).length >= 2;
}

/**
 * The probes a repair for this report must heal: the first finding's group (the slice's cause), or
 * every affected probe when the report has no findings (an identifier before findings). `joined` are
 * probes the identifier grouped into the incident after the report was built: they belong to the
 * repaired cause only when the report names one cause and leaves no probe unexplained; otherwise
 * they are watched, not required to heal.
 */
export function groupProbeIds(report: RootCauseReport, joined: readonly string[] = []): string[] {
  const findings = report.findings ?? [];
  const own = findings.length === 0 ? report.affected_probes.map((p) => p.probe_id) : findings[0]!.affected_probes.map((p) => p.probe_id);
  const single = findings.length <= 1 && (report.unexplained_probes ?? []).length === 0;
  return [...new Set([...own, ...(single ? joined : [])])];
}
