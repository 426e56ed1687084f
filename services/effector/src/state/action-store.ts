import { createHash } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import type { RepairAction, RootCauseReport } from '@rag-immune/contracts';
import { assertActionTransition, assertInitialStatus, type ActionStatus } from './action-state.ts';
import { date, ensureIndex, int, isConflict, isNotFound, kw } from './es.ts';

export { IN_FLIGHT, TERMINAL, type ActionStatus } from './action-state.ts';

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

/** A change to an action that leaves its status alone; status changes go through `move`. */
export type ActionPatch = Partial<Omit<ActionDoc, 'status' | 'key' | 'action_id' | 'incident_id'>>;

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

/** A fresh `planned` record of `tool` at `position` of the report's plan (callers fill in arguments). */
export function newActionDoc(
  report: RootCauseReport,
  tool: { name: string; version: string; intent: RepairAction['intent']; reversible: boolean },
  position: number,
): ActionDoc {
  const key = actionKey(report.incident_id, report.report_revision, tool.name);
  const now = new Date().toISOString();
  return {
    key,
    action_id: actionIdOf(key),
    incident_id: report.incident_id,
    report_revision: report.report_revision,
    report_event_id: report.event_id,
    position,
    tool: tool.name,
    tool_version: tool.version,
    intent: tool.intent,
    component: report.affected_component,
    arguments: {},
    args_json: '{}',
    status: 'planned',
    attempt: 0,
    reversible: tool.reversible,
    owner: null,
    lease_until: null,
    snapshot_id: null,
    prior_json: null,
    grant: null,
    verification: null,
    failure: null,
    executions: 0,
    resumes: 0,
    rollback_reason: null,
    created_at: now,
    updated_at: now,
    started_at: null,
    finished_at: null,
  };
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
    assertInitialStatus(doc.status);
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

  /** Moves the action to `to` (checked by the state machine, action-state.ts) with a compare-and-set; null when another writer moved it first. */
  move(current: Versioned<ActionDoc>, to: ActionStatus, patch: ActionPatch = {}): Promise<Versioned<ActionDoc> | null> {
    assertActionTransition(current.doc.status, to);
    return this.write(current, { ...patch, status: to });
  }

  /** Compare-and-set of fields other than the status; null when another writer moved the action first. */
  update(current: Versioned<ActionDoc>, patch: ActionPatch): Promise<Versioned<ActionDoc> | null> {
    return this.write(current, patch);
  }

  private async write(current: Versioned<ActionDoc>, patch: Partial<ActionDoc>): Promise<Versioned<ActionDoc> | null> {
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
