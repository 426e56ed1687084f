import { z } from 'zod';

/**
 * zod mirrors of `openapi/rag-health-contract.yaml` (components.schemas, same names). The unit test
 * `schemas-agree-with-openapi` validates the same payloads against both, so a change to one without
 * the other fails CI. Objects are strict, as the document's `additionalProperties: false`.
 */

/** RFC 3339 in UTC (`Z`): every time in the contract is UTC. */
export const Timestamp = z.string().datetime({ message: 'must be an RFC 3339 UTC timestamp (…Z)' });

export const QueryRequest = z
  .object({
    query: z.string().min(1).max(2000),
    as_of: Timestamp.optional(),
    top_k: z.number().int().min(1).max(50).optional(),
  })
  .strict();
export type QueryRequest = z.infer<typeof QueryRequest>;

export const Chunk = z
  .object({
    doc_id: z.string().min(1),
    chunk_id: z.string().min(1),
    knowledge_id: z.string().min(1),
    version: z.string().min(1),
    source: z.string().min(1),
    source_trust: z.number().min(0).max(1),
    updated_at: Timestamp,
    valid_from: Timestamp,
    valid_until: Timestamp.nullable(),
    retrieval_score: z.number(),
    rerank_score: z.number().optional(),
    text: z.string(),
  })
  .strict();
export type Chunk = z.infer<typeof Chunk>;

export const Citation = z
  .object({ chunk_id: z.string().min(1), doc_id: z.string().min(1), knowledge_id: z.string().min(1), version: z.string().min(1) })
  .strict();
export type Citation = z.infer<typeof Citation>;

export const ModelVersions = z.object({ embedder: z.string().min(1), reranker: z.string().min(1), generator: z.string().min(1) }).strict();
export type ModelVersions = z.infer<typeof ModelVersions>;

export const Timings = z
  .object({
    embed_ms: z.number().min(0).optional(),
    retrieve_ms: z.number().min(0).optional(),
    rerank_ms: z.number().min(0).optional(),
    generate_ms: z.number().min(0).optional(),
    total_ms: z.number().min(0),
  })
  .strict();
export type Timings = z.infer<typeof Timings>;

export const QueryResponse = z
  .object({
    trace_id: z.string().min(1),
    answer: z.string(),
    abstained: z.boolean().optional(),
    citations: z.array(Citation),
    chunks: z.array(Chunk),
    models: ModelVersions,
    timings: Timings,
    as_of: Timestamp,
    instance: z.string().optional(),
  })
  .strict();
export type QueryResponse = z.infer<typeof QueryResponse>;

export const ScoredCandidate = z
  .object({
    chunk_id: z.string().min(1),
    knowledge_id: z.string().min(1),
    version: z.string().min(1),
    retrieval_score: z.number(),
    rerank_score: z.number().optional(),
    rank: z.number().int().min(1),
  })
  .strict();
export type ScoredCandidate = z.infer<typeof ScoredCandidate>;

export const TokenProbability = z.object({ token: z.string(), probability: z.number().min(0).max(1) }).strict();

export const Trace = z
  .object({
    trace_id: z.string().min(1),
    created_at: Timestamp,
    query: z.string(),
    rewritten_query: z.string().optional(),
    as_of: Timestamp,
    candidates: z.array(ScoredCandidate),
    reranked: z.array(ScoredCandidate),
    context: z.array(Chunk),
    answer: z.string(),
    abstained: z.boolean().optional(),
    citations: z.array(Citation),
    models: ModelVersions,
    timings: Timings,
    token_probabilities: z.array(TokenProbability).optional(),
  })
  .strict();
export type Trace = z.infer<typeof Trace>;

export const Health = z.object({ status: z.literal('ok'), instance: z.string().optional() }).passthrough();
export type Health = z.infer<typeof Health>;

export const RepairHook = z.enum([
  'reindex',
  'reranker_pin',
  'knowledge_source',
  'answer_validation',
  'query_rewrite_rules',
  'parser',
  'generator_pin',
]);
export type RepairHook = z.infer<typeof RepairHook>;

/** A Qdrant collection name the contract lets a caller choose (no path or URL characters). */
export const CollectionName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,255}$/, 'letters, digits, _ . - only')
  .refine((name) => name !== '.' && name !== '..', 'not a path segment');
export const TraceSourceKind = z.enum(['endpoint', 'otlp']);
export type TraceSourceKind = z.infer<typeof TraceSourceKind>;

export const Capabilities = z
  .object({
    contract_version: z.string(),
    instance: z.string().optional(),
    repair_hooks: z.array(RepairHook),
    reranker_versions: z.array(z.string()).optional(),
    knowledge_sources: z.array(z.string()).optional(),
    parser_versions: z.array(z.string()).optional(),
    generator_versions: z.array(z.string()).optional(),
    /** The component versions in force now, so a repair can record what it replaces. */
    active_versions: z
      .object({
        reranker: z.string().optional(),
        generator: z.string().optional(),
        parser: z.string().optional(),
        /** Each knowledge source's active feed (e.g. primary, backup). */
        knowledge_sources: z.record(z.string().min(1)).optional(),
      })
      .strict()
      .optional(),
    answer_validation: z.boolean().optional(),
    /**
     * 1.3.0, optional: where the vectors live. `alias` is the Qdrant alias the RAG queries through
     * (null: it queries `collection` directly, so a repair that writes vectors must snapshot it);
     * `blue_green_reindex`: the reindex hook takes a target_collection.
     */
    vector_store: z
      .object({
        collection: CollectionName,
        alias: CollectionName.nullable(),
        blue_green_reindex: z.boolean(),
      })
      .strict()
      .optional(),
    /** Where the identifier reads this RAG's traces (1.4.0): GET /traces/{id}, or its OTLP spans in the trace intake. */
    traces: TraceSourceKind.optional(),
  })
  .strict();
