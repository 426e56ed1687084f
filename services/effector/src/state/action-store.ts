import { createHash } from 'node:crypto';
import type { RepairAction, RootCauseReport } from '@rag-immune/contracts';
import { FAILED_REPAIR, assertActionTransition, assertInitialStatus, type ActionStatus } from './action-state.ts';
import { date, integer, keyword, type DocumentStore, type DocumentStores, type Versioned } from '@rag-immune/es-store';
import { EFFECTOR_INDEX_SETTINGS } from '../config.ts';

export { IN_FLIGHT, TERMINAL, type ActionStatus } from './action-state.ts';
export type { Versioned } from '@rag-immune/es-store';

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
  /** Undo attempts that failed while `undoing` (bounded: then the action is failed and escalated). Absent on older records. */
  undo_attempts?: number;
  /**
   * Why a repair is held `executed` rather than judged: its verification was inconclusive (the
   * measurement failed, not the repair), so it is neither succeeded nor undone. Absent/null: not held.
   */
  hold_reason?: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** A change to an action that leaves its status alone; status changes go through `move`. */
export type ActionPatch = Partial<Omit<ActionDoc, 'status' | 'key' | 'action_id' | 'incident_id'>>;

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
 * Action state in Elasticsearch with optimistic concurrency: a claim is create-only (one creator
 * wins), every transition is a compare-and-set on `_seq_no`/`_primary_term`, so two replicas or a
 * redelivered report can never both move an action forward.
 */
export class ActionStore {
  private readonly docs: DocumentStore<ActionDoc>;

  constructor(stores: DocumentStores, index: string) {
    this.docs = stores.open<ActionDoc>({
      name: index,
      refresh: true,
      settings: EFFECTOR_INDEX_SETTINGS,
      // Only the fields the effector filters or sorts on are indexed; the rest is kept in _source.
      mappings: {
        dynamic: false,
        properties: {
          key: keyword,
          action_id: keyword,
          incident_id: keyword,
          report_revision: integer,
          tool: keyword,
          intent: keyword,
          component: keyword,
          status: keyword,
          owner: keyword,
          snapshot_id: keyword,
          executions: integer,
          created_at: date,
          started_at: date,
          updated_at: date,
        },
      },
    });
  }

  get index(): string {
    return this.docs.index;
  }

  init(): Promise<void> {
    return this.docs.ensureIndex();
  }

  /** Creates the action if no replica did; null when it already exists. */
  create(doc: ActionDoc): Promise<Versioned<ActionDoc> | null> {
    assertInitialStatus(doc.status);
    return this.docs.create(doc.key, doc);
  }

  get(key: string): Promise<Versioned<ActionDoc> | null> {
    return this.docs.get(key);
  }

