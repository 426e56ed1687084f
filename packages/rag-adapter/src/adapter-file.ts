import { readFileSync } from 'node:fs';
import { JSONPath } from 'jsonpath-plus';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** The only apiVersion this package reads; a later one is refused rather than half-understood. */
export const ADAPTER_API_VERSION = 'rag-immune/v1';

/**
 * jsonpath-plus reads a malformed path leniently (`$.[` matches everything), so a path must also
 * have balanced brackets and parentheses and not end mid-step, and it is run once on a sample
 * document so a broken filter expression is refused at load time, not at the first probe.
 */
function jsonPathProblem(path: string): string | null {
  if (!path.startsWith('$')) return 'must be a JSONPath starting with $';
  let depth = 0;
  for (const char of path) {
    if (char === '[' || char === '(') depth += 1;
    if (char === ']' || char === ')') depth -= 1;
    if (depth < 0) break;
  }
  if (depth !== 0 || /[.[]$/.test(path)) return 'is not a valid JSONPath expression (unbalanced or unfinished)';
  try {
    JSONPath({ path, json: { a: [{ b: 1 }] }, eval: JSONPATH_EVAL, wrap: true });
  } catch (error) {
    return `is not a valid JSONPath expression: ${(error as Error).message}`;
  }
  return null;
}

/**
 * Filter expressions (`[?(@.type=='Document')]`) run in jsonpath-plus's "safe" evaluator, which
 * interprets a small expression language and never calls into JavaScript.
 */
export const JSONPATH_EVAL = 'safe' as const;

const Path = z.string().superRefine((path, ctx) => {
  const problem = jsonPathProblem(path);
  if (problem !== null) ctx.addIssue({ code: z.ZodIssueCode.custom, message: problem });
});

/** Where each field of one retrieved document is, relative to the document (`$` = the document). */
export const DocumentPaths = z
  .object({
    /** Each match of this path in the response is one retrieved document, in rank order. */
    path: Path,
    text: Path,
    doc_id: Path.optional(),
    chunk_id: Path.optional(),
    knowledge_id: Path.optional(),
    version: Path.optional(),
    source: Path.optional(),
    source_trust: Path.optional(),
    updated_at: Path.optional(),
    valid_from: Path.optional(),
    valid_until: Path.optional(),
    retrieval_score: Path.optional(),
    rerank_score: Path.optional(),
  })
  .strict();
export type DocumentPaths = z.infer<typeof DocumentPaths>;

export const CitationPaths = z
  .object({
    path: Path,
    chunk_id: Path.optional(),
    doc_id: Path.optional(),
    knowledge_id: Path.optional(),
    version: Path.optional(),
  })
  .strict();
export type CitationPaths = z.infer<typeof CitationPaths>;

export const ResponsePaths = z
  .object({
    answer: Path,
    trace_id: Path.optional(),
    abstained: Path.optional(),
    as_of: Path.optional(),
    instance: Path.optional(),
    timings: Path.optional(),
    models: z.object({ embedder: Path.optional(), reranker: Path.optional(), generator: Path.optional() }).strict().optional(),
    documents: DocumentPaths.optional(),
    citations: CitationPaths.optional(),
    /** How a numeric timestamp is read; without it only RFC 3339 / ISO 8601 strings are accepted. */
    epoch_unit: z.enum(['s', 'ms']).optional(),
  })
  .strict();
export type ResponsePaths = z.infer<typeof ResponsePaths>;

/** A JSON value: the body template. */
type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
const JsonValue: z.ZodType<Json> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(JsonValue)]),
);

