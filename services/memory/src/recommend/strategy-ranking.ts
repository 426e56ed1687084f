import type { RepairAction } from '@rag-immune/contracts';
import { stepResult, type HealingCase } from '../cases/healing-case.ts';

type Intent = RepairAction['intent'];

export interface RankingCandidate {
  healingCase: HealingCase;
  /** Cosine similarity of the case's signature to the incident's, in [0, 1]. */
  similarity: number;
}

export interface RankingOptions {
  now: number;
  halfLifeDays: number;
  /** How much one failure of an intent counts against one success (default 1: equal). */
  failurePenalty?: number;
  excludeIntents?: readonly Intent[];
  /** Temperature of the similarity kernel (default SIMILARITY_TEMPERATURE). */
  similarityTemperature?: number;
}

export interface IntentEvidence {
  intent: Intent;
  /** Weighted successes minus penalised failures. */
  score: number;
  successWeight: number;
  failureWeight: number;
  /** Tool of the most similar successful step with this intent. */
  tool: string | null;
}

export interface StrategyRanking {
  /** Intents with net positive evidence, best first. */
  strategy: IntentEvidence[];
  /** Every intent seen, best first (for the audit log). */
  evidence: IntentEvidence[];
  /** Share of all the candidates' weight that backs the first intent, in [0, 1]. */
  confidence: number;
  /** Candidates that bear on the first intent, most similar first. */
  supporting: RankingCandidate[];
}

/** Weight of an event `ageMs` old with the given half-life: 1 now, 0.5 one half-life ago. */
export function halfLifeWeight(ageMs: number, halfLifeDays: number): number {
  const ageDays = Math.max(0, ageMs) / 86_400_000;
  return Math.pow(0.5, ageDays / halfLifeDays);
}

/**
 * The similarity a case is weighed with: the embedding cosine scaled by the share of symptoms
 * (claim kinds, metrics and moves, scope size) the two signatures share. The embedding reads the
 * affected knowledge ids as much as the claims, so on the same documents a case whose claim says
 * "the feed is behind" looks as near as one saying "the index is behind its feed"; the repair
 * differs. Among cases with the same symptoms the embedding still decides.
 */
export function rankingSimilarity(embedding: number, symptomOverlap: number): number {
  return embedding * symptomOverlap;
}

/** Default temperature of the similarity kernel: 0.05 lower similarity weighs e times less. */
export const SIMILARITY_TEMPERATURE = 0.05;

/**
 * How much one case counts: similar, recent, important and standing for many duplicates counts
 * more. Similarity enters through an exponential kernel, not linearly: above the threshold all cases
 * of a cause look alike to a linear weight (0.7 vs 0.95), and the nearest incidents must decide.
 */
export function caseWeight(
  candidate: RankingCandidate,
  options: Pick<RankingOptions, 'now' | 'halfLifeDays' | 'similarityTemperature'>,
): number {
  const { healingCase } = candidate;
  const recency = halfLifeWeight(options.now - healingCase.incident_at, options.halfLifeDays);
  const kernel = Math.exp(-(1 - candidate.similarity) / (options.similarityTemperature ?? SIMILARITY_TEMPERATURE));
  return kernel * recency * healingCase.card.importance * Math.max(1, healingCase.card.duplicate_count);
}

/**
 * Ranks repair intents by what happened when they were tried on similar incidents: each step that
 * healed adds the case's weight, each step that failed subtracts it (times the penalty), so a
 * strategy that keeps failing on this kind of incident sinks even if it once worked.
 */
export function rankStrategies(candidates: readonly RankingCandidate[], options: RankingOptions): StrategyRanking {
  const penalty = options.failurePenalty ?? 1;
  const excluded = new Set(options.excludeIntents ?? []);
  const byIntent = new Map<Intent, IntentEvidence & { toolSimilarity: number }>();
  let totalWeight = 0;
  for (const candidate of candidates) {
    const weight = caseWeight(candidate, options);
    if (!(weight > 0)) continue;
    totalWeight += weight;
    for (const action of candidate.healingCase.actions) {
      const result = stepResult(action);
      if (result === 'pending' || action.intent === 'unknown') continue;
      const entry = byIntent.get(action.intent) ?? {
        intent: action.intent,
        score: 0,
        successWeight: 0,
        failureWeight: 0,
        tool: null,
        toolSimilarity: -1,
      };
      if (result === 'success') {
        entry.successWeight += weight;
        if (candidate.similarity > entry.toolSimilarity) {
          entry.tool = action.tool;
          entry.toolSimilarity = candidate.similarity;
        }
      } else {
        entry.failureWeight += weight;
      }
      entry.score = entry.successWeight - penalty * entry.failureWeight;
      byIntent.set(action.intent, entry);
    }
  }
  const evidence = [...byIntent.values()]
    .map(({ toolSimilarity: _unused, ...rest }) => rest)
    .sort((a, b) => b.score - a.score || b.successWeight - a.successWeight || a.intent.localeCompare(b.intent));
  const strategy = evidence.filter((e) => e.score > 0 && e.successWeight > 0 && !excluded.has(e.intent));
  const first = strategy[0];
  const confidence = first && totalWeight > 0 ? Math.min(1, Math.max(0, first.score / totalWeight)) : 0;
  const supporting = first
    ? candidates
        .filter((c) => c.healingCase.actions.some((a) => a.intent === first.intent && stepResult(a) !== 'pending'))
        .sort((a, b) => b.similarity - a.similarity)
    : [];
  return { strategy, evidence, confidence, supporting };
}
