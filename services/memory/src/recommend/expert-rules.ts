import { z } from 'zod';
import { RagComponentName, RepairIntentName, RootCauseName, type ParsedRecommendRequest } from '@rag-immune/memory-client';
import { InvalidRulesFileError, loadRulesFile, parseRulesText, uniqueIds, type RulesFileIssue } from '@rag-immune/worker-runtime';

const Step = z.object({ intent: RepairIntentName, tool: z.string().min(1).nullable().default(null) }).strict();

/** A claim condition: the incident has a claim on `metric` (and `kind`) whose move is within bounds. */
const ClaimCondition = z
  .object({
    metric: z.string().min(1),
    kind: z.string().min(1).optional(),
    min_observed: z.number().finite().optional(),
    max_observed: z.number().finite().optional(),
    /** observed - baseline; claims without a baseline never meet a delta bound. */
    min_delta: z.number().finite().optional(),
    max_delta: z.number().finite().optional(),
  })
  .strict();

const Rule = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9_.-]*$/, 'lower-case id'),
    why: z.string().min(1),
    when: z
      .object({
        root_cause: z.array(RootCauseName).min(1).optional(),
        affected_component: z.array(RagComponentName).min(1).optional(),
        claims: z.array(ClaimCondition).default([]),
        min_knowledge_ids: z.number().int().min(0).optional(),
        max_knowledge_ids: z.number().int().min(0).optional(),
      })
      .strict(),
    strategy: z.array(Step).min(1),
    confidence: z.number().min(0).max(1),
  })
  .strict();

export const RulesFile = z
  .object({
    version: z.string().regex(/^rules\.v\d+(\.\d+)*$/, 'like rules.v1'),
    description: z.string().min(1),
    rules: z.array(Rule).min(1),
    /** When no rule matches (or every rule's intents are excluded). */
    fallback: z.object({ strategy: z.array(Step).min(1), confidence: z.number().min(0).max(1), why: z.string().min(1) }).strict(),
  })
  .strict()
  .superRefine(uniqueIds('rules', 'rule'));
export type RulesFile = z.infer<typeof RulesFile>;
export type ExpertRule = RulesFile['rules'][number];

/** The rules file is missing, not JSON or off-schema: memory refuses to start and names the file and the line. */
export class RulesFileError extends InvalidRulesFileError {
  constructor(path: string, issues: RulesFileIssue[]) {
    super('expert rules file', path, issues, 'file');
    this.name = 'RulesFileError';
  }
}

export interface RuleDecision {
  rule_id: string;
  strategy: { intent: z.infer<typeof RepairIntentName>; tool: string | null }[];
  confidence: number;
  why: string;
}

/**
 * The expert rules memory answers from when no similar case exists (seed 003 §3.6 cold start):
 * an ordered list, first match wins, versioned so every answer says which rules decided it.
 */
export class ExpertRules {
  private constructor(
    readonly path: string,
    readonly file: RulesFile,
  ) {}

  get version(): string {
    return this.file.version;
  }

  static load(path: string): ExpertRules {
    return new ExpertRules(
      path,
      loadRulesFile(path, RulesFile, (issues) => new RulesFileError(path, issues), 'json'),
    );
  }

  static fromJson(path: string, json: unknown): ExpertRules {
    return new ExpertRules(
      path,
      parseRulesText(JSON.stringify(json, null, 2), RulesFile, (issues) => new RulesFileError(path, issues), 'json'),
    );
  }

  decide(request: ParsedRecommendRequest): RuleDecision {
    const excluded = new Set(request.exclude_intents);
    for (const rule of this.file.rules) {
      if (!matches(rule, request)) continue;
      const strategy = rule.strategy.filter((step) => !excluded.has(step.intent));
      if (strategy.length === 0) continue;
      return { rule_id: rule.id, strategy, confidence: rule.confidence, why: rule.why };
    }
    const strategy = this.file.fallback.strategy.filter((step) => !excluded.has(step.intent));
    return {
      rule_id: 'fallback',
      // Escalating to a human is always possible, even when everything else was excluded.
      strategy: strategy.length > 0 ? strategy : [{ intent: 'escalate_to_human', tool: null }],
      confidence: this.file.fallback.confidence,
      why: this.file.fallback.why,
    };
  }
}

function matches(rule: ExpertRule, request: ParsedRecommendRequest): boolean {
  const { when } = rule;
  if (when.root_cause && !when.root_cause.includes(request.root_cause)) return false;
  if (when.affected_component && !when.affected_component.includes(request.affected_component)) return false;
  const knowledge = request.affected_knowledge_ids.length;
  if (when.min_knowledge_ids !== undefined && knowledge < when.min_knowledge_ids) return false;
  if (when.max_knowledge_ids !== undefined && knowledge > when.max_knowledge_ids) return false;
  return when.claims.every((condition) =>
    request.claims.some((claim) => {
      if (claim.metric !== condition.metric) return false;
      if (condition.kind !== undefined && claim.kind !== condition.kind) return false;
      if (condition.min_observed !== undefined && claim.observed < condition.min_observed) return false;
      if (condition.max_observed !== undefined && claim.observed > condition.max_observed) return false;
      if (condition.min_delta !== undefined || condition.max_delta !== undefined) {
        if (claim.baseline === null) return false;
        const delta = claim.observed - claim.baseline;
        if (condition.min_delta !== undefined && delta < condition.min_delta) return false;
        if (condition.max_delta !== undefined && delta > condition.max_delta) return false;
      }
      return true;
    }),
  );
}
