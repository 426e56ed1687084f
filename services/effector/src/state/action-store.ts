import { createHash } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import type { RepairAction } from '@rag-immune/contracts';
import { date, ensureIndex, int, isConflict, isNotFound, kw } from './es.ts';

export type ActionStatus = 'planned' | 'awaiting_grant' | 'started' | 'executed' | 'succeeded' | 'failed' | 'rolled_back' | 'escalated';

/** Statuses after which the action never runs again. */
export const TERMINAL: ReadonlySet<ActionStatus> = new Set(['succeeded', 'failed', 'rolled_back', 'escalated']);
/** Statuses in which a repair may have changed the RAG without being verified or undone. */
export const IN_FLIGHT: ReadonlySet<ActionStatus> = new Set(['started', 'executed']);

/** One repair action's durable state: the single source of truth shared by every replica. */
export interface ActionDoc {
  key: string;
  action_id: string;
  incident_id: string;
  report_revision: number;
  report_event_id: string;
  position: number;
  tool: string;
  tool_version: string;
  intent: RepairAction['intent'];
  component: string;
  /** What the RepairAction event carries: tool arguments plus why the action was chosen. */
  arguments: Record<string, string>;
  args_json: string;
  status: ActionStatus;
  attempt: number;
  reversible: boolean;
  owner: string | null;
  lease_until: number | null;
  snapshot_id: string | null;
  prior_json: string | null;
  grant: RepairAction['grant'];
  verification: RepairAction['verification'];
  failure: RepairAction['failure'];
  /** How many times execute() was entered for this action (a resume after a crash re-enters once the RAG is back at its before state). */
  executions: number;
  resumes: number;
  rollback_reason: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface Versioned<T> {
  doc: T;
  seqNo: number;
  primaryTerm: number;
}

/** Stable across replicas and redeliveries: incident, report revision and tool name the action. */
export function actionKey(incidentId: string, revision: number, tool: string): string {
  return `${incidentId}:r${revision}:${tool}`;
}

/** A UUID-shaped id derived from the key, so every replica names the same action the same way. */
export function actionIdOf(key: string): string {
  const h = createHash('sha256').update(key).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Action state in Elasticsearch with optimistic concurrency: a claim is `op_type: create` (one
 * creator wins), every transition is a compare-and-set on `_seq_no`/`_primary_term`, so two replicas
 * or a redelivered report can never both move an action forward.
 */
export class ActionStore {
  constructor(
    private readonly es: Client,
    readonly index: string,
  ) {}

  async init(): Promise<void> {
    await ensureIndex(this.es, this.index, {
      key: kw,
      action_id: kw,
      incident_id: kw,
      report_revision: int,
      tool: kw,
      intent: kw,
      component: kw,
      status: kw,
      owner: kw,
      snapshot_id: kw,
      executions: int,
      created_at: date,
      started_at: date,
      updated_at: date,
    });
  }

  /** Creates the action if no replica did; null when it already exists. */
  async create(doc: ActionDoc): Promise<Versioned<ActionDoc> | null> {
    try {
      const r = await this.es.index({ index: this.index, id: doc.key, document: doc, op_type: 'create', refresh: true });
      return { doc, seqNo: r._seq_no as number, primaryTerm: r._primary_term as number };
    } catch (error) {
      if (isConflict(error)) return null;
      throw error;
    }
  }

  async get(key: string): Promise<Versioned<ActionDoc> | null> {
    try {
      const r = await this.es.get<ActionDoc>({ index: this.index, id: key });
      if (!r.found || r._source === undefined) return null;
      return { doc: r._source, seqNo: r._seq_no as number, primaryTerm: r._primary_term as number };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async getById(actionId: string): Promise<Versioned<ActionDoc> | null> {
    const found = await this.search({ term: { action_id: actionId } }, 1);
    return found[0] === undefined ? null : this.get(found[0].key);
  }

  /** Compare-and-set; null when another writer moved the action first. */
  async update(current: Versioned<ActionDoc>, patch: Partial<ActionDoc>): Promise<Versioned<ActionDoc> | null> {
    const doc = { ...current.doc, ...patch, updated_at: new Date().toISOString() };
    try {
      const r = await this.es.index({
        index: this.index,
        id: doc.key,
        document: doc,
        if_seq_no: current.seqNo,
        if_primary_term: current.primaryTerm,
        refresh: true,
      });
      return { doc, seqNo: r._seq_no as number, primaryTerm: r._primary_term as number };
    } catch (error) {
      if (isConflict(error)) return null;
      throw error;
    }
  }

  async list(filter: { incident?: string; statuses?: ActionStatus[] } = {}, size = 500): Promise<ActionDoc[]> {
    const must: object[] = [];
    if (filter.incident) must.push({ term: { incident_id: filter.incident } });
    if (filter.statuses) must.push({ terms: { status: filter.statuses } });
    return this.search(must.length === 0 ? { match_all: {} } : { bool: { must } }, size);
  }

  /** Failed repairs of an incident (what the circuit breaker counts). */
  async failedCount(incidentId: string): Promise<number> {
    const r = await this.es.count({
      index: this.index,
      // Only repairs that ran count: an inapplicable tool (refused before any change) is no failed repair.
      query: {
        bool: {
          must: [
            { term: { incident_id: incidentId } },
            { terms: { status: ['failed', 'rolled_back'] } },
            { range: { executions: { gte: 1 } } },
          ],
        },
      },
    });
    return r.count;
  }

  /** Repairs started on a component since a time (the per-component rate limit). */
  async startedSince(component: string, since: Date): Promise<number> {
    const r = await this.es.count({
      index: this.index,
      query: { bool: { must: [{ term: { component } }, { range: { started_at: { gte: since.toISOString() } } }] } },
    });
    return r.count;
  }

  private async search(query: object, size: number): Promise<ActionDoc[]> {
    const r = await this.es.search<ActionDoc>({
      index: this.index,
      query,
      size,
      sort: [{ created_at: 'asc' }, { key: 'asc' }],
      ignore_unavailable: true,
    });
    return r.hits.hits.map((hit) => hit._source as ActionDoc);
  }
}
