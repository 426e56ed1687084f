import {
  DocumentMissingError,
  MappingError,
  type Basis,
  type Condition,
  type DocumentStore,
  type DocumentStores,
  type FieldMapping,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type Range,
  type Scalar,
  type Sort,
  type Versioned,
  type WriteOptions,
} from './document-store.ts';

interface Stored {
  source: string;
  seqNo: number;
}

/** Documents go through JSON both ways, as they do to and from Elasticsearch (undefined fields vanish, no shared references). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function valuesAt(doc: unknown, path: string): unknown[] {
  let values: unknown[] = [doc];
  for (const key of path.split('.')) {
    values = values.flatMap((v) => {
      if (v === null || typeof v !== 'object') return [];
      const next = (v as Record<string, unknown>)[key];
      return Array.isArray(next) ? next : next === undefined ? [] : [next];
    });
  }
  return values.filter((v) => v !== null);
}

/** Dates compare as instants (ISO strings or epoch millis), numbers as numbers, the rest as strings. */
function comparable(value: unknown): number | string {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const asDate = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : NaN;
    return Number.isNaN(asDate) ? value : asDate;
  }
  return String(value);
}

function compare(a: unknown, b: unknown): number {
  const x = comparable(a);
  const y = comparable(b);
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
}

function inRange(value: unknown, range: Range): boolean {
  if (range.gt !== undefined && !(compare(value, range.gt) > 0)) return false;
  if (range.gte !== undefined && !(compare(value, range.gte) >= 0)) return false;
  if (range.lt !== undefined && !(compare(value, range.lt) < 0)) return false;
  if (range.lte !== undefined && !(compare(value, range.lte) <= 0)) return false;
  return true;
}

const equal = (value: unknown, wanted: Scalar) => value === wanted || (typeof value !== typeof wanted && String(value) === String(wanted));

function holds(doc: unknown, field: string, condition: Condition): boolean {
  const values = valuesAt(doc, field);
  if (Array.isArray(condition)) return values.some((v) => condition.some((c: Scalar) => equal(v, c)));
  if (typeof condition === 'object') return values.some((v) => inRange(v, condition as Range));
  return values.some((v) => equal(v, condition as Scalar));
}

/** Whether `doc` passes the filter; `searchable` says which fields an index can be searched on (all by default). */
export function matches(doc: unknown, filter: Filter = {}, searchable: (field: string) => boolean = () => true): boolean {
  // An unmapped field holds nothing a query can see, as in Elasticsearch.
  for (const [field, condition] of Object.entries(filter.where ?? {}))
    if (!searchable(field) || !holds(doc, field, condition)) return false;
  for (const [field, condition] of Object.entries(filter.whereNot ?? {}))
    if (searchable(field) && holds(doc, field, condition)) return false;
  return true;
}

/** The mapping of a dotted field path, if the index declares it. */
function mappingOf(properties: Readonly<Record<string, FieldMapping>>, path: string): FieldMapping | undefined {
  const [head, ...rest] = path.split('.');
  const mapping = properties[head!];
  if (mapping === undefined || rest.length === 0) return mapping;
  return mapping.properties ? mappingOf(mapping.properties, rest.join('.')) : undefined;
}

function sorter(sort: Sort | undefined): (a: { doc: unknown }, b: { doc: unknown }) => number {
  const keys = (sort ?? []).flatMap((s) => Object.entries(s));
  return (a, b) => {
    for (const [field, order] of keys) {
      const va = valuesAt(a.doc, field);
      const vb = valuesAt(b.doc, field);
      // Missing values sort last in either order, as Elasticsearch's default `missing: _last`.
      if (va.length === 0 || vb.length === 0) {
        if (va.length !== vb.length) return va.length === 0 ? 1 : -1;
        continue;
      }
      // An array field sorts by its smallest value ascending, its largest descending (Elasticsearch's min/max mode).
      const pick = (vs: unknown[]) => vs.reduce((m, v) => ((order === 'asc' ? compare(v, m) < 0 : compare(v, m) > 0) ? v : m));
      const c = compare(pick(va), pick(vb));
      if (c !== 0) return order === 'asc' ? c : -c;
    }
    return 0;
  };
}

