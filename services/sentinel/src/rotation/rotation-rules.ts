/**
 * The rotation's rules, as pure functions so each is tested alone (design document section 3.1:
 * "retire probes whose FCS stays > 0.95 (too stable to warn) or < 0.3 (source gone); add new hot
 * questions"):
 * - retire-gone-source: a probe whose expected knowledge the online RAG no longer knows
 *   (GET /knowledge/{id} answers 404: no source publishes it and the index holds none);
 * - retire-unmoving: a probe whose online FCS over at least N runs never moved enough to warn
 *   (always healthy, always broken, or never high enough for a drop to show: `planRotation`);
 * - add-frequent: the most asked query clusters whose knowledge no remaining probe covers;
 * - add-fragile: clusters whose answers were often weak, or whose segment the traffic watcher flagged.
 * The additions are only candidates here: the probe-set builder vets each against the frozen baseline.
 */
import { planRotation, type GoldenProbe, type QueryLogEntry } from '@rag-immune/probing';
import { querySignature } from '../traffic/segment-resolver.ts';
import type { RotationChange, RotationRule } from './proposal.ts';
import type { TrafficCluster } from './traffic-digest.ts';

export interface RetirementOptions {
  minRuns: number;
  unmovingAbove: number;
  /** Share of the active probes one proposal may retire. */
  maxRetireShare: number;
}

export interface Declined {
  query: string;
  rule: RotationRule;
  reason: string;
}

/** Which probes to retire and why; those over the cap are declined, gone sources first (they are certain). */
export function planRetirements(
  probes: readonly GoldenProbe[],
  history: ReadonlyMap<string, number[]>,
  goneSources: ReadonlyMap<string, readonly string[]>,
  options: RetirementOptions,
): { retire: RotationChange[]; declined: Declined[] } {
  const candidates: RotationChange[] = [];
  for (const probe of probes) {
    const gone = goneSources.get(probe.id) ?? [];
    if (gone.length > 0)
      candidates.push({
        kind: 'retire',
        rule: 'retire-gone-source',
        probe_id: probe.id,
        query: probe.query,
        reason: `source gone: the online RAG knows no ${gone.join(', ')} (GET /knowledge/{id} 404)`,
      });
  }
  const retiredForSource = new Set(candidates.map((c) => c.probe_id));
  const decisions = planRotation(
    probes.filter((p) => !retiredForSource.has(p.id)),
    history,
    { alwaysHealthyAbove: options.unmovingAbove, alwaysBrokenBelow: 0.3, minRuns: options.minRuns },
  );
  const unmoving = decisions
    .filter((d) => d.retire)
    // The most settled first: the highest floor never came near a drop.
    .sort((a, b) => (b.min ?? 0) - (a.min ?? 0));
  for (const d of unmoving)
    candidates.push({
      kind: 'retire',
      rule: 'retire-unmoving',
      probe_id: d.probe.id,
      query: d.probe.query,
      reason: `never moved over ${d.runs} runs (online FCS ${d.min?.toFixed(2)}..${d.max?.toFixed(2)}): ${d.reason}`,
    });
  const cap = Math.floor(probes.length * options.maxRetireShare);
  return {
    retire: candidates.slice(0, cap),
    declined: candidates.slice(cap).map((c) => ({
      query: c.query,
      rule: c.rule,
      reason: `kept: over the cap of ${cap} retirements per proposal (ROTATION_MAX_RETIRE_SHARE) although ${c.reason}`,
    })),
  };
}

export interface CandidateOptions {
  minAsks: number;
  fragileShare: number;
  maxFrequent: number;
  maxFragile: number;
}

/** A traffic cluster put to the builder, with the rule it would be added under and why. */
export interface TrafficCandidate {
  rule: 'add-frequent' | 'add-fragile';
  cluster: TrafficCluster;
  why: string;
  entry: QueryLogEntry;
}

/**
 * The traffic's candidates: clusters asked at least `minAsks` times whose knowledge no probe that
 * stays covers and whose wording no probe asks, one per knowledge id. Fragile ones (flagged segment,
 * or a weak share at least `fragileShare`) first; the rest ranked by asks. Each list holds up to
 * three times its additions, so the builder can turn some down and still fill it.
 */
export function selectCandidates(
  clusters: readonly TrafficCluster[],
  remaining: readonly GoldenProbe[],
  flaggedSegments: ReadonlySet<string>,
  options: CandidateOptions,
): { fragile: TrafficCandidate[]; frequent: TrafficCandidate[] } {
  const covered = new Set(remaining.flatMap((p) => p.expected_sources));
  const asked = new Set(remaining.map((p) => querySignature(p.query)));
  const eligible = clusters
    .filter((c) => c.asks >= options.minAsks && c.knowledge_id !== undefined && !covered.has(c.knowledge_id) && !asked.has(c.signature))
    .sort((a, b) => b.asks - a.asks || a.signature.localeCompare(b.signature));
  const entry = (c: TrafficCluster): QueryLogEntry => ({ query: c.query, count: c.asks });
  const fragile: TrafficCandidate[] = [];
  const frequent: TrafficCandidate[] = [];
  const taken = new Set<string>();
  const fragileOnes = eligible
    .map((c) => ({ c, share: c.weak / c.asks, flagged: flaggedSegments.has(c.knowledge_id!) }))
    .filter((x) => x.flagged || x.share >= options.fragileShare)
    .sort((a, b) => Number(b.flagged) - Number(a.flagged) || b.share - a.share || b.c.asks - a.c.asks);
  for (const { c, flagged } of fragileOnes) {
    if (taken.has(c.knowledge_id!) || fragile.length >= options.maxFragile * 3) continue;
    taken.add(c.knowledge_id!);
    const why = flagged
      ? `fragile: the traffic watcher flagged segment ${c.knowledge_id} in the window`
      : `fragile: ${c.weak} of ${c.asks} answers weak (nothing retrieved or a low top score)`;
    fragile.push({ rule: 'add-fragile', cluster: c, why: `${why}; ${c.knowledge_id} has no probe`, entry: entry(c) });
  }
  for (const c of eligible) {
    if (taken.has(c.knowledge_id!) || frequent.length >= options.maxFrequent * 3) continue;
    taken.add(c.knowledge_id!);
    frequent.push({
      rule: 'add-frequent',
      cluster: c,
      why: `frequent: asked ${c.asks} times; ${c.knowledge_id} has no probe`,
      entry: entry(c),
    });
  }
  return { fragile, frequent };
}
