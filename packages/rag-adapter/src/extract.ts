/**
 * Reading a RAG's JSON response with the adapter's JSONPath expressions (jsonpath-plus; filters in its
 * "safe" evaluator: an adapter file is configuration, never code). A path that matches nothing, or
 * matches null, leaves its field absent; a value of the wrong type is a ContractViolationError naming
 * the adapter key, so a RAG whose API changed is reported, not silently read as "no data".
 */
import { JSONPath } from 'jsonpath-plus';
import { ContractViolationError, Timestamp, Timings, type PartialChunk, type PartialQueryResponse } from '@rag-immune/rag-contract';
import { JSONPATH_EVAL, type ResponsePaths } from './adapter-file.ts';

class Mismatch extends Error {}

/** Every match of `path` in `json`, in document order. */
export function matches(path: string, json: unknown): unknown[] {
  if (json === null || json === undefined) return [];
  return JSONPath({ path, json: json as object, eval: JSONPATH_EVAL, wrap: true }) as unknown[];
}

/** The one value at `path`: undefined when nothing (or null) is there; more than one match is a mismatch. */
function one(path: string | undefined, json: unknown, key: string): unknown {
  if (path === undefined) return undefined;
  const found = matches(path, json).filter((value) => value !== null && value !== undefined);
  if (found.length > 1) throw new Mismatch(`${key}: ${path} matched ${found.length} values, expected one`);
  return found[0];
}

function text(path: string | undefined, json: unknown, key: string): string | undefined {
  const value = one(path, json, key);
  if (value === undefined) return undefined;
  // An id or version the RAG sends as a number is the same identifier as text.
  if (typeof value === 'number' && key !== 'response.answer' && !key.endsWith('.text')) return String(value);
  if (typeof value !== 'string') throw new Mismatch(`${key}: ${path} is ${describe(value)}, expected a string`);
  return value;
}

function nonEmpty(path: string | undefined, json: unknown, key: string): string | undefined {
  const value = text(path, json, key);
  return value === '' ? undefined : value;
}

