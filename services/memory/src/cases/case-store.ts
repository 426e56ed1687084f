import type { Client } from '@elastic/elasticsearch';
import { errors } from '@elastic/elasticsearch';
import type { QdrantClient } from '@qdrant/js-client-rest';
import { createElasticsearchClient, createQdrantClient, type ElasticsearchConnection } from '@rag-immune/worker-runtime';
import type { CaseStatus, HealingCase } from './healing-case.ts';

/** The version of a case document as Elasticsearch holds it, for optimistic concurrency. */
export interface StoredCase {
  healingCase: HealingCase;
  seqNo: number;
  primaryTerm: number;
}

/** Someone else wrote the case between our read and our write: read again and re-apply. */
export class CaseVersionConflictError extends Error {
  constructor(caseId: string) {
    super(`case ${caseId} changed while being written`);
    this.name = 'CaseVersionConflictError';
  }
}

/** Hard metadata filters, applied inside both stores before any ranking (seed 004 §4.1). */
export interface CaseFilter {
  environment: string;
  root_cause: string;
  affected_component: string;
  /** The asking incident's own case never counts as a precedent for itself. */
  excludeIncidentId?: string;
}

export interface ScoredId {
  case_id: string;
  score: number;
}

export interface CaseStoreOptions {
  elasticsearchUrl: string;
  /** Credentials of a secured cluster (ES_API_KEY or ES_USERNAME/ES_PASSWORD, ES_CA_FILE). */
  elasticsearch?: Omit<ElasticsearchConnection, 'url'>;
  qdrantUrl: string;
  qdrantApiKey?: string | undefined;
  casesIndex: string;
  collection: string;
  dimension: number;
}

/** Per-call limits for the latency-critical read path. */
export interface CallBudget {
  timeoutMs: number;
}

const CASE_MAPPINGS = {
  dynamic: false as const,
  properties: {
    case_id: { type: 'keyword' as const },
    incident_id: { type: 'keyword' as const },
    environment: { type: 'keyword' as const },
    signature_text: { type: 'text' as const },
    signature_key: { type: 'keyword' as const },
    outcome: { type: 'keyword' as const },
    intents: { type: 'keyword' as const },
    recovered_by: { type: 'keyword' as const },
    incident_at: { type: 'date' as const, format: 'epoch_millis' },
    time_to_recovery_ms: { type: 'long' as const },
    signature: {
      properties: {
        root_cause: { type: 'keyword' as const },
        affected_component: { type: 'keyword' as const },
        confidence: { type: 'float' as const },
        affected_knowledge_ids: { type: 'keyword' as const },
      },
    },
    card: {
      properties: {
        status: { type: 'keyword' as const },
        importance: { type: 'float' as const },
        access_count: { type: 'integer' as const },
        duplicate_count: { type: 'integer' as const },
        created_at: { type: 'date' as const },
        updated_at: { type: 'date' as const },
        last_used_at: { type: 'date' as const },
        superseded_by: { type: 'keyword' as const },
      },
    },
  },
};

/**
 * Healing cases on the real parts: the case document (source of truth, BM25 over the signature text,
 * metadata filters, aggregations) in Elasticsearch, the signature vector with filterable payload in
 * Qdrant. Writes to Elasticsearch use seq_no/primary_term so concurrent merges never lose an event.
 */
export class CaseStore {
  readonly es: Client;
  readonly qdrant: QdrantClient;

  constructor(readonly options: CaseStoreOptions) {
    this.es = createElasticsearchClient({
      ...options.elasticsearch,
      url: options.elasticsearchUrl,
      requestTimeoutMs: 10_000,
      maxRetries: 1,
    });
    this.qdrant = createQdrantClient({ url: options.qdrantUrl, apiKey: options.qdrantApiKey, timeoutMs: 10_000 });
  }

  /** Creates the index and the collection (with payload indexes) when missing. */
  async ensure(): Promise<void> {
    const exists = await this.es.indices.exists({ index: this.options.casesIndex });
    if (!exists) {
      try {
        await this.es.indices.create({ index: this.options.casesIndex, mappings: CASE_MAPPINGS });
      } catch (error) {
        if (!isAlreadyExists(error)) throw error;
      }
    }
    const { exists: collectionExists } = await this.qdrant.collectionExists(this.options.collection);
    if (!collectionExists) {
      try {
        await this.qdrant.createCollection(this.options.collection, { vectors: { size: this.options.dimension, distance: 'Cosine' } });
      } catch (error) {
        if (!String((error as { status?: number }).status ?? '').startsWith('409')) throw error;
      }
      for (const field of ['environment', 'root_cause', 'affected_component', 'status', 'incident_id']) {
        await this.qdrant.createPayloadIndex(this.options.collection, { field_name: field, field_schema: 'keyword', wait: true });
      }
    }
  }

