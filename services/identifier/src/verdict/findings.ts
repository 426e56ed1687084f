/**
 * An incident may have several causes (a reranker deploy and a damaged index on the same night).
 * Each anomalous probe is explained by the cause that fits it best; the probes one cause explains
 * form its group, and each group gets its own verdict (same calibration, same abstention rules).
 * A probe no cause fits, or whose group is not supported well enough, is left unexplained.
 */
import { DETECTORS } from '../detectors/index.ts';
import type { Calibration } from './calibration.ts';
import { decideVerdict, type Cause, type ProbeAnalysis, type Verdict, type VerdictPolicy } from './verdict.ts';

/** Below this detector score a probe's best fit explains nothing: the probe is unexplained. */
export const MIN_PROBE_FIT = 0.3;

/** One named cause of an incident and the probes it explains. */
export interface CauseFinding {
  verdict: Verdict & { outcome: 'cause'; root_cause: Cause };
  /** Probe ids this cause explains, in the incident's order. */
  probe_ids: string[];
  /** The analyses of those probes (the verdict's evidence). */
  analyses: ProbeAnalysis[];
}

export interface Findings {
  /** Named causes, the one explaining most probes first (then the most confident). */
  findings: CauseFinding[];
  /** Probe ids of the incident that no finding explains. */
  unexplained: string[];
}

/**
 * The cause each probe fits best: its detector scores averaged over its traced analyses (a probe
 * is run many times while an incident lasts), the highest at or above MIN_PROBE_FIT; null when none.
 */
export function bestFitByProbe(analyses: readonly ProbeAnalysis[]): Map<string, Cause | null> {
  const byProbe = new Map<string, ProbeAnalysis[]>();
  for (const a of analyses) byProbe.set(a.probe_id, [...(byProbe.get(a.probe_id) ?? []), a]);
  const fits = new Map<string, Cause | null>();
  for (const [probeId, runs] of byProbe) {
    const traced = runs.filter((a) => a.trace_status === 'ok');
    let best: { cause: Cause; score: number } | null = null;
    for (const { cause } of DETECTORS) {
      if (traced.length === 0) break;
      const score = traced.reduce((sum, a) => sum + (a.scores[cause] ?? 0), 0) / traced.length;
      if (score >= MIN_PROBE_FIT && (best === null || score > best.score)) best = { cause, score };
    }
    fits.set(probeId, best?.cause ?? null);
  }
  return fits;
}

/** The incident's analyses split into one group per cause, each judged on its own. */
export function decideFindings(
  analyses: readonly ProbeAnalysis[],
  calibration: Calibration,
  policy: VerdictPolicy,
  waitedMs: number,
): Findings {
  const fits = bestFitByProbe(analyses);
  const groups = new Map<Cause, ProbeAnalysis[]>();
  for (const a of analyses) {
    const cause = fits.get(a.probe_id);
    if (cause) groups.set(cause, [...(groups.get(cause) ?? []), a]);
  }
  const findings: CauseFinding[] = [];
  for (const [cause, group] of groups) {
    const verdict = decideVerdict(group, calibration, policy, waitedMs);
    // The group's own verdict must name the cause that grouped it: a group that abstains, waits or
    // names another cause explains nothing yet.
    if (verdict.outcome !== 'cause' || verdict.root_cause !== cause) continue;
    findings.push({
      verdict: verdict as CauseFinding['verdict'],
      probe_ids: [...new Set(group.map((a) => a.probe_id))],
      analyses: group,
    });
  }
  findings.sort((a, b) => b.probe_ids.length - a.probe_ids.length || b.verdict.confidence - a.verdict.confidence);
  const explained = new Set(findings.flatMap((f) => f.probe_ids));
  const unexplained = [...new Set(analyses.map((a) => a.probe_id))].filter((id) => !explained.has(id));
  return { findings, unexplained };
}

/**
 * What the report says, from the verdict over all the incident's analyses and the per-cause
 * findings: several findings replace the one diluted verdict (the primary finding becomes the
 * top-level cause); one finding names a cause where the whole abstained (the probes it does not
 * explain stay unexplained, for a human); otherwise the whole verdict stands, as before findings,
 * and its one finding covers every probe.
 */
export function reportedFindings(
  whole: Verdict,
  split: Findings,
  analyses: readonly ProbeAnalysis[],
  incidentProbeIds: readonly string[],
  /** The cause the last report put first: it stays first while it is still found (no revision for a reordering alone). */
  previousPrimary: string | null = null,
): { primary: Verdict; findings: Findings } {
  if (split.findings.length >= 2 || (split.findings.length === 1 && whole.outcome === 'unknown')) {
    const kept = split.findings.find((f) => f.verdict.root_cause === previousPrimary);
    const findings = kept ? [kept, ...split.findings.filter((f) => f !== kept)] : split.findings;
    return { primary: findings[0]!.verdict, findings: { ...split, findings } };
  }
  if (whole.outcome !== 'cause') return { primary: whole, findings: { findings: [], unexplained: [...incidentProbeIds] } };
  const cause = whole.root_cause as Cause;
  const own = split.findings.find((f) => f.verdict.root_cause === cause);
  return {
    primary: whole,
    findings: {
      findings: [{ verdict: whole as CauseFinding['verdict'], probe_ids: [...incidentProbeIds], analyses: [...analyses] }],
      // Informational: verified with the one cause as before, these probes fit no cause.
      unexplained: split.unexplained.filter((id) => !own?.probe_ids.includes(id) && incidentProbeIds.includes(id)),
    },
  };
}