function number(path: string | undefined, json: unknown, key: string): number | undefined {
  const value = one(path, json, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Mismatch(`${key}: ${path} is ${describe(value)}, expected a number`);
  return value;
}

function boolean(path: string | undefined, json: unknown, key: string): boolean | undefined {
  const value = one(path, json, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new Mismatch(`${key}: ${path} is ${describe(value)}, expected true or false`);
  return value;
}

/** A time as the contract writes it (RFC 3339 UTC); a number only when the adapter names its epoch unit. */
function timestamp(path: string | undefined, json: unknown, key: string, epochUnit: 's' | 'ms' | undefined): string | undefined {
  const value = one(path, json, key);
  if (value === undefined) return undefined;
  // Already as the contract writes it: kept as sent, so a contract RAG reads back byte for byte.
  if (typeof value === 'string' && Timestamp.safeParse(value).success) return value;
  let ms: number;
  if (typeof value === 'number') {
    if (epochUnit === undefined) throw new Mismatch(`${key}: ${path} is a number; set response.epoch_unit (s or ms) to read it as a time`);
    ms = epochUnit === 's' ? value * 1000 : value;
  } else if (typeof value === 'string') ms = Date.parse(value);
  else throw new Mismatch(`${key}: ${path} is ${describe(value)}, expected a timestamp`);
  if (!Number.isFinite(ms)) throw new Mismatch(`${key}: ${path} is not a readable time`);
  return new Date(ms).toISOString();
}

function describe(value: unknown): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
}

/** `valid_until` keeps an explicit null (open-ended validity); absent stays absent. */
function validUntil(path: string | undefined, json: unknown, epochUnit: 's' | 'ms' | undefined): string | null | undefined {
  if (path === undefined) return undefined;
  const found = matches(path, json);
  if (found.length === 1 && found[0] === null) return null;
  return timestamp(path, json, 'response.documents.valid_until', epochUnit);
}

/** Only the fields present: an absent one is not written as undefined either. */
function present<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function chunk(doc: unknown, paths: NonNullable<ResponsePaths['documents']>, epochUnit: 's' | 'ms' | undefined): PartialChunk {
  const k = (field: string) => `response.documents.${field}`;
  const body = text(paths.text, doc, k('text'));
  if (body === undefined) throw new Mismatch(`${k('text')}: ${paths.text} matched nothing in a retrieved document`);
  return present<PartialChunk>({
    text: body,
    doc_id: nonEmpty(paths.doc_id, doc, k('doc_id')),
    chunk_id: nonEmpty(paths.chunk_id, doc, k('chunk_id')),
    knowledge_id: nonEmpty(paths.knowledge_id, doc, k('knowledge_id')),
    version: nonEmpty(paths.version, doc, k('version')),
    source: nonEmpty(paths.source, doc, k('source')),
    source_trust: number(paths.source_trust, doc, k('source_trust')),
    updated_at: timestamp(paths.updated_at, doc, k('updated_at'), epochUnit),
    valid_from: timestamp(paths.valid_from, doc, k('valid_from'), epochUnit),
    valid_until: validUntil(paths.valid_until, doc, epochUnit),
    retrieval_score: number(paths.retrieval_score, doc, k('retrieval_score')),
    rerank_score: number(paths.rerank_score, doc, k('rerank_score')),
  });
}

/**
 * The RAG's response as a PartialQueryResponse: what the paths find, nothing else. Throws a
 * ContractViolationError (operation `query`, direction `response`) naming the adapter key when a
 * value is of the wrong type or the answer is missing.
 */
export function extractResponse(json: unknown, paths: ResponsePaths): PartialQueryResponse {
  try {
    const answer = text(paths.answer, json, 'response.answer');
    if (answer === undefined) throw new Mismatch(`response.answer: ${paths.answer} matched nothing`);
    const epochUnit = paths.epoch_unit;
    const documents = paths.documents;
    const chunks =
      documents === undefined
        ? []
        : matches(documents.path, json).map((doc, i) => {
            try {
              return chunk(doc, documents, epochUnit);
            } catch (error) {
              throw error instanceof Mismatch ? new Mismatch(`document ${i + 1}: ${error.message}`) : error;
            }
          });
    const citationPaths = paths.citations;
    const citations =
      citationPaths === undefined
        ? undefined
        : matches(citationPaths.path, json).map((c) =>
            present({
              chunk_id: nonEmpty(citationPaths.chunk_id, c, 'response.citations.chunk_id'),
              doc_id: nonEmpty(citationPaths.doc_id, c, 'response.citations.doc_id'),
              knowledge_id: nonEmpty(citationPaths.knowledge_id, c, 'response.citations.knowledge_id'),
              version: nonEmpty(citationPaths.version, c, 'response.citations.version'),
            }),
          );
    const models =
      paths.models === undefined
        ? undefined
        : present({
            embedder: nonEmpty(paths.models.embedder, json, 'response.models.embedder'),
            reranker: nonEmpty(paths.models.reranker, json, 'response.models.reranker'),
            generator: nonEmpty(paths.models.generator, json, 'response.models.generator'),
          });
    const rawTimings = one(paths.timings, json, 'response.timings');
    let timings: Timings | undefined;
    if (rawTimings !== undefined) {
      const checked = Timings.safeParse(rawTimings);
      if (!checked.success) throw new Mismatch(`response.timings: ${paths.timings} is not the contract's Timings object`);
      timings = checked.data;
    }
    return present<PartialQueryResponse>({
      answer,
      chunks,
      trace_id: nonEmpty(paths.trace_id, json, 'response.trace_id'),
      abstained: boolean(paths.abstained, json, 'response.abstained'),
      citations,
      models: models === undefined || Object.keys(models).length === 0 ? undefined : models,
      timings,
      as_of: timestamp(paths.as_of, json, 'response.as_of', epochUnit),
      instance: nonEmpty(paths.instance, json, 'response.instance'),
    });
  } catch (error) {
    if (error instanceof Mismatch) throw new ContractViolationError('query', 'response', `the adapter's ${error.message}`);
    throw error;
  }
}
