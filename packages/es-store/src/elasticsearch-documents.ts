import { errors, type Client } from '@elastic/elasticsearch';
import {
  DocumentMissingError,
  MappingError,
  type Basis,
  type Condition,
  type DocumentStore,
  type DocumentStores,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type Range,
  type Sort,
  type Versioned,
  type WriteOptions,
} from './document-store.ts';

const status = (error: unknown): number | undefined => (error instanceof errors.ResponseError ? error.statusCode : undefined);
const isConflict = (error: unknown) => status(error) === 409;
const isNotFound = (error: unknown) => status(error) === 404;
const errorType = (error: unknown): string | undefined =>
  error instanceof errors.ResponseError ? (error.body as { error?: { type?: string } } | undefined)?.error?.type : undefined;

function isRange(condition: Condition): condition is Range {
  return typeof condition === 'object' && !Array.isArray(condition);
}

function clause(field: string, condition: Condition): object {
  if (Array.isArray(condition)) return { terms: { [field]: condition } };
  if (isRange(condition)) return { range: { [field]: condition } };
  return { term: { [field]: condition } };
}

/** A Filter as an Elasticsearch bool query (filter context: no scoring). */
export function toQuery(filter: Filter = {}): object {
  const must = Object.entries(filter.where ?? {}).map(([field, c]) => clause(field, c));
  const mustNot = Object.entries(filter.whereNot ?? {}).map(([field, c]) => clause(field, c));
  if (must.length === 0 && mustNot.length === 0) return { match_all: {} };
  return { bool: { filter: must, must_not: mustNot } };
}

const toSort = (sort: Sort | undefined) => sort?.map((s) => ({ ...s }));

/** Transport options for a call with a latency budget: a read gets no retry, a write one. */
const budget = (timeoutMs: number | undefined, maxRetries: number) =>
  timeoutMs === undefined ? {} : { requestTimeout: timeoutMs, maxRetries };

/** Versioned documents in one Elasticsearch index (see DocumentStore for the semantics). */
export class ElasticsearchDocuments<T extends object> implements DocumentStore<T> {
  readonly index: string;

  constructor(
    private readonly es: Client,
    private readonly spec: IndexSpec,
  ) {
    this.index = spec.name;
  }

  private refreshOf(options?: WriteOptions) {
    return options?.refresh ?? this.spec.refresh ?? false;
  }

  private mappingError(error: unknown): Error {
    return errorType(error) === 'strict_dynamic_mapping_exception'
      ? new MappingError(this.index, (error as Error).message)
      : (error as Error);
  }

  async ensureIndex(): Promise<void> {
    if (await this.es.indices.exists({ index: this.index })) return;
    try {
      await this.es.indices.create({
        index: this.index,
        ...(this.spec.settings ? { settings: this.spec.settings } : {}),
        mappings: this.spec.mappings as never,
      });
    } catch (error) {
      if (errorType(error) !== 'resource_already_exists_exception') throw error;
    }
  }

