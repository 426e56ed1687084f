/**
 * The one interface every worker's Elasticsearch store is written against: versioned JSON
 * documents by id in one index. Two implementations with the same semantics: ElasticsearchDocuments
 * (the real server) and MemoryDocuments (an in-memory twin for unit tests). Both are checked by the
 * same contract tests (test/contract/document-store-contract.ts).
 */

/** A document as read or written, with the version a compare-and-set is based on. */
export interface Versioned<T> {
  doc: T;
  seqNo: number;
  primaryTerm: number;
}

/** The version of `current` only: a compare-and-set needs nothing else. */
export type Basis = Pick<Versioned<unknown>, 'seqNo' | 'primaryTerm'>;

export type Scalar = string | number | boolean;
/** A range over numbers or dates (ISO strings or epoch millis, as the field is mapped). */
export interface Range {
  gt?: string | number;
  gte?: string | number;
  lt?: string | number;
  lte?: string | number;
}
/**
 * A field condition: a value (term: equal, or contained when the field holds an array), a list of
 * values (terms: any of them), or a range. Fields are dotted paths (`card.status`).
 */
export type Condition = Scalar | readonly Scalar[] | Range;

/** Every `where` condition holds and no `whereNot` one does. Empty: every document. */
export interface Filter {
  where?: Readonly<Record<string, Condition>>;
  whereNot?: Readonly<Record<string, Condition>>;
}

export type SortOrder = 'asc' | 'desc';
/** Sorted by the first field, ties by the next; a document missing the field sorts last. */
export type Sort = readonly Readonly<Record<string, SortOrder>>[];

export interface FindOptions extends Filter {
  sort?: Sort;
  /** At most this many (default 100). */
  size?: number;
  /** Skip this many first (paging by offset). */
  from?: number;
  /** A latency budget for this call (no retry): a slow server fails it instead of stalling the caller. */
  timeoutMs?: number;
}

/** How a write is made visible to finds: at once (`true`), before the call returns (`wait_for`), or at the next refresh. */
export type Refresh = boolean | 'wait_for';

export interface WriteOptions {
  refresh?: Refresh;
  /** A latency budget for this call (one retry at most). */
  timeoutMs?: number;
}

/** The mappings and settings an index is bootstrapped with (Elasticsearch's own shapes). */
export interface IndexSpec {
  name: string;
  mappings: {
    /** false: unmapped fields are kept in _source but not searchable; 'strict': a document with one is refused. */
    dynamic?: boolean | 'strict';
    properties: Readonly<Record<string, FieldMapping>>;
  };
  /** Index settings (shards, replicas, refresh interval); Elasticsearch's defaults when absent. */
  settings?: Readonly<Record<string, unknown>>;
  /** Default refresh of this store's writes (false unless given). */
  refresh?: Refresh;
}

export interface FieldMapping {
  type?: 'keyword' | 'text' | 'date' | 'integer' | 'long' | 'float' | 'double' | 'boolean' | 'object';
  format?: string;
  enabled?: boolean;
  properties?: Readonly<Record<string, FieldMapping>>;
}

/** A write the index's strict mapping refuses (a field it does not declare). */
export class MappingError extends Error {
  constructor(index: string, detail: string) {
    super(`index ${index} refused the document: ${detail}`);
    this.name = 'MappingError';
  }
}

/** A partial update of a document that does not exist. */
export class DocumentMissingError extends Error {
  constructor(index: string, id: string) {
    super(`index ${index} has no document ${id}`);
    this.name = 'DocumentMissingError';
  }
}

/** A compare-and-set kept losing to other writers. */
export class ContendedError extends Error {
  constructor(index: string, id: string, attempts: number) {
    super(`document ${id} in ${index} kept changing under ${attempts} compare-and-set attempts`);
    this.name = 'ContendedError';
  }
}

export interface DocumentStore<T extends object> {
  readonly index: string;
  /** Creates the index with its mappings unless it exists (concurrent creators race benignly). */
  ensureIndex(): Promise<void>;
  /** The document by id, read in real time (no refresh needed); null when absent. */
  get(id: string): Promise<Versioned<T> | null>;
  /** The documents of those ids that exist, in the order asked. */
  getMany(ids: readonly string[], options?: { timeoutMs?: number }): Promise<(Versioned<T> & { id: string })[]>;
  /** Create-only: null when a document with the id exists (another writer claimed it first). */
  create(id: string, doc: T, options?: WriteOptions): Promise<Versioned<T> | null>;
  /** Create-only for many: per document whether it was created or existed already. */
  createMany(entries: readonly { id: string; doc: T }[], options?: WriteOptions): Promise<('created' | 'exists')[]>;
  /**
   * Compare-and-set: writes `doc` if the document is still at `basis` (null: only if it does not
   * exist yet); null when another writer moved it first.
   */
  replace(id: string, doc: T, basis: Basis | null, options?: WriteOptions): Promise<Versioned<T> | null>;
  /** Unconditional write (last writer wins): settings, append-only records with fresh ids. */
  put(id: string, doc: T, options?: WriteOptions): Promise<Versioned<T>>;
  /** Unconditional partial update, objects merged into the stored ones; DocumentMissingError when absent. */
  patch(id: string, partial: Partial<T>, options?: WriteOptions): Promise<void>;
  /** Deletes the document (if still at `basis`, when given); false when it was absent or had moved. */
  delete(id: string, basis?: Basis, options?: WriteOptions): Promise<boolean>;
  /** Unconditional deletes by id; how many existed. */
  deleteMany(ids: readonly string[], options?: WriteOptions): Promise<number>;
  /** Documents matching the filter (as of the last refresh), sorted, with their versions and ids. */
  find(options?: FindOptions): Promise<(Versioned<T> & { id: string })[]>;
  /** One page of a find and how many match in all. */
  page(options: FindOptions): Promise<{ total: number; hits: (Versioned<T> & { id: string })[] }>;
  /** How many match. */
  count(filter?: Filter): Promise<number>;
  /** Every match, in sort order, fetched page by page (search_after). */
  scan(options: Filter & { sort: Sort; pageSize?: number }): AsyncGenerator<Versioned<T> & { id: string }>;
  /** Matches per value of a keyword field (a terms aggregation), at most `size` values. */
  countBy(field: string, filter?: Filter, size?: number): Promise<Record<string, number>>;
  /** Makes every write so far visible to finds. */
  refresh(): Promise<void>;
}

/** Makes a store per index: the real server's or the twin's. A worker is composed with one. */
export interface DocumentStores {
  open<T extends object>(spec: IndexSpec): DocumentStore<T>;
}

/**
 * Read, change, compare-and-set; on a conflict read again and re-apply, up to `attempts` times.
 * `change` returns the new document, or undefined to write nothing (the current one stands).
 */
export async function modify<T extends object>(
  store: DocumentStore<T>,
  id: string,
  change: (current: T | null) => T | undefined,
  options: WriteOptions & { attempts?: number } = {},
): Promise<Versioned<T> | null> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const current = await store.get(id);
    const next = change(current?.doc ?? null);
    if (next === undefined) return current;
    const written = await store.replace(id, next, current, options);
    if (written) return written;
  }
  throw new ContendedError(store.index, id, attempts);
}