export const RequestTemplate = z
  .object({
    method: z.enum(['POST', 'PUT', 'GET']).default('POST'),
    /**
     * `${base_url}` is the side's RAG URL (SENTINEL_ONLINE_RAG_URL or _BASELINE_): one adapter
     * serves both the online RAG and its baseline instance, so the URL must name it.
     */
    url: z
      .string()
      .min(1)
      .refine((url) => url.includes('${base_url}'), {
        message: 'must contain ${base_url} (the online or the baseline RAG URL the service is configured with)',
      }),
    headers: z.record(z.string()).default({}),
    /** JSON body; `${query}`, `${top_k}`, `${as_of}` are the request's values, `${env:NAME}` an environment variable. */
    body: JsonValue.optional(),
  })
  .strict()
  .superRefine((request, ctx) => {
    if (request.method === 'GET' && request.body !== undefined)
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['body'], message: 'a GET request has no body: put ${query} in the url' });
  });
export type RequestTemplate = z.infer<typeof RequestTemplate>;

/** A Qdrant collection or alias name (the contract's CollectionName rule). */
const QdrantName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,255}$/, 'a Qdrant collection or alias name: letters, digits, _ . - only')
  .refine((name) => name !== '.' && name !== '..', 'not a path segment');

/**
 * The user's own ingestion job, as a webhook the effector may call when a repair needs the RAG to
 * re-read its knowledge (re-parse, refresh a source): `${knowledge_ids}` and `${sources}` (arrays when
 * a body string is exactly the placeholder, comma-joined inside a longer string), `${incident_id}`,
 * `${action_id}`, `${root_cause}`, `${env:NAME}`. Called with the action id as `Idempotency-Key`.
 */
export const IngestionWebhook = z
  .object({
    method: z.enum(['POST', 'PUT']).default('POST'),
    url: z.string().url('must be an absolute URL (the ingestion job, not the RAG: no ${base_url})'),
    headers: z.record(z.string()).default({}),
    body: JsonValue.optional(),
    /**
     * Seconds the job needs after it answered 2xx before the RAG serves its result (an asynchronous
     * job answers 202 at once): verification waits this long. 0: the job is done when it answers.
     */
    settle_seconds: z.number().int().min(0).max(3600).default(0),
  })
  .strict();
export type IngestionWebhook = z.infer<typeof IngestionWebhook>;

/**
 * What the effector may do to this RAG. `hooks: contract` (the default): it serves the contract's
 * `/repair/*`. `hooks: none`: only what needs its Qdrant (switch the alias back, restore a snapshot,
 * rebuild from `rebuild_from`) plus `ingestion` when declared, else a recommendation naming the step.
 */
export const RepairDeclaration = z
  .object({
    hooks: z.enum(['contract', 'none']).default('contract'),
    /** A collection or alias holding known-good points to rebuild from (e.g. `immune baseline create`'s `<collection>-baseline`). */
    rebuild_from: QdrantName.optional(),
    /**
     * How the RAG reads its collection: `alias` (default: the effector may switch the alias back or to a
     * rebuild) or `by_name` (a product such as Flowise that names the collection itself: the affected
     * knowledge is restored in place from `rebuild_from`, the live collection snapshotted first).
     */
    collection_mode: z.enum(['alias', 'by_name']).default('alias'),
    ingestion: IngestionWebhook.optional(),
    /** What an operator runs to re-ingest when no webhook is declared (named in the recommendation). */
    operator_step: z.string().min(1).optional(),
    /**
     * The exact operator step that puts the RAG's generation setting (its prompt, its chat model) back
     * when it changed: named in the generator-side recommendation (`recommend_generation_rollback`).
     * Only for `hooks: none`: a RAG with repair hooks pins its generator itself.
     */
    generation_step: z.string().min(1).optional(),
    /**
     * After a person approves the recommendation (and the effector took the way back), how long it
     * waits for the step before it verifies the probes. Keep it under EFFECTOR_EXECUTE_TIMEOUT_MS.
     */
    operator_wait_seconds: z.number().int().min(0).max(3600).default(240),
  })
  .strict()
  .superRefine((repair, ctx) => {
    if (repair.hooks === 'contract' && (repair.ingestion !== undefined || repair.rebuild_from !== undefined))
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['hooks'],
        message: 'ingestion and rebuild_from are for a RAG without repair hooks: set hooks: none',
      });
    if (repair.hooks === 'contract' && repair.generation_step !== undefined)
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['generation_step'],
        message: 'generation_step is for a RAG without repair hooks: set hooks: none (a RAG with repair hooks pins its generator itself)',
      });
    if (repair.hooks === 'contract' && repair.collection_mode === 'by_name')
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['collection_mode'],
        message: 'by_name chooses the hookless in-place restore: set hooks: none (a RAG with repair hooks repairs itself)',
      });
  });
