/**
 * Incidents in Elasticsearch (`<prefix>-incidents`), written with optimistic concurrency
 * (if_seq_no / if_primary_term) so any replica can continue any incident: a write based on a stale
 * read fails with a conflict and the handler re-reads and re-applies. One pointer document names
 * the active incident, so concurrent anomalies join one incident instead of racing to open two.
 */
import { errors, type Client } from '@elastic/elasticsearch';
import type { Incident } from './incident.ts';

export const ACTIVE_POINTER_ID = '_active';

export interface Versioned<T> {
  doc: T;
  seq_no: number;
  primary_term: number;
}

export interface ActivePointer {
  doc_type: 'pointer';
  incident_id: string | null;
  updated_at: number;
}

export class ConcurrentUpdateError extends Error {
  constructor(id: string) {
    super(`incident document ${id} was changed by another writer; re-read and retry`);
    this.name = 'ConcurrentUpdateError';
  }
}

const MAPPINGS = {
  dynamic: false as const,
  properties: {
    doc_type: { type: 'keyword' as const },
    incident_id: { type: 'keyword' as const },
    state: { type: 'keyword' as const },
    opened_at: { type: 'date' as const, format: 'epoch_millis' },
    updated_at: { type: 'date' as const, format: 'epoch_millis' },
    closed_at: { type: 'date' as const, format: 'epoch_millis' },
    report_revision: { type: 'integer' as const },
    probe_event_ids: { type: 'keyword' as const },
    verdict: { properties: { root_cause: { type: 'keyword' as const }, component: { type: 'keyword' as const } } },
  },
};

const isConflict = (error: unknown) => error instanceof errors.ResponseError && error.statusCode === 409;
const isNotFound = (error: unknown) => error instanceof errors.ResponseError && error.statusCode === 404;

export class IncidentStore {
  readonly index: string;

  constructor(
    private readonly es: Client,
    prefix: string,
  ) {
    this.index = `${prefix}-incidents`;
  }

  async ensureIndex(): Promise<void> {
    if (await this.es.indices.exists({ index: this.index })) return;
    try {
      await this.es.indices.create({ index: this.index, mappings: MAPPINGS, settings: { number_of_replicas: 0 } });
    } catch (error) {
      if (!String((error as Error).message).includes('resource_already_exists_exception')) throw error;
    }
  }

  private async getVersioned<T>(id: string): Promise<Versioned<T> | null> {
    try {
      const response = await this.es.get<T>({ index: this.index, id });
      return { doc: response._source as T, seq_no: response._seq_no as number, primary_term: response._primary_term as number };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  get(incidentId: string): Promise<Versioned<Incident> | null> {
    return this.getVersioned<Incident>(incidentId);
  }

  activePointer(): Promise<Versioned<ActivePointer> | null> {
    return this.getVersioned<ActivePointer>(ACTIVE_POINTER_ID);
  }

  /** Writes `doc` if nobody wrote since `basis` was read (null: the document must not exist yet). */
  private async put(id: string, doc: object, basis: { seq_no: number; primary_term: number } | null): Promise<void> {
    try {
      await this.es.index({
        index: this.index,
        id,
        document: doc,
        refresh: false,
        ...(basis === null ? { op_type: 'create' as const } : { if_seq_no: basis.seq_no, if_primary_term: basis.primary_term }),
      });
    } catch (error) {
      if (isConflict(error)) throw new ConcurrentUpdateError(id);
      throw error;
    }
  }

  save(incident: Incident, basis: Versioned<Incident> | null): Promise<void> {
    return this.put(incident.incident_id, incident, basis);
  }

  setActive(incidentId: string | null, basis: Versioned<ActivePointer> | null, at: number): Promise<void> {
    return this.put(ACTIVE_POINTER_ID, { doc_type: 'pointer', incident_id: incidentId, updated_at: at } satisfies ActivePointer, basis);
  }

  async list(options: { state?: string; size?: number } = {}): Promise<Incident[]> {
    await this.es.indices.refresh({ index: this.index });
    const response = await this.es.search<Incident>({
      index: this.index,
      size: options.size ?? 100,
      query: {
        bool: { filter: [{ term: { doc_type: 'incident' } }, ...(options.state ? [{ term: { state: options.state } }] : [])] },
      },
      sort: [{ opened_at: 'desc' }],
    });
    return response.hits.hits.map((hit) => hit._source as Incident);
  }
}
