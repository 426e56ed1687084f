/**
 * The effector's loop on in-memory parts, the way Argo Rollouts tests its analysis controller with
 * a mock provider: the real Effector, policy decision, state machine, runner, undo, escalation and
 * operator commands over the Elasticsearch twin (@rag-immune/es-store), with fake tools that change a
 * fake RAG, a fake snapshot archive and a verifier that reads the fake RAG.
 */
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { trace } from '@opentelemetry/api';
import { z } from 'zod';
import { exampleRootCauseReport, type RepairAction, type RepairIntent, type RootCauseReport } from '@rag-immune/contracts';
import { memoryStores, type DocumentStores } from '@rag-immune/es-store';
import { RagClient } from '@rag-immune/rag-contract';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import type { Recommendation } from '@rag-immune/memory-client';
import {
  ActionStore,
  AuditLog,
  CollectionAliases,
  ComponentRateClaims,
  Effector,
  GrantStore,
  IncidentStore,
  ModeStore,
  SnapshotStore,
  defineTool,
  effectorIndices,
  toolBox,
  type CrashPoint,
  type EffectorDeps,
  type EffectorMode,
  type IdentifierRecords,
  type ProbeMeasurement,
  type RepairPolicy,
  type RepairTool,
  type SnapshotArchive,
} from '../../../src/index.ts';
import { EffectorMetrics } from '../../../src/metrics.ts';
import { PreconditionError } from '../../../src/actions/repair-tool.ts';
import type { SnapshotRetentionPolicy } from '../../../src/snapshots/snapshot-retention.ts';
import type { RagRepairAccess } from '../../../src/actions/rag-repair-access.ts';
import type { KnowledgePointsPort } from '../../../src/snapshots/knowledge-points.ts';

/** The RAG the fake tools repair: healthy or not, and what was done to it. */
export class FakeRag {
  healthy = false;
  /** Per incident instead of `healthy`, when set: whether the incident's probes answer well now (concurrent incidents). */
  healthyIncident: ((incidentId: string) => boolean) | undefined = undefined;
  /** Points in the fake collection: a Qdrant-writing tool changes them, a restore puts them back. */
  points = 100;
  readonly log: string[] = [];
  /** The budget each measurement was given (undefined: the verifier's own, EFFECTOR_VERIFY_TIMEOUT_MS). */
  readonly measureBudgets: (number | undefined)[] = [];
  /** The next this many tool undos fail as an unreachable RAG would (a transient error). */
  undoFailures = 0;
  /** The next this many measurements after a repair ran are inconclusive (the baseline did not answer). */
  inconclusiveMeasures = 0;
  /** The next this many executes hang until their abort signal fires (logged `… aborted`) or `finishHung()`. */
  hangExecutes = 0;
  /** The idempotency key each execute was given. */
  readonly idempotencyKeys: (string | undefined)[] = [];
  private readonly hung: (() => void)[] = [];
  /** How many executes are hanging now. */
  get hanging(): number {
    return this.hung.length;
  }
  /** Lets every hanging execute finish (as if the RAG answered). */
  finishHung(): void {
    for (const finish of this.hung.splice(0)) finish();
  }
  /** What an execute of the fake RAG does when told to hang: waits for the answer or its cancellation. */
  async hang(name: string, signal: AbortSignal | undefined): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const finish = () => resolve();
      this.hung.push(finish);
      signal?.addEventListener(
        'abort',
        () => {
          this.hung.splice(this.hung.indexOf(finish), 1);
          this.log.push(`execute ${name} aborted`);
          reject(signal.reason as Error);
        },
        { once: true },
      );
    });
  }
}

export interface FakeToolSpec {
  name: string;
  intent?: RepairIntent;
  /** Whether executing it heals the RAG. */
  heals: boolean;
  touchesQdrant?: boolean;
  reversible?: boolean;
  /** plan() refuses: the tool does not apply. */
  inapplicable?: boolean;
  /** execute() throws. */
  throws?: boolean;
  /** A whole-index rebuild (like the blue/green reindex): its success covers every earlier anomaly. */
  coversAllKnowledge?: boolean;
}

