import type { Client } from '@elastic/elasticsearch';
import type { QdrantClient } from '@qdrant/js-client-rest';
import {
  date,
  elasticsearchStores,
  epochMillis,
  float,
  integer,
  keyword,
  long,
  text,
  type DocumentStore,
  type IndexSpec,
} from '@rag-immune/es-store';
import {
  createElasticsearchClient,
  createQdrantClient,
  type ElasticsearchConnection,
  type QdrantRetryLogger,
} from '@rag-immune/worker-runtime';
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
  /** Where a Qdrant request resent after a dropped connection is logged. */
  logger?: QdrantRetryLogger | undefined;
  casesIndex: string;
  collection: string;
  dimension: number;
}

/** Per-call limits for the latency-critical read path. */
export interface CallBudget {
  timeoutMs: number;
}

const CASE_MAPPINGS: IndexSpec['mappings'] = {
  dynamic: false,
  properties: {
    case_id: keyword,
    incident_id: keyword,
    environment: keyword,
    signature_text: text,
    signature_key: keyword,
    outcome: keyword,
    intents: keyword,
    recovered_by: keyword,
    incident_at: epochMillis,
    time_to_recovery_ms: long,
    signature: {
      properties: {
        root_cause: keyword,
        affected_component: keyword,
        confidence: float,
        affected_knowledge_ids: keyword,
      },
    },
    card: {
      properties: {
        status: keyword,
        importance: float,
        access_count: integer,
        duplicate_count: integer,
        created_at: date,
        updated_at: date,
        last_used_at: date,
        superseded_by: keyword,
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
  private readonly docs: DocumentStore<HealingCase>;

  constructor(readonly options: CaseStoreOptions) {
    this.es = createElasticsearchClient({
      ...options.elasticsearch,
      url: options.elasticsearchUrl,
      requestTimeoutMs: 10_000,
      maxRetries: 1,
    });
    this.qdrant = createQdrantClient({ url: options.qdrantUrl, apiKey: options.qdrantApiKey, timeoutMs: 10_000, logger: options.logger });
    this.docs = elasticsearchStores(this.es).open<HealingCase>({ name: options.casesIndex, mappings: CASE_MAPPINGS });
  }

  /** Creates the index and the collection (with payload indexes) when missing. */
  async ensure(): Promise<void> {
    await this.docs.ensureIndex();
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
    const found = await this.docs.get(caseId);
    return found && { healingCase: found.doc, seqNo: found.seqNo, primaryTerm: found.primaryTerm };
  }

  /**
   * Writes a case only if it is still at `expected` (null: only if it does not exist yet), and
   * returns the version written.
   */
  async write(healingCase: HealingCase, expected: StoredCase | null, refresh: boolean | 'wait_for' = false): Promise<StoredCase> {
    const written = await this.docs.replace(healingCase.case_id, healingCase, expected, { refresh });
    if (written === null) throw new CaseVersionConflictError(healingCase.case_id);
    return { healingCase, seqNo: written.seqNo, primaryTerm: written.primaryTerm };
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
    return (await this.docs.getMany(ids, budget ?? {})).map((v) => v.doc);
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
    const where: Record<string, string> = {};
    if (query.status) where['card.status'] = query.status;
    if (query.root_cause) where['signature.root_cause'] = query.root_cause;
    if (query.outcome) where.outcome = query.outcome;
    const page = await this.docs.page({
      where,
      size: query.limit,
      from: query.offset,
      sort: [{ 'card.updated_at': 'desc' }, { case_id: 'asc' }],
      ...(budget ? { timeoutMs: budget.timeoutMs } : {}),
    });
    return { total: page.total, cases: page.hits.map((hit) => hit.doc) };
  }

  /** Cases per card status (an Elasticsearch aggregation), for the cases-by-status gauge. */
  countByStatus(): Promise<Record<string, number>> {
    return this.docs.countBy('card.status', {}, 10);
  }

  /** Every case in the given statuses with its version, paged by search_after (forgetting sweeps). */
  async *scan(statuses: CaseStatus[], pageSize = 500): AsyncGenerator<StoredCase> {
    for await (const hit of this.docs.scan({ where: { 'card.status': statuses }, sort: [{ case_id: 'asc' }], pageSize }))
      yield { healingCase: hit.doc, seqNo: hit.seqNo, primaryTerm: hit.primaryTerm };
  }

  refresh(): Promise<void> {
    return this.docs.refresh();
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
