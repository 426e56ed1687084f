import type { CardTransition, HealingCase } from '../cases/healing-case.ts';
import { halfLifeWeight } from '../recommend/strategy-ranking.ts';

export interface ForgettingOptions {
  now: number;
  halfLifeDays: number;
  /** Archive an active case whose decayed importance falls below this. */
  archiveBelow: number;
  /** Importance factor applied once to a case whose strategy failed (default 0.5). */
  failedDemotion?: number;
}

export interface ForgettingPlan {
  /** The cases that change, as they should be stored; each change is also in its card history. */
  changed: HealingCase[];
  transitions: (CardTransition & { case_id: string })[];
}

const FINAL = new Set(['recovered', 'failed', 'escalated']);

/**
 * Forgetting as seed 004 §4.3 describes it, never by deletion: (1) failed strategies are demoted,
 * (2) conflicting cases (same signature, different outcomes) are resolved by recency and success,
 * the loser superseded by the winner, (3) near-duplicates (same signature, same actions, same
 * outcome) are compacted into the newest with their count, (4) cases whose importance decayed
 * below the floor are archived. Pure: the same cases and time give the same plan, and a second
 * run over the result plans nothing.
 */
export function planForgetting(cases: readonly HealingCase[], options: ForgettingOptions): ForgettingPlan {
  const at = new Date(options.now).toISOString();
  const working = new Map(cases.filter((c) => c.card.status === 'active').map((c) => [c.case_id, structuredClone(c)]));
  const touched = new Set<string>();
  const transitions: ForgettingPlan['transitions'] = [];
  const note = (target: HealingCase, transition: Omit<CardTransition, 'at'>) => {
    const full: CardTransition = { ...transition, at };
    target.card.history.push(full);
    target.card.updated_at = at;
    transitions.push({ ...full, case_id: target.case_id });
    touched.add(target.case_id);
  };

  // (1) demotion of failed strategies, once per case
  const factor = options.failedDemotion ?? 0.5;
  for (const c of working.values()) {
    if ((c.outcome === 'failed' || c.outcome === 'escalated') && !c.card.history.some((h) => h.reason === 'failed_strategy_demoted')) {
      const to = round(c.card.importance * factor);
      note(c, { field: 'importance', from: c.card.importance, to, reason: 'failed_strategy_demoted' });
      c.card.importance = to;
    }
  }

  // (2) and (3) within groups of the same signature
  const groups = new Map<string, HealingCase[]>();
  for (const c of working.values()) {
    if (c.signature_key === '' || !FINAL.has(c.outcome)) continue;
    groups.set(c.signature_key, [...(groups.get(c.signature_key) ?? []), c]);
  }
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const outcomes = new Set(group.map((c) => c.outcome));
    let survivors = group;
    if (outcomes.size > 1) {
      const winner = [...group].sort(
        (a, b) =>
          conflictScore(b, options) - conflictScore(a, options) || b.incident_at - a.incident_at || a.case_id.localeCompare(b.case_id),
      )[0] as HealingCase;
      survivors = [];
      for (const c of group) {
        if (c.outcome === winner.outcome) {
          survivors.push(c);
          continue;
        }
        supersede(c, winner.case_id, 'conflict_resolved', note);
      }
    }
    const byStrategy = new Map<string, HealingCase[]>();
    for (const c of survivors) {
      const key = `${c.outcome}|${c.intents.join('>')}`;
      byStrategy.set(key, [...(byStrategy.get(key) ?? []), c]);
    }
    for (const same of byStrategy.values()) {
      if (same.length < 2) continue;
      const [keeper, ...rest] = [...same].sort((a, b) => b.incident_at - a.incident_at || a.case_id.localeCompare(b.case_id)) as [
        HealingCase,
        ...HealingCase[],
      ];
      for (const c of rest) {
        const from = keeper.card.duplicate_count;
        keeper.card.duplicate_count += c.card.duplicate_count;
        note(keeper, { field: 'duplicate_count', from, to: keeper.card.duplicate_count, reason: 'compacted', related_case_id: c.case_id });
        supersede(c, keeper.case_id, 'compacted', note);
      }
    }
  }

  // (4) decay
  for (const c of working.values()) {
    if (c.card.status !== 'active' || c.outcome === 'open') continue;
    const lastUse = c.card.last_used_at === null ? 0 : Date.parse(c.card.last_used_at);
    const decayed = c.card.importance * halfLifeWeight(options.now - Math.max(c.incident_at, lastUse), options.halfLifeDays);
    if (decayed < options.archiveBelow) {
      note(c, { field: 'status', from: 'active', to: 'archived', reason: `decayed_below_${options.archiveBelow}` });
      c.card.status = 'archived';
    }
  }

  return { changed: [...touched].map((id) => working.get(id) as HealingCase), transitions };
}

/** Recency times success: a recent success beats an old one, and a success beats a failure of the same age. */
export function conflictScore(c: HealingCase, options: Pick<ForgettingOptions, 'now' | 'halfLifeDays'>): number {
  return halfLifeWeight(options.now - c.incident_at, options.halfLifeDays) * (c.outcome === 'recovered' ? 1 : 0.5);
}

function supersede(c: HealingCase, by: string, reason: string, note: (target: HealingCase, t: Omit<CardTransition, 'at'>) => void): void {
  note(c, { field: 'status', from: c.card.status, to: 'superseded', reason, related_case_id: by });
  c.card.status = 'superseded';
  c.card.superseded_by = by;
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