export type RepairDeclaration = z.infer<typeof RepairDeclaration>;

/**
 * How online knowledge newer than the pinned baseline is judged when the RAG serves no freshness
 * lookup (`GET /knowledge/{id}`) to check it against its feed. `update` (the default, as before this
 * key existed): taken as a legitimate update, so answers that moved with it are not anomalies.
 * `unverified`: every intended knowledge change of this RAG is followed by `immune baseline refresh`,
 * so a version the baseline lacks was not refreshed into it: the sentinel lists it as unpublished
 * knowledge (feed check `baseline_not_refreshed`), which is an anomaly, and the identifier names it
 * from the index diff. For a product whose collection only its own ingestion writes.
 */
export const KnowledgeDeclaration = z
  .object({
    newer_than_baseline: z.enum(['update', 'unverified']).default('update'),
  })
  .strict();
export type KnowledgeDeclaration = z.infer<typeof KnowledgeDeclaration>;

export const RagAdapterFile = z
  .object({
    apiVersion: z.literal(ADAPTER_API_VERSION, { errorMap: () => ({ message: `must be ${ADAPTER_API_VERSION}` }) }),
    kind: z.literal('RagAdapter', { errorMap: () => ({ message: 'must be RagAdapter' }) }),
    metadata: z.object({ name: z.string().min(1), description: z.string().optional() }).strict(),
    request: RequestTemplate,
    response: ResponsePaths,
    /** Absent: the RAG serves the contract's repair hooks (as before this key existed). */
    repair: RepairDeclaration.optional(),
    /** Absent: newer online knowledge is an update, as before this key existed. */
    knowledge: KnowledgeDeclaration.optional(),
  })
  .strict();
export type RagAdapterFile = z.infer<typeof RagAdapterFile>;

export interface AdapterIssue {
  /** The key in the file, e.g. `response.documents.text`. */
  key: string;
  message: string;
}

/** The adapter file is unreadable or invalid; `issues` name the keys, the message lists them. */
export class AdapterFileError extends Error {
  constructor(
    readonly file: string,
    readonly issues: AdapterIssue[],
  ) {
    super(`invalid RAG adapter ${file}: ${issues.map((issue) => `${issue.key}: ${issue.message}`).join('; ')}`);
    this.name = 'AdapterFileError';
  }
}

function keyOf(path: readonly (string | number)[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('') || '(file)';
}

/** Parses and validates an adapter document (YAML, of which JSON is a subset); `name` labels errors. */
export function parseAdapter(text: string, name = '(adapter)'): RagAdapterFile {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new AdapterFileError(name, [{ key: '(file)', message: `not YAML or JSON: ${(error as Error).message}` }]);
  }
  const checked = RagAdapterFile.safeParse(raw);
  if (!checked.success)
    throw new AdapterFileError(
      name,
      checked.error.issues.map((issue) => ({
        key:
          // An unknown key is reported under its own name, not its parent's.
          issue.code === 'unrecognized_keys' ? issue.keys.map((k) => keyOf([...issue.path, k])).join(', ') : keyOf(issue.path),
        message: issue.message,
      })),
    );
  return checked.data;
}

export function loadAdapterFile(file: string): RagAdapterFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AdapterFileError(file, [{ key: '(file)', message: `cannot read: ${(error as Error).message}` }]);
  }
  return parseAdapter(text, file);
}