  async getById(actionId: string): Promise<Versioned<ActionDoc> | null> {
    const [found] = await this.docs.find({ where: { action_id: actionId }, size: 1 });
    return found === undefined ? null : this.get(found.doc.key);
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

  private write(current: Versioned<ActionDoc>, patch: Partial<ActionDoc>): Promise<Versioned<ActionDoc> | null> {
    const held = this.held.get(current.doc.key);
    if (held !== undefined) return held.write(current, patch);
    return this.writeNow(current, patch);
  }

  private writeNow(current: Versioned<ActionDoc>, patch: Partial<ActionDoc>): Promise<Versioned<ActionDoc> | null> {
    const doc = { ...current.doc, ...patch, updated_at: new Date().toISOString() };
    return this.docs.replace(doc.key, doc, current);
  }

  private readonly held = new Map<string, HeldLease>();

  /**
   * Keeps this replica's lease on an action it is working on alive: every `renewEveryMs` the lease
   * is pushed to now + `leaseMs` by a compare-and-set. While held, this process's own writes to the
   * record are serialised with the renewals and rebased over them (a renewal changes only
   * `lease_until`), so a renewal never makes the worker's next move look contended. A renewal that
   * loses its compare-and-set means another replica took the action over: the lease is lost, its
   * `signal` aborts and every later write of this process to the record is refused (null), which the
   * runner treats as an interruption. Nested holds of one key share the lease. Release when done.
   */
  hold(current: Versioned<ActionDoc>, options: HoldOptions): ActionLease {
    const existing = this.held.get(current.doc.key);
    if (existing !== undefined) return existing.share();
    const lease = new HeldLease(
      current,
      options,
      (v, patch) => this.writeNow(v, patch),
      (ended) => {
        if (this.held.get(ended.key) === ended) this.held.delete(ended.key);
      },
    );
    this.held.set(current.doc.key, lease);
    return lease.share();
  }

  /** The leases this process holds now (drain: released so another replica takes them over). */
  heldLeases(): Pick<ActionLease, 'key' | 'relinquish'>[] {
    return [...this.held.values()].map((lease) => ({ key: lease.key, relinquish: (why: string) => lease.relinquish(why) }));
  }

  async list(filter: { incident?: string; statuses?: ActionStatus[] } = {}, size = 500): Promise<ActionDoc[]> {
    const hits = await this.docs.find({
      where: { ...(filter.incident ? { incident_id: filter.incident } : {}), ...(filter.statuses ? { status: filter.statuses } : {}) },
      sort: [{ created_at: 'asc' }, { key: 'asc' }],
      size,
    });
    return hits.map((hit) => hit.doc);
  }

  /** Failed repairs of an incident (what the circuit breaker counts). */
  failedCount(incidentId: string): Promise<number> {
    // Only repairs that ran count: an inapplicable tool (refused before any change) is no failed repair.
    return this.docs.count({ where: { incident_id: incidentId, status: [...FAILED_REPAIR], executions: { gte: 1 } } });
  }

  /** Repairs started on a component since a time (the per-component rate limit). */
  startedSince(component: string, since: Date): Promise<number> {
    return this.docs.count({ where: { component, started_at: { gte: since.toISOString() } } });
  }
}

export interface HoldOptions {
  owner: string;
  /** How far each renewal pushes the lease of a started repair (or its undo). */
  leaseMs: number;
  /** The same for a claimed `planned` step (default leaseMs). */
  claimMs?: number;
  renewEveryMs?: number;
}

/** This replica's hold on one action's lease (ActionStore.hold). */
export interface ActionLease {
  readonly key: string;
  /** Aborts when the lease is lost (another replica took the action over) or relinquished. */
  readonly signal: AbortSignal;
  readonly lost: boolean;
  /** Stops renewing (this share); the record keeps whatever lease its last write set. */
  release(): void;
  /**
   * Gives the action up without finishing it (drain before exit): its lease is set expired, so
   * another replica's sweep takes it over at once, and this process may no longer write it.
   */
  relinquish(why: string): Promise<void>;
}

type Write = (current: Versioned<ActionDoc>, patch: Partial<ActionDoc>) => Promise<Versioned<ActionDoc> | null>;

/** Statuses whose lease is renewed while held: the repair may have changed the RAG, or its undo is under way. */
const LEASED: ReadonlySet<ActionStatus> = new Set(['started', 'executed', 'undoing']);
/**
 * Held and renewed too: a claimed `planned` step (preconditions, before-figures, a snapshot that can
 * outlast the claim). Unrenewed, another replica's sweep took a long snapshot's step over, and two
 * replicas could take it from each other for ever; at drain the claim is given back at once.
 */
const RENEWED: ReadonlySet<ActionStatus> = new Set([...LEASED, 'planned']);

class HeldLease {
  private latest: Versioned<ActionDoc>;
  /**
   * The versions that differ from the latest only by a renewal (the last write of this process and
   * the renewals since): a write based on one of them is rebased onto the latest, any other is a
   * plain compare-and-set (a stale view of this or another replica fails as it would unheld).
   */
  private equivalent = new Set<string>();
  private chain: Promise<unknown> = Promise.resolve();
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly every: number;
  private shares = 0;
  private gone = false;