  async get(caseId: string): Promise<StoredCase | null> {
    try {
      const doc = await this.es.get<HealingCase>({ index: this.options.casesIndex, id: caseId });
      if (!doc.found || doc._source === undefined) return null;
      return { healingCase: doc._source, seqNo: doc._seq_no ?? 0, primaryTerm: doc._primary_term ?? 1 };
    } catch (error) {
      if (error instanceof errors.ResponseError && error.statusCode === 404) return null;
      throw error;
    }
  }

  /**
   * Writes a case only if it is still at `expected` (null: only if it does not exist yet), and
   * returns the version written.
   */
  async write(healingCase: HealingCase, expected: StoredCase | null, refresh: boolean | 'wait_for' = false): Promise<StoredCase> {
    try {
      const written = await this.es.index({
        index: this.options.casesIndex,
        id: healingCase.case_id,
        document: healingCase,
        refresh,
        ...(expected === null ? { op_type: 'create' as const } : { if_seq_no: expected.seqNo, if_primary_term: expected.primaryTerm }),
      });
      return { healingCase, seqNo: written._seq_no ?? 0, primaryTerm: written._primary_term ?? 1 };
    } catch (error) {
      if (error instanceof errors.ResponseError && error.statusCode === 409) throw new CaseVersionConflictError(healingCase.case_id);
      throw error;
    }
  }

  /** Upserts the case's point (vector + the payload the hard filters use). */
  async upsertVector(healingCase: HealingCase, vector: Float32Array | number[]): Promise<void> {
    await this.qdrant.upsert(this.options.collection, {
      wait: true,
      points: [{ id: healingCase.case_id, vector: Array.from(vector), payload: pointPayload(healingCase) }],
    });
  }

  /** Keeps the point's filter payload (status, outcome) in step with the case document. */
  async syncPayload(healingCase: HealingCase): Promise<void> {
    await this.qdrant.setPayload(this.options.collection, {
      wait: true,
      points: [healingCase.case_id],
      payload: pointPayload(healingCase),
    });
  }

  async many(ids: string[], budget?: CallBudget): Promise<HealingCase[]> {
    if (ids.length === 0) return [];
    const response = await this.es.mget<HealingCase>({ index: this.options.casesIndex, ids }, requestOptions(budget));
    const found: HealingCase[] = [];
    for (const doc of response.docs) if ('found' in doc && doc.found && doc._source) found.push(doc._source);
    return found;
  }

  async bm25(text: string, filter: CaseFilter, limit: number, budget?: CallBudget): Promise<ScoredId[]> {
    const response = await this.es.search<HealingCase>(
      {
        index: this.options.casesIndex,
        size: limit,
        _source: false,
        query: { bool: { must: [{ match: { signature_text: text } }], filter: esFilter(filter), must_not: esMustNot(filter) } },
      },
      requestOptions(budget),
    );
    return response.hits.hits.map((hit) => ({ case_id: hit._id ?? '', score: hit._score ?? 0 }));
  }

  async nearest(vector: Float32Array | number[], filter: CaseFilter, limit: number): Promise<ScoredId[]> {
    const response = await this.qdrant.query(this.options.collection, {
      query: Array.from(vector),
      limit,
      filter: qdrantFilter(filter),
      with_payload: false,
    });
    return response.points.map((point) => ({ case_id: String(point.id), score: point.score }));
  }