/** The fields a strict mapping refuses (not declared at their level; objects with `enabled: false` take anything). */
function undeclared(doc: unknown, properties: Readonly<Record<string, FieldMapping>>, prefix = ''): string[] {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return [];
  return Object.entries(doc as Record<string, unknown>).flatMap(([key, value]) => {
    const mapping = properties[key];
    if (mapping === undefined) return [`${prefix}${key}`];
    if (mapping.enabled === false || mapping.properties === undefined) return [];
    const items = Array.isArray(value) ? value : [value];
    return items.flatMap((item) => undeclared(item, mapping.properties!, `${prefix}${key}.`));
  });
}

function mergeInto(target: Record<string, unknown>, partial: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(partial)) {
    const current = target[key];
    const bothObjects =
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      current !== null &&
      typeof current === 'object' &&
      !Array.isArray(current);
    target[key] = bothObjects ? mergeInto(current as Record<string, unknown>, value as Record<string, unknown>) : value;
  }
  return target;
}

/**
 * The in-memory twin of ElasticsearchDocuments: the same create-only, compare-and-set, merge and
 * strict-mapping semantics, `_seq_no` counting writes to the index and `_primary_term` 1. Finds see
 * every write at once (as if every write refreshed), so a test reads what it wrote.
 */
export class MemoryDocuments<T extends object> implements DocumentStore<T> {
  readonly index: string;
  private readonly docs = new Map<string, Stored>();
  private seqNo = -1;
  private created = false;

  constructor(private readonly spec: IndexSpec) {
    this.index = spec.name;
  }

  async ensureIndex(): Promise<void> {
    this.created = true;
  }

  private check(doc: unknown): void {
    if (this.spec.mappings.dynamic !== 'strict') return;
    const extra = undeclared(doc, this.spec.mappings.properties);
    if (extra.length > 0) throw new MappingError(this.index, `strict mapping: [${extra.join(', ')}] not declared`);
  }

  private write(id: string, doc: T): Versioned<T> {
    this.check(doc);
    this.created = true;
    this.seqNo += 1;
    this.docs.set(id, { source: JSON.stringify(doc), seqNo: this.seqNo });
    return { doc: copy(doc), seqNo: this.seqNo, primaryTerm: 1 };
  }

  private read(id: string): (Versioned<T> & { id: string }) | null {
    const stored = this.docs.get(id);
    return stored ? { id, doc: JSON.parse(stored.source) as T, seqNo: stored.seqNo, primaryTerm: 1 } : null;
  }

  async get(id: string): Promise<Versioned<T> | null> {
    const found = this.read(id);
    return found ? { doc: found.doc, seqNo: found.seqNo, primaryTerm: found.primaryTerm } : null;
  }

  async getMany(ids: readonly string[], _options?: { timeoutMs?: number }): Promise<(Versioned<T> & { id: string })[]> {
    return ids.flatMap((id) => this.read(id) ?? []);
  }

  async create(id: string, doc: T, _options?: WriteOptions): Promise<Versioned<T> | null> {
    if (this.docs.has(id)) return null;
    return this.write(id, doc);
  }

  async createMany(entries: readonly { id: string; doc: T }[], _options?: WriteOptions): Promise<('created' | 'exists')[]> {
    return entries.map(({ id, doc }) => (this.docs.has(id) ? 'exists' : (this.write(id, doc), 'created')));
  }

  async replace(id: string, doc: T, basis: Basis | null, _options?: WriteOptions): Promise<Versioned<T> | null> {
    if (basis === null) return this.create(id, doc);
    const current = this.docs.get(id);
    if (current === undefined || current.seqNo !== basis.seqNo || basis.primaryTerm !== 1) return null;
    return this.write(id, doc);
  }

