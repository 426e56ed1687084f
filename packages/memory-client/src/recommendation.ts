import { z } from 'zod';

import { IncidentOutcomeName, RagComponentName, RepairIntentName, RootCauseName } from './generated/contract-enums.ts';

// The contract's enums as zod, generated from avro/ (npm run codegen), so an HTTP body is checked like an Avro event.
export { IncidentOutcomeName, RagComponentName, RepairIntentName, RootCauseName };

/** One measured claim of the incident's report, without its ledger ids: the incident's signature. */
export const SignatureClaim = z
  .object({
    kind: z.string().min(1),
    metric: z.string().min(1),
    observed: z.number().finite(),
    baseline: z.number().finite().nullable(),
  })
  .strict();
export type SignatureClaim = z.infer<typeof SignatureClaim>;

/** POST /recommend: what the effector knows about a new incident when it asks memory. */
export const RecommendRequest = z
  .object({
    incident_id: z.string().min(1),
    root_cause: RootCauseName,
    affected_component: RagComponentName,
    /** Hard filter: cases from other environments never count (default "default"). */
    environment: z.string().min(1).max(100).default('default'),
    claims: z.array(SignatureClaim).max(200).default([]),
    affected_knowledge_ids: z.array(z.string().min(1)).max(10_000).default([]),
    /** Intents already tried and failed for this incident: memory never recommends them again. */
    exclude_intents: z.array(RepairIntentName).max(20).default([]),
  })
  .strict();
export type RecommendRequest = z.input<typeof RecommendRequest>;
export type ParsedRecommendRequest = z.output<typeof RecommendRequest>;

/** One past healing case a recommendation rests on. */
export const CaseCitation = z
  .object({
    case_id: z.string().min(1),
    similarity: z.number().min(0).max(1),
    outcome: IncidentOutcomeName,
    /** The intents that case tried, in order. */
    intents: z.array(RepairIntentName),
  })
  .strict();
export type CaseCitation = z.infer<typeof CaseCitation>;

/** The answer: an ordered strategy, how sure memory is, and the cases (or rules) behind it. */
export const Recommendation = z
  .object({
    incident_id: z.string().min(1),
    /** 'cases' when similar healing cases decided; 'rules' when memory fell back to its expert rules. */
    source: z.enum(['cases', 'rules']),
    /** True when a store (Qdrant or Elasticsearch) was unreachable and the answer is rules only. */
    degraded: z.boolean(),
    strategy: z.array(z.object({ intent: RepairIntentName, tool: z.string().min(1).nullable() }).strict()),
    confidence: z.number().min(0).max(1),
    /** Similarity of the best case found (null when none). */
    top_similarity: z.number().min(0).max(1).nullable(),
    citations: z.array(CaseCitation),
    rules_version: z.string().nullable(),
    /** Machine-readable reason for the choice, e.g. below_similarity_threshold. */
    reason: z.string().min(1),
    /** Id of the retrieval audit record written for this call. */
    audit_id: z.string().min(1),
  })
  .strict();
export type Recommendation = z.infer<typeof Recommendation>;