export function fakeTool(rag: FakeRag, spec: FakeToolSpec): RepairTool {
  return defineTool({
    name: spec.name,
    version: '1',
    intent: spec.intent ?? 'rebuild_index_incremental',
    description: `fake ${spec.name}`,
    input: z.object({ target: z.string() }).strict(),
    touchesQdrant: spec.touchesQdrant ?? false,
    reversible: spec.reversible ?? true,
    ...(spec.coversAllKnowledge ? { coversAllKnowledge: true } : {}),
    async plan() {
      if (spec.inapplicable) throw new PreconditionError(`${spec.name} has nothing to act on`);
      return { target: 'rag' };
    },
    preconditions: async () => {},
    capture: async () => ({ healthy_before: rag.healthy }),
    async execute(ctx) {
      rag.log.push(`execute ${spec.name}`);
      rag.idempotencyKeys.push(ctx.idempotencyKey);
      if (rag.hangExecutes > 0) {
        rag.hangExecutes -= 1;
        await rag.hang(spec.name, ctx.signal);
      }
      if (spec.throws) throw new Error(`${spec.name} broke`);
      if (spec.touchesQdrant) rag.points += 1;
      rag.healthy = spec.heals;
      return { detail: {} };
    },
    verify: async () => null,
    async undo(_ctx, _args, prior) {
      if (rag.undoFailures > 0) {
        rag.undoFailures -= 1;
        rag.log.push(`undo ${spec.name} failed`);
        throw new Error('connect ECONNREFUSED: the RAG is unreachable');
      }
      rag.log.push(`undo ${spec.name}`);
      rag.healthy = prior.healthy_before === true;
    },
    describeUndo: () => [`${spec.name} undone`],
  }) as unknown as RepairTool;
}

export function escalationTool(rag: FakeRag): RepairTool {
  return defineTool({
    name: 'page_on_call',
    version: '1',
    intent: 'escalate_to_human',
    description: 'fake escalation',
    input: z.object({ reason: z.string() }),
    touchesQdrant: false,
    reversible: true,
    terminal: true,
    plan: async (_ctx, params) => ({ reason: params.reason ?? 'policy' }),
    preconditions: async () => {},
    capture: async () => ({}),
    async execute() {
      rag.log.push('execute page_on_call');
      return { detail: {} };
    },
    verify: async () => null,
    undo: async () => {},
    describeUndo: () => [],
  }) as unknown as RepairTool;
}

/** Snapshots of the fake collection: each remembers the point count it was taken at. */
export class FakeArchive implements SnapshotArchive {
  readonly recoveryMode = 'file' as const;
  readonly taken = new Map<string, number>();
  readonly recovered: string[] = [];
  /** What Qdrant's description says each new archive takes (the snapshot budget reads it). */
  sizeBytes = 1;
  private count = 0;
  constructor(private readonly rag: FakeRag) {}
  async physical(collection: string): Promise<string> {
    return collection;
  }
  async takenAt(): Promise<number[]> {
    return [];
  }
  async pointCount(): Promise<number> {
    return this.rag.points;
  }
  async take(collection: string) {
    // Numbered by count taken, never by those left: a pruned one must not lend its name to the next.
    this.count += 1;
    const name = `${collection}-0-${this.count}.snapshot`;
    this.taken.set(name, this.rag.points);
    this.rag.log.push(`snapshot ${name}`);
    return { name, checksum: `sum-${this.count}`, size: this.sizeBytes };
  }
  async recover(_collection: string, name: string): Promise<void> {
    this.recovered.push(name);
    this.rag.log.push(`restore ${name}`);
    this.rag.points = this.taken.get(name)!;
  }
  async remove(_collection: string, name: string): Promise<void> {
    this.taken.delete(name);
  }
}

export interface LoopOptions {
  tools: FakeToolSpec[];
  mode?: EffectorMode;
  maxFailedRepairs?: number;
  recommendation?: Recommendation | null;
  instanceId?: string;
  /** Real tools placed in the policy branch after the fakes (before the escalation). */
  realTools?: RepairTool[];
  restoreMaxSnapshotAgeMs?: number;
  undoRetryMs?: number;
  /** Default 100 starts of a component per 10 minutes. */
  componentRateLimit?: number;
  /** EFFECTOR_VERIFY_TIMEOUT_MS as the deps see it (absent: not set). */
  verifyTimeoutMs?: number;
  /** The identifier's record of incidents (admission); absent: reports are trusted, as without EFFECTOR_IDENTIFIER_URL. */
  identifier?: IdentifierRecords;
  /** Default 200. */
  maxAffectedProbes?: number;
  /** Default 2. */
  maxConcurrentRepairs?: number;
  /** Default DEFAULT_BACKLOG. */
  backlog?: EffectorDeps['backlog'];
  /** Default 60 s (renewed every third of it while an action is worked on). */
  leaseMs?: number;
  /** Default 5 s. */
  executeTimeoutMs?: number;
  /** Default keep-last 1, keep-within 0 days. */
  snapshotRetention?: SnapshotRetentionPolicy;
  /** Default none. */
  snapshotBudgetBytes?: number;
  /** What the RAG lets the effector do (its adapter's `repair`); default the contract's repair hooks. */
  ragRepair?: RagRepairAccess;
  /** Qdrant's aliases as real tools see them; default a client of nothing (the fake tools never switch one). */
  aliases?: CollectionAliases;
  /** The points of named knowledge as the in-place restore sees them; default none (that tool refuses). */
  points?: KnowledgePointsPort;
  /** Where snapshots are taken and recovered (a real Qdrant's, for an integration test); default the fake archive. */
  snapshotArchive?: SnapshotArchive;
  /** The RAG's collection; default `kb`. */
  collection?: string;
}