export type Capabilities = z.infer<typeof Capabilities>;

/** One version of a knowledge id: what a feed publishes or what the index holds. */
export const KnowledgeVersionRef = z.object({ version: z.string().min(1), valid_from: Timestamp }).strict();
export type KnowledgeVersionRef = z.infer<typeof KnowledgeVersionRef>;

/**
 * The version the index holds, and (1.2.0, optional) when the index last wrote it. The lookup runs
 * after the probe it explains: a version written since the probe's trace was not there to retrieve.
 */
export const IndexedVersionRef = KnowledgeVersionRef.extend({ indexed_at: Timestamp.optional() }).strict();
export type IndexedVersionRef = z.infer<typeof IndexedVersionRef>;

/**
 * `GET /knowledge/{knowledge_id}` (optional): the newest version of one knowledge id that its
 * source's active feed publishes at the RAG's knowledge time, beside the newest version its index
 * holds. A feed behind the truth and an index behind its feed look alike in a trace; this tells them apart.
 */
export const KnowledgeFreshness = z
  .object({
    knowledge_id: z.string().min(1),
    /** The source that owns the id; null when no source publishes it. */
    source: z.string().min(1).nullable(),
    /** Which of the source's feeds is active (e.g. primary, backup). */
    feed_provider: z.string().min(1).nullable(),
    /** The RAG's knowledge time: what the feed had published by then is what the index should hold. */
    as_of: Timestamp,
    feed: KnowledgeVersionRef.nullable(),
    indexed: IndexedVersionRef.nullable(),
  })
  .strict();
export type KnowledgeFreshness = z.infer<typeof KnowledgeFreshness>;

export const ReindexRequest = z
  .object({
    since: Timestamp.optional(),
    knowledge_ids: z.array(z.string().min(1)).max(10000).optional(),
    /**
     * 1.3.0, optional (capabilities.vector_store.blue_green_reindex): build the whole index afresh into
     * this new collection and leave the live one untouched; the caller verifies it and flips the alias.
     * `since` and `knowledge_ids` do not apply: a new collection holds everything.
     */
    target_collection: CollectionName.optional(),
  })
  .strict();
export type ReindexRequest = z.infer<typeof ReindexRequest>;

export const RerankerPinRequest = z.object({ version: z.string().min(1) }).strict();
export type RerankerPinRequest = z.infer<typeof RerankerPinRequest>;

export const KnowledgeSourceRequest = z
  .object({ action: z.enum(['refresh', 'switch_to_backup', 'switch_to_primary']), source: z.string().min(1) })
  .strict();
export type KnowledgeSourceRequest = z.infer<typeof KnowledgeSourceRequest>;

export const ParserRepairRequest = z
  .object({ version: z.string().min(1), knowledge_ids: z.array(z.string().min(1)).max(10000).optional() })
  .strict();
export type ParserRepairRequest = z.infer<typeof ParserRepairRequest>;

export const GeneratorPinRequest = z.object({ version: z.string().min(1) }).strict();
export type GeneratorPinRequest = z.infer<typeof GeneratorPinRequest>;

export const AnswerValidationRequest = z.object({ enabled: z.boolean() }).strict();
export type AnswerValidationRequest = z.infer<typeof AnswerValidationRequest>;

export const QueryRewriteRule = z.object({ pattern: z.string().min(1), replacement: z.string() }).strict();
export type QueryRewriteRule = z.infer<typeof QueryRewriteRule>;

export const QueryRewriteRules = z.object({ rules: z.array(QueryRewriteRule).max(100) }).strict();
export type QueryRewriteRules = z.infer<typeof QueryRewriteRules>;

export const RepairResult = z
  .object({ hook: RepairHook, applied_at: Timestamp, changed: z.number().int().min(0), detail: z.record(z.unknown()).optional() })
  .strict();
export type RepairResult = z.infer<typeof RepairResult>;

export const ErrorBody = z
  .object({ error: z.string().min(1), issues: z.array(z.object({ path: z.string(), message: z.string() }).passthrough()).optional() })
  .passthrough();
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The contract's schema names → zod schema, for the agreement test and for servers validating by name. */
export const CONTRACT_SCHEMAS = {
  QueryRequest,
  QueryResponse,
  Chunk,
  Citation,
  Trace,
  Health,
  Capabilities,
  KnowledgeVersionRef,
  IndexedVersionRef,
  KnowledgeFreshness,
  ReindexRequest,
  RerankerPinRequest,
  KnowledgeSourceRequest,
  AnswerValidationRequest,
  QueryRewriteRules,
  ParserRepairRequest,
  GeneratorPinRequest,
  RepairResult,
  Error: ErrorBody,
} as const;

/** Flattens zod issues into the contract's Error.issues shape: `{path: "a.b[0]", message}`. */
export function contractIssues(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('') || '(body)',
    message: issue.message,
  }));
}

/** One-line rendering of zod issues for error messages: `query: Required; top_k: …`. */
export function describeIssues(error: z.ZodError): string {
  return contractIssues(error)
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ');
}
