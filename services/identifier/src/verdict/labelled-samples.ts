import type { VerdictFeatures } from './calibration.ts';
import { verdictFeatures, rankCauses, type Cause, type ProbeAnalysis } from './verdict.ts';

/** Subsets of up to `maxSize` items (in order), capped so big groups stay cheap. */
function subsets<T>(items: readonly T[], maxSize: number, cap = 200): T[][] {
  const out: T[][] = [];
  const walk = (start: number, current: T[]) => {
    if (out.length >= cap) return;
    if (current.length > 0) out.push(current);
    if (current.length === maxSize) return;
    for (let i = start; i < items.length; i += 1) walk(i + 1, [...current, items[i]!]);
  };
  walk(0, []);
  return out;
}

const without = (analysis: ProbeAnalysis, cause: Cause): ProbeAnalysis => {
  const scores = { ...analysis.scores };
  delete scores[cause];
  return { ...analysis, scores };
};

/**
 * Labelled calibration samples from analyses grouped by their true cause: each subset once with all
 * detectors (right when the true cause ranks first) and once without the true cause's detector
 * (never right: what a fault no detector was designed for looks like).
 */
export function labelledSamples(
  groups: readonly { cause: Cause; analyses: ProbeAnalysis[] }[],
  maxSize: number,
): { features: VerdictFeatures; correct: boolean }[] {
  const samples: { features: VerdictFeatures; correct: boolean }[] = [];
  for (const { cause, analyses } of groups) {
    for (const subset of subsets(analyses, maxSize)) {
      samples.push({ features: verdictFeatures(subset), correct: rankCauses(subset)[0]?.cause === cause });
      const blind = subset.map((a) => without(a, cause));
      samples.push({ features: verdictFeatures(blind, cause), correct: false });
    }
  }
  return samples;
}