export interface Loop {
  effector: Effector;
  rag: FakeRag;
  archive: FakeArchive;
  events: RepairAction[];
  deps: EffectorDeps & { actions: ActionStore; incidents: IncidentStore; grants: GrantStore; snapshots: SnapshotStore; audit: AuditLog };
  /** The lifecycle of an incident as `tool:status` steps. */
  lifecycle(incident: string): string[];
  /** A second effector replica on the same stores. */
  replica(instanceId: string): Effector;
  /**
   * A replica that dies at `crashAt` as under kill -9: from that step on, every call it makes to
   * Elasticsearch, the bus, the snapshot archive, the tools or the probes never returns (nothing of it
   * is written or runs again, no cleanup); what it wrote before stays. `dead()` says whether it died.
   */
  crashingReplica(instanceId: string, crashAt: CrashPoint): Promise<{ effector: Effector; dead: () => boolean }>;
  /** The in-memory Elasticsearch twin, to shape records directly. */
  docs: ReturnType<typeof memoryStores>;
}

export function report(incidentId: string, patch: Partial<RootCauseReport> = {}): RootCauseReport {
  return { ...exampleRootCauseReport(incidentId), root_cause: 'vector_index_corruption', affected_component: 'vector_index', ...patch };
}

export async function startLoop(options: LoopOptions): Promise<Loop> {
  const rag = new FakeRag();
  const archive = new FakeArchive(rag);
  const tools = [...options.tools.map((spec) => fakeTool(rag, spec)), ...(options.realTools ?? []), escalationTool(rag)];
  const policy: RepairPolicy = {
    policy_version: '9.9.9',
    branches: [
      {
        id: 'fake-branch',
        when: { cause: ['vector_index_corruption'], scope: 'any' },
        actions: [
          ...options.tools.map((t) => ({ tool: t.name, reason: `try ${t.name}`, params: {} })),
          ...(options.realTools ?? []).map((t) => ({ tool: t.name, reason: `try ${t.name}`, params: {} })),
          { tool: 'page_on_call', reason: 'nothing healed', params: {} },
        ],
      },
    ],
  };
  const docs = memoryStores();
  const indices = effectorIndices('unit');
  const stores = {
    actions: new ActionStore(docs, indices.actions),
    incidents: new IncidentStore(docs, indices.incidents),
    snapshots: new SnapshotStore(options.snapshotArchive ?? archive, docs, indices.snapshots),
    grants: new GrantStore(docs, indices.grants, 60_000),
    audit: new AuditLog(docs, indices.audit),
    modes: new ModeStore(docs, indices.settings, options.mode ?? 'auto'),
  };
  for (const store of Object.values(stores)) await store.init();
  const rateClaims = new ComponentRateClaims(docs, indices.rateClaims);
  await rateClaims.init();
  const events: RepairAction[] = [];
  const rags = new RagClient({ baseUrl: 'http://127.0.0.1:9' });
  const measure = async (r: RootCauseReport, timeoutMs?: number): Promise<ProbeMeasurement> => {
    rag.measureBudgets.push(timeoutMs);
    const healthy = rag.healthyIncident?.(r.incident_id) ?? rag.healthy;
    return {
      probe_ids: r.affected_probes.map((p) => p.probe_id),
      fcs: healthy ? 0.95 : 0.1,
      ic: healthy ? 1 : 0,
      kf_age_days: 1,
      recovered: healthy,
      anomalies: healthy ? [] : ['fcs_drop'],
      results: [],
      // The baseline not answering: a probe run reports baseline_error, which reads as not recovered.
      ...(rag.inconclusiveMeasures > 0 && rag.log.some((l) => l.startsWith('execute'))
        ? {
            recovered: false,
            anomalies: ['baseline_error'],
            inconclusive: `the baseline did not answer probe (timeout), ${(rag.inconclusiveMeasures -= 1)} more to come`,
          }
        : {}),
    };
  };
  const make = (instanceId: string): EffectorDeps => ({
    policy,
    online: rags,
    baseline: rags,
    collection: options.collection ?? 'kb',
    sourceByPrefix: {},
    ...stores,
    // The fake tools never switch an alias: a client of nothing, never called.
    aliases:
      options.aliases ?? new CollectionAliases(createQdrantClient({ url: 'http://127.0.0.1:9' }), { keepLast: 1, keepWithinDays: 0 }),
    verifier: { measure },
    memory: options.recommendation === undefined ? null : { recommend: async () => options.recommendation! },
    memoryMinConfidence: 0.5,
    environment: 'unit',
    publish: async (batch) => void events.push(...batch),
    metrics: new EffectorMetrics(new Registry()),
    logger: pino({ level: 'silent' }),
    tracer: trace.getTracer('unit'),
    instanceId,
    limits: {
      maxFailedRepairs: options.maxFailedRepairs ?? 3,
      componentRateLimit: options.componentRateLimit ?? 100,
      componentRateWindowMs: 600_000,
    },
    leaseMs: options.leaseMs ?? 60_000,
    executeTimeoutMs: options.executeTimeoutMs ?? 5_000,
    ragTimeoutMs: 1_000,
    ...(options.verifyTimeoutMs !== undefined ? { verifyTimeoutMs: options.verifyTimeoutMs } : {}),
    tools: toolBox(tools),
    rateClaims,
    ...(options.identifier ? { identifierRecords: options.identifier } : {}),
    ...(options.maxAffectedProbes !== undefined ? { maxAffectedProbes: options.maxAffectedProbes } : {}),
    ...(options.maxConcurrentRepairs !== undefined ? { maxConcurrentRepairs: options.maxConcurrentRepairs } : {}),
    ...(options.backlog !== undefined ? { backlog: options.backlog } : {}),
    snapshotRetention: options.snapshotRetention ?? { keepLast: 1, keepWithinDays: 0 },
    ...(options.snapshotBudgetBytes !== undefined ? { snapshotBudgetBytes: options.snapshotBudgetBytes } : {}),
    inconclusiveHold: { remeasures: 2, delayMs: 1 },
    ...(options.undoRetryMs !== undefined ? { undoRetryMs: options.undoRetryMs } : {}),
    ...(options.restoreMaxSnapshotAgeMs !== undefined ? { restoreMaxSnapshotAgeMs: options.restoreMaxSnapshotAgeMs } : {}),
    ...(options.ragRepair !== undefined ? { ragRepair: options.ragRepair } : {}),
    ...(options.points !== undefined ? { points: options.points } : {}),
  });
  const crashingReplica = async (instanceId: string, crashAt: CrashPoint) => {
    let dead = false;
    const never = () => new Promise<never>(() => {});
    // Every method of `target`: refused (never answers) once dead, its answer swallowed if death came meanwhile.
    const frozen = <T extends object>(target: T): T =>
      new Proxy(target, {
        get(t, prop) {
          const value: unknown = Reflect.get(t, prop, t);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (dead) return never();
            const result: unknown = (value as (...a: unknown[]) => unknown).apply(t, args);
            return result instanceof Promise ? result.then((r: unknown) => (dead ? never() : r)) : result;
          };
        },
      });
    const frozenDocs: DocumentStores = {
      open: <T extends object>(spec: Parameters<DocumentStores['open']>[0]) => frozen(docs.open<T>(spec)),
    };
    const own = {
      actions: new ActionStore(frozenDocs, indices.actions),
      incidents: new IncidentStore(frozenDocs, indices.incidents),
      snapshots: new SnapshotStore(frozen(archive), frozenDocs, indices.snapshots),
      grants: new GrantStore(frozenDocs, indices.grants, 60_000),
      audit: new AuditLog(frozenDocs, indices.audit),
      modes: new ModeStore(frozenDocs, indices.settings, options.mode ?? 'auto'),
    };
    for (const store of Object.values(own)) await store.init();
    const ownClaims = new ComponentRateClaims(frozenDocs, indices.rateClaims);
    await ownClaims.init();
    const ownTools = [...options.tools.map((spec) => frozen(fakeTool(rag, spec))), ...(options.realTools ?? []), escalationTool(rag)];
    const deps: EffectorDeps = {
      ...make(instanceId),
      ...own,
      rateClaims: ownClaims,
      tools: toolBox(ownTools),
      verifier: frozen({ measure }),
      publish: async (batch) => {
        if (dead) return never();
        events.push(...batch);
      },
      crashAt,
      onCrash: () => {
        dead = true;
      },
    };
    return { effector: new Effector(deps), dead: () => dead };
  };
  const deps = make(options.instanceId ?? 'replica-a') as Loop['deps'];
  return {
    effector: new Effector(deps),
    rag,
    archive,
    events,
    deps,
    lifecycle: (incident) => events.filter((e) => e.incident_id === incident).map((e) => `${e.tool}:${e.status}`),
    replica: (instanceId) => new Effector(make(instanceId)),
    crashingReplica,
    docs,
  };
}