  async put(id: string, doc: T, _options?: WriteOptions): Promise<Versioned<T>> {
    return this.write(id, doc);
  }

  async patch(id: string, partial: Partial<T>, _options?: WriteOptions): Promise<void> {
    const current = this.read(id);
    if (current === null) throw new DocumentMissingError(this.index, id);
    this.write(id, mergeInto(current.doc as Record<string, unknown>, copy(partial) as Record<string, unknown>) as T);
  }

  async delete(id: string, basis?: Basis, _options?: WriteOptions): Promise<boolean> {
    const current = this.docs.get(id);
    if (current === undefined) return false;
    if (basis && (current.seqNo !== basis.seqNo || basis.primaryTerm !== 1)) return false;
    this.seqNo += 1;
    return this.docs.delete(id);
  }

  async deleteMany(ids: readonly string[], _options?: WriteOptions): Promise<number> {
    let deleted = 0;
    for (const id of ids) if (await this.delete(id)) deleted += 1;
    return deleted;
  }

  /** With `dynamic: false` or `'strict'` only declared, indexed fields can be searched or sorted on. */
  private searchable(field: string): boolean {
    if (this.spec.mappings.dynamic === undefined || this.spec.mappings.dynamic === true) return true;
    const mapping = mappingOf(this.spec.mappings.properties, field);
    return mapping !== undefined && mapping.enabled !== false && mapping.type !== 'object';
  }

  private matching(filter: Filter, sort: Sort | undefined): (Versioned<T> & { id: string })[] {
    for (const field of (sort ?? []).flatMap((s) => Object.keys(s)))
      if (!this.searchable(field)) throw new Error(`index ${this.index}: no mapping found for [${field}] in order to sort on`);
    if (!this.created) return [];
    const all = [...this.docs.keys()].map((id) => this.read(id)!).filter((v) => matches(v.doc, filter, (f) => this.searchable(f)));
    return sort ? all.sort(sorter(sort)) : all;
  }

  async find(options: FindOptions = {}): Promise<(Versioned<T> & { id: string })[]> {
    const from = options.from ?? 0;
    return this.matching(options, options.sort).slice(from, from + (options.size ?? 100));
  }

  async page(options: FindOptions): Promise<{ total: number; hits: (Versioned<T> & { id: string })[] }> {
    return { total: this.matching(options, undefined).length, hits: await this.find(options) };
  }

  async count(filter: Filter = {}): Promise<number> {
    return this.matching(filter, undefined).length;
  }

  async *scan(options: Filter & { sort: Sort; pageSize?: number }): AsyncGenerator<Versioned<T> & { id: string }> {
    yield* this.matching(options, options.sort);
  }

  async countBy(field: string, filter: Filter = {}, size = 10): Promise<Record<string, number>> {
    const counts = new Map<string, number>();
    for (const v of this.matching(filter, undefined))
      for (const value of new Set(valuesAt(v.doc, field).map(String))) counts.set(value, (counts.get(value) ?? 0) + 1);
    // As a terms aggregation: most frequent first, ties by value.
    const top = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, size);
    return Object.fromEntries(top);
  }

  async refresh(): Promise<void> {}

  /** Test only: every document, for assertions. */
  all(): T[] {
    return [...this.docs.keys()].map((id) => this.read(id)!.doc);
  }
}

/** Twins sharing nothing but their names: opening one index twice gives the same store, as on a server. */
export function memoryStores(): DocumentStores & { stores: Map<string, MemoryDocuments<object>> } {
  const stores = new Map<string, MemoryDocuments<object>>();
  return {
    stores,
    open<T extends object>(spec: IndexSpec): DocumentStore<T> {
      let store = stores.get(spec.name);
      if (!store) {
        store = new MemoryDocuments<object>(spec);
        stores.set(spec.name, store);
      }
      return store as unknown as DocumentStore<T>;
    },
  };
}