  constructor(
    current: Versioned<ActionDoc>,
    private readonly options: HoldOptions,
    private readonly writeNow: Write,
    private readonly forget: (lease: HeldLease) => void,
  ) {
    this.latest = current;
    this.equivalent.add(versionOf(current));
    this.every = options.renewEveryMs ?? Math.max(50, Math.floor(Math.min(options.leaseMs, options.claimMs ?? options.leaseMs) / 3));
    this.timer = setInterval(() => void this.renew(), this.every);
    this.timer.unref();
  }

  get key(): string {
    return this.latest.doc.key;
  }

  get lost(): boolean {
    return this.gone;
  }

  share(): ActionLease {
    this.shares += 1;
    let released = false;
    const isLost = () => this.gone;
    return {
      key: this.key,
      signal: this.controller.signal,
      get lost() {
        return isLost();
      },
      release: () => {
        if (released) return;
        released = true;
        this.shares -= 1;
        if (this.shares === 0) this.end();
      },
      relinquish: (why) => this.relinquish(why),
    };
  }

  /** Serialised with the renewals; rebased over them when `current` is this process's latest view. */
  write(current: Versioned<ActionDoc>, patch: Partial<ActionDoc>): Promise<Versioned<ActionDoc> | null> {
    return this.serial(async () => {
      if (this.gone) return null;
      const rebase = this.equivalent.has(versionOf(current));
      const base = rebase ? { ...this.latest, doc: { ...current.doc, lease_until: this.latest.doc.lease_until } } : current;
      const written = await this.writeNow(base, patch);
      if (written === null) return null;
      this.latest = written;
      this.equivalent = new Set([versionOf(written)]);
      // Another replica (sharing this store in-process) took the action over: this hold is over.
      if (written.doc.owner !== this.options.owner && RENEWED.has(written.doc.status))
        this.lose(new Error(`lease on ${written.doc.key} taken over by ${written.doc.owner ?? 'nobody'}`));
      return written;
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  private renew(): Promise<void> {
    return this.serial(async () => {
      const v = this.latest;
      if (this.gone || !RENEWED.has(v.doc.status) || v.doc.owner !== this.options.owner || v.doc.lease_until === null) return;
      const length = v.doc.status === 'planned' ? (this.options.claimMs ?? this.options.leaseMs) : this.options.leaseMs;
      const until = Math.max(v.doc.lease_until, Date.now() + length);
      const renewed = await this.writeNow(v, { lease_until: until }).catch(() => undefined);
      if (renewed === undefined) {
        // Elasticsearch unreachable: tried again at the next tick, unless the lease would run out
        // before then; this replica then stops on its own (fencing), before another may take it over.
        if (Date.now() + this.every >= v.doc.lease_until) this.lose(new Error(`lease on ${v.doc.key} could not be renewed in time`));
        return;
      }
      if (renewed === null) {
        this.lose(new Error(`lease on ${v.doc.key} lost: another replica took the action over`));
        return;
      }
      this.latest = renewed;
      this.equivalent.add(versionOf(renewed));
    });
  }

  relinquish(why: string): Promise<void> {
    return this.serial(async () => {
      if (this.gone) return;
      const v = this.latest;
      if (RENEWED.has(v.doc.status) && v.doc.owner === this.options.owner)
        await this.writeNow(v, { lease_until: 0 }).catch(() => undefined);
      this.lose(new Error(`lease on ${v.doc.key} given up: ${why}`));
    });
  }

  private lose(reason: Error): void {
    this.gone = true;
    this.controller.abort(reason);
    this.end();
  }

  private end(): void {
    clearInterval(this.timer);
    this.forget(this);
  }
}

function versionOf(v: Versioned<ActionDoc>): string {
  return `${v.primaryTerm}:${v.seqNo}`;
}