  async get(id: string): Promise<Versioned<T> | null> {
    try {
      const r = await this.es.get<T>({ index: this.index, id });
      if (!r.found || r._source === undefined) return null;
      return { doc: r._source, seqNo: r._seq_no as number, primaryTerm: r._primary_term as number };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async getMany(ids: readonly string[], options: { timeoutMs?: number } = {}): Promise<(Versioned<T> & { id: string })[]> {
    if (ids.length === 0) return [];
    const r = await this.es.mget<T>({ index: this.index, ids: [...ids] }, budget(options.timeoutMs, 0));
    return r.docs.flatMap((d) =>
      'found' in d && d.found && d._source !== undefined
        ? [{ id: d._id, doc: d._source, seqNo: d._seq_no as number, primaryTerm: d._primary_term as number }]
        : [],
    );
  }

  async create(id: string, doc: T, options?: WriteOptions): Promise<Versioned<T> | null> {
    try {
      const r = await this.es.index({ index: this.index, id, document: doc, op_type: 'create', refresh: this.refreshOf(options) });
      return { doc, seqNo: r._seq_no as number, primaryTerm: r._primary_term as number };
    } catch (error) {
      if (isConflict(error)) return null;
      throw this.mappingError(error);
    }
  }

  async createMany(entries: readonly { id: string; doc: T }[], options?: WriteOptions): Promise<('created' | 'exists')[]> {
    if (entries.length === 0) return [];
    const r = await this.es.bulk({
      refresh: this.refreshOf(options),
      operations: entries.flatMap(({ id, doc }) => [{ create: { _index: this.index, _id: id } }, doc]),
    });
    return r.items.map((item) => {
      const result = item.create;
      if (result?.status === 201) return 'created';
      if (result?.status === 409) return 'exists';
      if (result?.error?.type === 'strict_dynamic_mapping_exception') throw new MappingError(this.index, result.error.reason ?? '');
      throw new Error(`create in ${this.index} failed: ${result?.status} ${JSON.stringify(result?.error)}`);
    });
  }

  async replace(id: string, doc: T, basis: Basis | null, options?: WriteOptions): Promise<Versioned<T> | null> {
    if (basis === null) return this.create(id, doc, options);
    try {
      const r = await this.es.index({
        index: this.index,
        id,
        document: doc,
        if_seq_no: basis.seqNo,
        if_primary_term: basis.primaryTerm,
        refresh: this.refreshOf(options),
      });
      return { doc, seqNo: r._seq_no as number, primaryTerm: r._primary_term as number };
    } catch (error) {
      if (isConflict(error)) return null;
      throw this.mappingError(error);
    }
  }

  async put(id: string, doc: T, options?: WriteOptions): Promise<Versioned<T>> {
    try {
      const r = await this.es.index(
        { index: this.index, id, document: doc, refresh: this.refreshOf(options) },
        budget(options?.timeoutMs, 1),
      );
      return { doc, seqNo: r._seq_no as number, primaryTerm: r._primary_term as number };
    } catch (error) {
      throw this.mappingError(error);
    }
  }

  async patch(id: string, partial: Partial<T>, options?: WriteOptions): Promise<void> {
    try {
      await this.es.update({ index: this.index, id, doc: partial, refresh: this.refreshOf(options) });
    } catch (error) {
      if (isNotFound(error)) throw new DocumentMissingError(this.index, id);
      throw this.mappingError(error);
    }
  }

  async delete(id: string, basis?: Basis, options?: WriteOptions): Promise<boolean> {
    try {
      await this.es.delete({
        index: this.index,
        id,
        refresh: this.refreshOf(options),
        ...(basis ? { if_seq_no: basis.seqNo, if_primary_term: basis.primaryTerm } : {}),
      });
      return true;
    } catch (error) {
      if (isConflict(error) || isNotFound(error)) return false;
      throw error;
    }
  }

  async deleteMany(ids: readonly string[], options?: WriteOptions): Promise<number> {
    if (ids.length === 0) return 0;
    const r = await this.es.bulk({
      refresh: this.refreshOf(options),
      operations: ids.map((id) => ({ delete: { _index: this.index, _id: id } })),
    });
    return r.items.filter((item) => item.delete?.status === 200).length;
  }

  async find(options: FindOptions = {}): Promise<(Versioned<T> & { id: string })[]> {
    return (await this.search(options, false)).hits;
  }

  page(options: FindOptions): Promise<{ total: number; hits: (Versioned<T> & { id: string })[] }> {
    return this.search(options, true);
  }

  private async search(options: FindOptions, total: boolean): Promise<{ total: number; hits: (Versioned<T> & { id: string })[] }> {
    const r = await this.es.search<T>(
      {
        index: this.index,
        query: toQuery(options),
        size: options.size ?? 100,
        ...(options.from ? { from: options.from } : {}),
        ...(options.sort ? { sort: toSort(options.sort) } : {}),
        ...(total ? { track_total_hits: true } : {}),
        seq_no_primary_term: true,
        ignore_unavailable: true,
      },
      budget(options.timeoutMs, 0),
    );
    const count = typeof r.hits.total === 'number' ? r.hits.total : (r.hits.total?.value ?? 0);
    return {
      total: count,
      hits: r.hits.hits.map((hit) => ({
        id: hit._id as string,
        doc: hit._source as T,
        seqNo: hit._seq_no as number,
        primaryTerm: hit._primary_term as number,
      })),
    };
  }

  async count(filter: Filter = {}): Promise<number> {
    try {
      return (await this.es.count({ index: this.index, query: toQuery(filter) })).count;
    } catch (error) {
      if (isNotFound(error)) return 0;
      throw error;
    }
  }

  async *scan(options: Filter & { sort: Sort; pageSize?: number }): AsyncGenerator<Versioned<T> & { id: string }> {
    const size = options.pageSize ?? 1000;
    let after: unknown[] | undefined;
    for (;;) {
      const r = await this.es.search<T>({
        index: this.index,
        query: toQuery(options),
        size,
        sort: toSort(options.sort),
        seq_no_primary_term: true,
        ignore_unavailable: true,
        ...(after ? { search_after: after as never } : {}),
      });
      const hits = r.hits.hits;
      for (const hit of hits)
        yield { id: hit._id as string, doc: hit._source as T, seqNo: hit._seq_no as number, primaryTerm: hit._primary_term as number };
      if (hits.length < size) return;
      after = hits.at(-1)?.sort as unknown[];
    }
  }

  async countBy(field: string, filter: Filter = {}, size = 10): Promise<Record<string, number>> {
    const r = await this.es.search({
      index: this.index,
      size: 0,
      query: toQuery(filter),
      aggs: { values: { terms: { field, size } } },
      ignore_unavailable: true,
    });
    const buckets = (r.aggregations?.values as { buckets?: { key: string; doc_count: number }[] } | undefined)?.buckets ?? [];
    return Object.fromEntries(buckets.map((b) => [String(b.key), b.doc_count]));
  }

  async refresh(): Promise<void> {
    await this.es.indices.refresh({ index: this.index, ignore_unavailable: true });
  }
}

/** Stores on one Elasticsearch client. */
export function elasticsearchStores(es: Client): DocumentStores {
  return { open: <T extends object>(spec: IndexSpec) => new ElasticsearchDocuments<T>(es, spec) };
}
