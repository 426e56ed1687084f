/**
 * Incidents in Elasticsearch (`<prefix>-incidents`), written with optimistic concurrency
 * (if_seq_no / if_primary_term) so any replica can continue any incident: a write based on a stale
 * read fails with a conflict and the handler re-reads and re-applies. One pointer document names
 * the active incident, so concurrent anomalies join one incident instead of racing to open two.
 */
import { epochMillis, integer, keyword, type DocumentStore, type DocumentStores, type Versioned } from '@rag-immune/es-store';
import type { Incident } from './incident.ts';

export type { Versioned } from '@rag-immune/es-store';

export const ACTIVE_POINTER_ID = '_active';

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

type IncidentIndexDoc = Incident | ActivePointer;

export class IncidentStore {
  private readonly docs: DocumentStore<IncidentIndexDoc>;

  constructor(stores: DocumentStores, prefix: string) {
    this.docs = stores.open<IncidentIndexDoc>({
      name: `${prefix}-incidents`,
      // Real-time GETs serve every read the state machine makes; list() refreshes first.
      refresh: false,
      settings: { number_of_replicas: 0 },
      mappings: {
        dynamic: false,
        properties: {
          doc_type: keyword,
          incident_id: keyword,
          state: keyword,
          opened_at: epochMillis,
          updated_at: epochMillis,
          closed_at: epochMillis,
          report_revision: integer,
          probe_event_ids: keyword,
          verdict: { properties: { root_cause: keyword, component: keyword } },
        },
      },
    });
  }

  get index(): string {
    return this.docs.index;
  }

  ensureIndex(): Promise<void> {
    return this.docs.ensureIndex();
  }

  get(incidentId: string): Promise<Versioned<Incident> | null> {
    return this.docs.get(incidentId) as Promise<Versioned<Incident> | null>;
  }

  activePointer(): Promise<Versioned<ActivePointer> | null> {
    return this.docs.get(ACTIVE_POINTER_ID) as Promise<Versioned<ActivePointer> | null>;
  }

  /** Writes `doc` if nobody wrote since `basis` was read (null: the document must not exist yet). */
  private async put(id: string, doc: IncidentIndexDoc, basis: Versioned<unknown> | null): Promise<void> {
    if ((await this.docs.replace(id, doc, basis)) === null) throw new ConcurrentUpdateError(id);
  }

  save(incident: Incident, basis: Versioned<Incident> | null): Promise<void> {
    return this.put(incident.incident_id, incident, basis);
  }

  setActive(incidentId: string | null, basis: Versioned<ActivePointer> | null, at: number): Promise<void> {
    return this.put(ACTIVE_POINTER_ID, { doc_type: 'pointer', incident_id: incidentId, updated_at: at } satisfies ActivePointer, basis);
  }

  async list(options: { state?: string; size?: number } = {}): Promise<Incident[]> {
    await this.docs.refresh();
    const hits = await this.docs.find({
      where: { doc_type: 'incident', ...(options.state ? { state: options.state } : {}) },
      sort: [{ opened_at: 'desc' }],
      size: options.size ?? 100,
    });
    return hits.map((hit) => hit.doc as Incident);
  }
}