  /** The stored vectors of some cases (BM25-only candidates need one to be given a similarity). */
  async vectorsOf(ids: string[]): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>();
    if (ids.length === 0) return out;
    const points = await this.qdrant.retrieve(this.options.collection, { ids, with_vector: true, with_payload: false });
    for (const point of points) if (Array.isArray(point.vector)) out.set(String(point.id), point.vector as number[]);
    return out;
  }

  async list(
    query: { status?: CaseStatus; root_cause?: string; outcome?: string; limit: number; offset: number },
    budget?: CallBudget,
  ): Promise<{ total: number; cases: HealingCase[] }> {
    const filter: object[] = [];
    if (query.status) filter.push({ term: { 'card.status': query.status } });
    if (query.root_cause) filter.push({ term: { 'signature.root_cause': query.root_cause } });
    if (query.outcome) filter.push({ term: { outcome: query.outcome } });
    const response = await this.es.search<HealingCase>(
      {
        index: this.options.casesIndex,
        size: query.limit,
        from: query.offset,
        track_total_hits: true,
        sort: [{ 'card.updated_at': 'desc' }, { case_id: 'asc' }],
        query: { bool: { filter } },
      },
      requestOptions(budget),
    );
    const total = typeof response.hits.total === 'number' ? response.hits.total : (response.hits.total?.value ?? 0);
    return { total, cases: response.hits.hits.flatMap((hit) => (hit._source ? [hit._source] : [])) };
  }

  /** Cases per card status (an Elasticsearch aggregation), for the cases-by-status gauge. */
  async countByStatus(): Promise<Record<string, number>> {
    const response = await this.es.search({
      index: this.options.casesIndex,
      size: 0,
      aggs: { status: { terms: { field: 'card.status', size: 10 } } },
    });
    const buckets = (response.aggregations?.status as { buckets?: { key: string; doc_count: number }[] } | undefined)?.buckets ?? [];
    return Object.fromEntries(buckets.map((b) => [b.key, b.doc_count]));
  }

  /** Every case in the given statuses with its version, paged by search_after (forgetting sweeps). */
  async *scan(statuses: CaseStatus[], pageSize = 500): AsyncGenerator<StoredCase> {
    let after: (string | number)[] | undefined;
    for (;;) {
      const response = await this.es.search<HealingCase>({
        index: this.options.casesIndex,
        size: pageSize,
        seq_no_primary_term: true,
        sort: [{ case_id: 'asc' }],
        query: { bool: { filter: [{ terms: { 'card.status': statuses } }] } },
        ...(after ? { search_after: after } : {}),
      });
      const hits = response.hits.hits;
      for (const hit of hits) {
        if (hit._source) yield { healingCase: hit._source, seqNo: hit._seq_no ?? 0, primaryTerm: hit._primary_term ?? 1 };
      }
      if (hits.length < pageSize) return;
      after = hits.at(-1)?.sort as (string | number)[];
    }
  }

  async refresh(): Promise<void> {
    await this.es.indices.refresh({ index: this.options.casesIndex });
  }

  /** Test and bench clean-up only: removes this store's index and collection. */
  async drop(): Promise<void> {
    await this.es.indices.delete({ index: this.options.casesIndex, ignore_unavailable: true });
    await this.qdrant.deleteCollection(this.options.collection).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.es.close();
  }
}

export function pointPayload(healingCase: HealingCase): Record<string, unknown> {
  return {
    case_id: healingCase.case_id,
    incident_id: healingCase.incident_id,
    environment: healingCase.environment,
    root_cause: healingCase.signature?.root_cause ?? 'none',
    affected_component: healingCase.signature?.affected_component ?? 'none',
    status: healingCase.card.status,
    outcome: healingCase.outcome,
  };
}

function esFilter(filter: CaseFilter): object[] {
  return [
    { term: { environment: filter.environment } },
    { term: { 'signature.root_cause': filter.root_cause } },
    { term: { 'signature.affected_component': filter.affected_component } },
    { term: { 'card.status': 'active' } },
  ];
}

function esMustNot(filter: CaseFilter): object[] {
  return filter.excludeIncidentId ? [{ term: { incident_id: filter.excludeIncidentId } }] : [];
}

function qdrantFilter(filter: CaseFilter) {
  return {
    must: [
      { key: 'environment', match: { value: filter.environment } },
      { key: 'root_cause', match: { value: filter.root_cause } },
      { key: 'affected_component', match: { value: filter.affected_component } },
      { key: 'status', match: { value: 'active' } },
    ],
    ...(filter.excludeIncidentId ? { must_not: [{ key: 'incident_id', match: { value: filter.excludeIncidentId } }] } : {}),
  };
}

function requestOptions(budget?: CallBudget) {
  return budget ? { requestTimeout: budget.timeoutMs, maxRetries: 0 } : {};
}

function isAlreadyExists(error: unknown): boolean {
  return error instanceof errors.ResponseError && JSON.stringify(error.body ?? '').includes('resource_already_exists_exception');
}
