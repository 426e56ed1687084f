import { context as otelContext, type Context, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { eventEnvelope, type RepairAction, type RootCauseReport } from '@rag-immune/contracts';
import { RagHttpError, type RagClient } from '@rag-immune/rag-contract';
import { MemoryUnavailableError, type MemoryClient, type Recommendation } from '@rag-immune/memory-client';
import { healingLog, inSpan } from '@rag-immune/worker-runtime';
import { INTENT_TOOLS, toolNamed } from './actions/catalogue.ts';
import { PreconditionError, type PriorState, type RepairTool, type ToolContext } from './actions/repair-tool.ts';
import { breakerVerdict, type BreakerLimits } from './breaker/circuit-breaker.ts';
import { EFFECTOR_VERSION } from './config.ts';
import { effectiveStatus, type GrantStore } from './grants/grant-store.ts';
import type { EffectorMetrics } from './metrics.ts';
import { decide, toolsNotToRetry, type PlannedStep, type RepairHistory } from './policy/decision.ts';
import type { RepairPolicy } from './policy/policy.ts';
import type { CollectionAliases } from './snapshots/collection-aliases.ts';
import { deletedSnapshot, SnapshotError, type SnapshotRecord, type SnapshotStore } from './snapshots/snapshot-store.ts';
import type { SnapshotRetentionPolicy } from './snapshots/snapshot-retention.ts';
import { IN_FLIGHT, actionIdOf, actionKey, type ActionDoc, type ActionStore, type Versioned } from './state/action-store.ts';
import type { AuditLog } from './state/audit-log.ts';
import type { IncidentStore } from './state/incident-store.ts';
import type { ModeStore } from './state/mode-store.ts';
import { VerificationTimeoutError, type ProbeMeasurement, type RecoveryVerifier } from './verify/recovery-verifier.ts';

type Failure = NonNullable<RepairAction['failure']>;
type Grant = RepairAction['grant'];

export type IncidentOutcome =
  'recovered' | 'escalated' | 'planned' | 'awaiting_grant' | 'superseded' | 'in_progress_elsewhere' | 'contended' | 'no_policy_branch';

export interface EffectorDeps {
  policy: RepairPolicy;
  online: RagClient;
  baseline: RagClient;
  collection: string;
  sourceByPrefix: Readonly<Record<string, string>>;
  actions: ActionStore;
  incidents: IncidentStore;
  snapshots: SnapshotStore;
  /** The RAG collection's alias switch and retired generations (blue/green reindex). */
  aliases: CollectionAliases;
  grants: GrantStore;
  audit: AuditLog;
  modes: ModeStore;
  verifier: RecoveryVerifier;
  memory: MemoryClient | null;
  memoryMinConfidence: number;
  environment: string;
  publish: (events: RepairAction[]) => Promise<void>;
  metrics: EffectorMetrics;
  logger: Logger;
  tracer: Tracer;
  instanceId: string;
  limits: BreakerLimits;
  leaseMs: number;
  executeTimeoutMs: number;
  ragTimeoutMs: number;
  /**
   * How long an abstention (`unknown` cause) waits for a better-evidenced revision before it pages a
   * human: the identifier's first report often rests on one probe, and its next, seconds later, names
   * the cause. 0 escalates at once.
   */
  abstentionGraceMs?: number;
  /** Which snapshots to keep after each new one (snapshots/snapshot-retention.ts); absent keeps them all. */
  snapshotRetention?: SnapshotRetentionPolicy;
  /** Benchmark only: kill -9 this process at this step of an action. */
  crashAt?: CrashPoint;
}

export const CRASH_POINTS = [
  'after_planned',
  'after_snapshot',
  'after_started',
  'after_execute',
  'after_executed',
  'after_succeeded',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** A rollback the on-call engineer asked for: what will change, then (unless a dry run) what did. */
export interface RollbackPlan {
  target: string;
  kind: 'action' | 'incident' | 'snapshot';
  dry_run: boolean;
  steps: { action_id: string | null; tool: string | null; incident_id: string | null; changes: string[] }[];
  done: boolean;
}

export class RollbackRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RollbackRefused';
  }
}

class Interrupted extends Error {}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`${what} did not finish within ${ms} ms`), { name: 'TimeoutError' })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Turns RootCauseReports into verified repairs: plan (policy + memory), then per action — grant if
 * needed, snapshot first when it writes to Qdrant, execute, verify with the affected probes against
 * the baseline, undo if they did not recover, next action — until recovered, or the breaker trips and
 * the incident is escalated. All state is in Elasticsearch under compare-and-set, so any replica can
 * pick up where another (or a killed one) stopped, and nothing runs twice.
 */
export class Effector {
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: EffectorDeps) {}

  /** Handles one report delivered from Kafka, continuing its trace in span `effector.execute`. */
  handle(report: RootCauseReport, parent: Context = otelContext.active()): Promise<IncidentOutcome> {
    return inSpan(
      this.deps.tracer,
      'effector.execute',
      { incident_id: report.incident_id, report_revision: report.report_revision, root_cause: report.root_cause },
      parent,
      async (span) => {
        const outcome = await this.process(report);
        span.setAttribute('outcome', outcome);
        return outcome;
      },
    );
  }

  /**
   * What the Kafka handler calls: records the report durably (so a crash after the offset commit
   * loses nothing: start-up re-runs open incidents), then repairs in the background, so a long
   * repair never stalls the consumer's heartbeats.
   */
  async accept(report: RootCauseReport, parent: Context, onOutcome?: (outcome: IncidentOutcome | Error) => void): Promise<void> {
    if (!(await this.deps.incidents.record(report))) {
      this.deps.metrics.reports.inc({ outcome: 'superseded' });
      this.deps.logger.info(
        { incident_id: report.incident_id, report_revision: report.report_revision },
        'report superseded by a later revision: ignored',
      );
      onOutcome?.('superseded');
      return;
    }
    void this.handle(report, parent).then(
      (outcome) => onOutcome?.(outcome),
      (error: unknown) => {
        this.deps.logger.error(
          { incident_id: report.incident_id, err: errorMessage(error) },
          'repair failed unexpectedly; the incident stays open and is re-run at start-up',
        );
        onOutcome?.(error as Error);
      },
    );
  }

  /** Resolves when every repair this process has in hand has finished (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.chains.size > 0) await Promise.allSettled([...this.chains.values()]);
  }

  /** One incident at a time within this process (a grant approval and a redelivery must not interleave). */
  process(report: RootCauseReport): Promise<IncidentOutcome> {
    const previous = this.chains.get(report.incident_id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.processNow(report));
    this.chains.set(report.incident_id, next);
    void next
      .finally(() => {
        if (this.chains.get(report.incident_id) === next) this.chains.delete(report.incident_id);
      })
      .catch(() => undefined);
    return next;
  }

  /** On start-up: every open incident is re-run; actions this replica left in flight are put back and resumed. */
  async recoverInFlight(): Promise<{ incident_id: string; outcome: IncidentOutcome }[]> {
    const open = await this.deps.incidents.list(['open']);
    const outcomes = [];
    for (const incident of open) {
      const outcome = await this.process(this.deps.incidents.report(incident));
      outcomes.push({ incident_id: incident.incident_id, outcome });
    }
    return outcomes;
  }

  /**
   * Whether a later revision of the report's incident is recorded within `graceMs` of the report
   * (polled). Counted from when the identifier issued it, so a redelivery or a restart's recovery of
   * an old abstention does not wait again.
   */
  private async supersededWithin(report: RootCauseReport, graceMs: number): Promise<boolean> {
    const deadline = Math.min(report.occurred_at, Date.now()) + graceMs;
    for (;;) {
      const current = await this.deps.incidents.get(report.incident_id);
      if (current && current.doc.latest_revision > report.report_revision) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(0, deadline - Date.now()))));
    }
  }

  /** Test hook for the kill -9 benchmark: SIGKILL this process at a named step (EFFECTOR_TEST_CRASH_AT). */
  private crashPoint(step: CrashPoint): void {
    if (this.deps.crashAt === step) process.kill(process.pid, 'SIGKILL');
  }

  private toolContext(report: RootCauseReport): ToolContext {
    return {
      report,
      online: this.deps.online,
      baseline: this.deps.baseline,
      sourceByPrefix: this.deps.sourceByPrefix,
      collection: this.deps.collection,
      listSnapshots: (collection) => this.deps.snapshots.list({ collection }),
      restoreSnapshot: async (record) => void (await this.deps.snapshots.restore(record)),
      aliases: this.deps.aliases,
      collectionsInFlight: async () => {
        const unfinished = await this.deps.actions.list({ statuses: ['planned', 'awaiting_grant', 'started', 'executed'] });
        return new Set(unfinished.flatMap((a) => collectionsNamed(a.args_json, a.prior_json)));
      },
      timeoutMs: this.deps.ragTimeoutMs,
    };
  }

  private async processNow(report: RootCauseReport): Promise<IncidentOutcome> {
    const { deps } = this;
    const log = deps.logger.child({ incident_id: report.incident_id, report_revision: report.report_revision });
    if (!(await deps.incidents.record(report))) {
      log.info('report superseded by a later revision: ignored');
      deps.metrics.reports.inc({ outcome: 'superseded' });
      return 'superseded';
    }
    const mode = (await deps.modes.get()).mode;
    const all = await deps.actions.list({ incident: report.incident_id });
    // A whole-index rebuild verified after the revision's last anomaly already rebuilt the knowledge it
    // adds: those anomalies were seen before the rebuild finished, so there is nothing new to repair.
    const coveredBy = all.find(
      (a) =>
        a.status === 'succeeded' &&
        a.component === report.affected_component &&
        toolNamed(a.tool)?.coversAllKnowledge === true &&
        a.finished_at !== null &&
        Date.parse(a.finished_at) > report.window_end,
    );
    if (coveredBy && report.root_cause !== 'unknown') {
      healingLog(
        log,
        { incident_id: report.incident_id, action_id: coveredBy.action_id, tool: coveredBy.tool },
        `revision ${report.report_revision}: every anomaly it names predates the verified ${coveredBy.tool}, which rebuilt all knowledge: nothing to repair`,
      );
      deps.metrics.reports.inc({ outcome: 'covered' });
      return 'recovered';
    }
    const failedHere = all.filter((a) => (a.status === 'failed' || a.status === 'rolled_back') && a.executions > 0);
    const history: RepairHistory = {
      failedAttempts: failedHere.length,
      failedTools: toolsNotToRetry(failedHere, report),
    };
    const recommendation = await this.consultMemory(report, failedHere);
    const decision = decide(deps.policy, report, history, recommendation, deps.memoryMinConfidence);
    if (!decision.ok) {
      await this.noBranch(report, decision.reason, decision.policyVersion);
      return 'no_policy_branch';
    }
    if (report.root_cause === 'unknown' && (await this.supersededWithin(report, deps.abstentionGraceMs ?? 0))) {
      log.info('abstention superseded by a later revision within the grace period: not escalated');
      deps.metrics.reports.inc({ outcome: 'superseded' });
      return 'superseded';
    }
    healingLog(
      log,
      { incident_id: report.incident_id, branch: decision.branch, mode, steps: decision.steps.map((s) => s.tool) },
      `plan: ${decision.steps.map((s) => s.tool).join(' → ')}`,
    );
    const ctx = this.toolContext(report);
    for (const [position, step] of decision.steps.entries()) {
      const tool = toolNamed(step.tool) as RepairTool;
      let v = await this.ensurePlanned(report, tool, step, position, decision, ctx);
      if (v === null) continue;
      if (mode === 'observe') continue;
      const d = v.doc;
      if (d.status === 'succeeded') {
        // Killed between the state change and the event: publish it now (at least once), close the incident.
        if ((await deps.incidents.get(report.incident_id))?.doc.status === 'open') {
          await this.emit(d, 'succeeded');
          await deps.incidents.setStatus(report.incident_id, 'recovered');
        }
        return 'recovered';
      }
      if (d.status === 'escalated') return 'escalated';
      if (d.status === 'failed' || d.status === 'rolled_back') continue;
      if (IN_FLIGHT.has(d.status)) {
        if (d.owner !== deps.instanceId && (d.lease_until ?? 0) > Date.now()) return 'in_progress_elsewhere';
        v = await this.resetToBefore(v, tool, ctx, 'resume after an interrupted execution');
        if (v === null) return 'contended';
      }
      if (tool.name === 'escalate_to_human') {
        await this.escalate(report, step.reason, 'policy');
        return 'escalated';
      }
      const failedRepairs = await deps.actions.failedCount(report.incident_id);
      const componentStarts = await deps.actions.startedSince(
        report.affected_component,
        new Date(Date.now() - deps.limits.componentRateWindowMs),
      );
      const verdict = breakerVerdict({ failedRepairs, componentStartsInWindow: componentStarts }, deps.limits, report.affected_component);
      if (verdict.open) {
        deps.metrics.breakerOpen.set({ component: report.affected_component }, 1);
        await this.escalate(report, `circuit breaker: ${verdict.message}`, verdict.reason);
        return 'escalated';
      }
      deps.metrics.breakerOpen.set({ component: report.affected_component }, 0);
      let grant: Grant = null;
      if (mode === 'approve' || !tool.reversible) {
        const existing = await deps.grants.get(d.key);
        const status = existing ? effectiveStatus(existing.doc) : null;
        if (existing && status === 'approved') {
          grant = {
            granted_by: existing.doc.decided_by ?? 'unknown',
            kind: 'human',
            granted_at: Date.parse(existing.doc.decided_at ?? existing.doc.requested_at),
          };
        } else if (existing && status === 'denied') {
          const failed = await deps.actions.update(v, {
            status: 'failed',
            failure: { reason: 'policy_denied', message: `grant denied by ${existing.doc.decided_by ?? 'unknown'}` },
            finished_at: new Date().toISOString(),
          });
          if (failed) await this.emit(failed.doc, 'failed');
          continue;
        } else {
          await deps.grants.request({
            key: d.key,
            action_id: d.action_id,
            incident_id: d.incident_id,
            tool: d.tool,
            reversible: tool.reversible,
          });
          if (d.status !== 'awaiting_grant') await deps.actions.update(v, { status: 'awaiting_grant' });
          healingLog(
            log,
            { incident_id: report.incident_id, action_id: d.action_id, tool: d.tool },
            `${d.tool} waits for a human grant (${tool.reversible ? 'approve mode' : 'irreversible'})`,
          );
          return 'awaiting_grant';
        }
      }
      const outcome = await this.run(v, tool, report, ctx, grant);
      if (outcome === 'succeeded') return 'recovered';
      if (outcome === 'contended') return 'contended';
    }
    if (mode === 'observe') {
      await deps.incidents.setStatus(report.incident_id, 'observed');
      deps.metrics.reports.inc({ outcome: 'planned' });
      return 'planned';
    }
    await this.escalate(report, 'every planned repair failed', 'plan_exhausted');
    return 'escalated';
  }

  private async consultMemory(report: RootCauseReport, failed: ActionDoc[]): Promise<Recommendation | null> {
    if (this.deps.memory === null) return null;
    try {
      return await this.deps.memory.recommend({
        incident_id: report.incident_id,
        root_cause: report.root_cause,
        affected_component: report.affected_component,
        environment: this.deps.environment,
        claims: report.claims.map((c) => ({ kind: c.kind, metric: c.metric, observed: c.observed, baseline: c.baseline })),
        affected_knowledge_ids: report.affected_knowledge_ids,
        exclude_intents: [...new Set(failed.map((a) => a.intent))],
      });
    } catch (error) {
      this.deps.logger.warn(
        { incident_id: report.incident_id, err: errorMessage(error), unavailable: error instanceof MemoryUnavailableError },
        'memory unavailable: policy decides',
      );
      return null;
    }
  }

  private baseDoc(
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

  /** The action's durable record, created (and `planned` published) by exactly one replica; null when inapplicable. */
  private async ensurePlanned(
    report: RootCauseReport,
    tool: RepairTool,
    step: PlannedStep,
    position: number,
    decision: { policyVersion: string; branch: string; memoryNote: string },
    ctx: ToolContext,
  ): Promise<Versioned<ActionDoc> | null> {
    const key = actionKey(report.incident_id, report.report_revision, tool.name);
    const existing = await this.deps.actions.get(key);
    if (existing) return existing;
    const doc = this.baseDoc(report, tool, position);
    const why = {
      reason: step.reason,
      chosen_by: step.chosen_by,
      policy_version: decision.policyVersion,
      policy_branch: decision.branch,
      memory: decision.memoryNote,
      ...(step.case_ids.length ? { case_ids: step.case_ids.join(',') } : {}),
    };
    let args: Record<string, unknown>;
    try {
      args = tool.input.parse(await tool.plan(ctx, step.params)) as Record<string, unknown>;
    } catch (error) {
      // The tool does not apply (nothing to scope it to, hook missing...): a typed failure, no change made.
      const inapplicable = error instanceof PreconditionError;
      doc.arguments = { ...why };
      doc.status = 'failed';
      doc.failure = { reason: inapplicable ? 'policy_denied' : 'tool_error', message: `cannot plan ${tool.name}: ${errorMessage(error)}` };
      doc.finished_at = new Date().toISOString();
      const created = await this.deps.actions.create(doc);
      if (created) await this.emit(created.doc, 'failed');
      return null;
    }
    doc.args_json = JSON.stringify(args);
    doc.arguments = {
      ...Object.fromEntries(Object.entries(args).map(([k, value]) => [k, typeof value === 'string' ? value : JSON.stringify(value)])),
      ...why,
    };
    const created = await this.deps.actions.create(doc);
    if (created) {
      await this.emit(created.doc, 'planned');
      this.crashPoint('after_planned');
      return created;
    }
    return this.deps.actions.get(key);
  }

  /** Runs one action: preconditions, before-figures, snapshot, execute, verify; undo when it did not heal. */
  private async run(
    v0: Versioned<ActionDoc>,
    tool: RepairTool,
    report: RootCauseReport,
    ctx: ToolContext,
    grant: Grant,
  ): Promise<'succeeded' | 'failed' | 'contended'> {
    const { deps } = this;
    let v: Versioned<ActionDoc> = v0;
    const args = tool.input.parse(JSON.parse(v.doc.args_json)) as Record<string, unknown>;
    const fail = async (failure: Failure, verification: RepairAction['verification'] = null) => {
      const failed = await deps.actions.update(v, { status: 'failed', failure, verification, finished_at: new Date().toISOString() });
      if (failed) await this.emit(failed.doc, 'failed');
      deps.logger.warn(
        { incident_id: report.incident_id, action_id: v.doc.action_id, tool: tool.name, failure },
        `repair ${tool.name} failed: ${failure.reason}`,
      );
      return 'failed' as const;
    };
    try {
      await tool.preconditions(ctx, args);
    } catch (error) {
      return fail({
        reason: error instanceof PreconditionError ? 'policy_denied' : 'tool_error',
        message: `precondition: ${errorMessage(error)}`,
      });
    }
    let before: ProbeMeasurement;
    try {
      before = await deps.verifier.measure(report, Math.max(deps.ragTimeoutMs, 60_000));
    } catch (error) {
      return fail({
        reason: error instanceof VerificationTimeoutError ? 'timeout' : 'verification_failed',
        message: `before-repair probes: ${errorMessage(error)}`,
      });
    }
    let prior: PriorState;
    try {
      prior = await tool.capture(ctx, args);
    } catch (error) {
      return fail({ reason: 'tool_error', message: `could not record the state to undo to: ${errorMessage(error)}` });
    }
    let snapshot: SnapshotRecord | null = null;
    if (tool.touchesQdrant) {
      const stop = deps.metrics.snapshotSeconds.startTimer({ operation: 'create' });
      try {
        snapshot = await deps.snapshots.create(deps.collection, report.incident_id, v.doc.action_id);
        this.crashPoint('after_snapshot');
        stop();
      } catch (error) {
        return fail({ reason: 'snapshot_failed', message: errorMessage(error) });
      }
      // Off the repair's path: a failed prune only leaves more archives, and the next snapshot retries it.
      void this.pruneSnapshots().catch((error: unknown) =>
        deps.logger.warn({ collection: deps.collection, err: errorMessage(error) }, 'snapshot retention: prune failed'),
      );
    }
    const verificationBefore = {
      probe_ids: before.probe_ids,
      fcs_before: before.fcs,
      fcs_after: null,
      ic_before: before.ic,
      ic_after: null,
      kf_age_days_before: before.kf_age_days,
      kf_age_days_after: null,
      recovered: false,
    };
    const started = await deps.actions.update(v, {
      status: 'started',
      owner: deps.instanceId,
      lease_until: Date.now() + deps.leaseMs,
      snapshot_id: snapshot?.snapshot_id ?? null,
      prior_json: JSON.stringify(prior),
      grant,
      attempt: (await deps.actions.failedCount(report.incident_id)) + 1,
      started_at: new Date().toISOString(),
      executions: v.doc.executions + 1,
      verification: verificationBefore,
      failure: null,
    });
    if (started === null) return 'contended';
    this.crashPoint('after_started');
    v = started;
    await this.emit(v.doc, 'started');
    healingLog(
      deps.logger,
      { incident_id: report.incident_id, action_id: v.doc.action_id, tool: tool.name, snapshot_id: v.doc.snapshot_id },
      `repair ${tool.name} started`,
    );

    let failure: Failure | null = null;
    let verification: NonNullable<RepairAction['verification']> = verificationBefore;
    try {
      await withTimeout(tool.execute(ctx, args), deps.executeTimeoutMs, tool.name);
      this.crashPoint('after_execute');
      const executed = await deps.actions.update(v, { status: 'executed' });
      this.crashPoint('after_executed');
      if (executed === null) throw new Interrupted('another replica took the action over');
      v = executed;
      const problem = await tool.verify(ctx, args);
      const after = await deps.verifier.measure(report);
      verification = {
        ...verificationBefore,
        fcs_after: after.fcs,
        ic_after: after.ic,
        kf_age_days_after: after.kf_age_days,
        recovered: after.recovered && problem === null,
      };
      if (!verification.recovered)
        failure = {
          reason: 'verification_failed',
          message: problem ?? `probes still anomalous against the baseline: ${after.anomalies.join('; ')}`,
        };
    } catch (error) {
      if (error instanceof Interrupted) return 'contended';
      const timedOut = error instanceof VerificationTimeoutError || (error instanceof Error && error.name === 'TimeoutError');
      failure = { reason: timedOut ? 'timeout' : 'tool_error', message: errorMessage(error) };
    }
    if (failure === null) {
      const done = await deps.actions.update(v, {
        status: 'succeeded',
        verification,
        finished_at: new Date().toISOString(),
        lease_until: null,
      });
      if (done === null) return 'contended';
      this.crashPoint('after_succeeded');
      await this.emit(done.doc, 'succeeded');
      await deps.incidents.setStatus(report.incident_id, 'recovered');
      deps.metrics.timeToRecovery.observe({ tool: tool.name }, Math.max(0, (Date.now() - report.occurred_at) / 1000));
      deps.metrics.reports.inc({ outcome: 'recovered' });
      healingLog(
        deps.logger,
        { incident_id: report.incident_id, action_id: done.doc.action_id, tool: tool.name, verification },
        `repair ${tool.name} verified: the affected probes recovered`,
      );
      return 'succeeded';
    }
    const failed = await deps.actions.update(v, { status: 'failed', failure, verification, finished_at: new Date().toISOString() });
    if (failed === null) return 'contended';
    v = failed;
    await this.emit(v.doc, 'failed');
    deps.logger.warn(
      { incident_id: report.incident_id, action_id: v.doc.action_id, tool: tool.name, failure },
      `repair ${tool.name} failed (${failure.reason}): undoing`,
    );
    const undone = await this.undo(
      v,
      tool,
      ctx,
      `undone after ${failure.reason}`,
      failure.reason === 'verification_failed' ? 'verification' : 'error',
    );
    return undone === null ? 'contended' : 'failed';
  }

  /** Undo a repair: tool state first, then the collection from its snapshot (so Qdrant ends exactly as before). */
  private async undo(
    v: Versioned<ActionDoc>,
    tool: RepairTool,
    ctx: ToolContext,
    reason: string,
    trigger: string,
  ): Promise<Versioned<ActionDoc> | null> {
    const args = JSON.parse(v.doc.args_json) as Record<string, unknown>;
    const prior = JSON.parse(v.doc.prior_json ?? '{}') as PriorState;
    let toolUndoRefused: string | null = null;
    try {
      try {
        await tool.undo(ctx, args, prior);
      } catch (error) {
        // The RAG refusing the undo (4xx) means it refused the change too: the snapshot still runs.
        if (!(error instanceof RagHttpError && error.status < 500)) throw error;
        toolUndoRefused = errorMessage(error);
      }
      if (v.doc.snapshot_id !== null) {
        const record = await this.deps.snapshots.get(v.doc.snapshot_id);
        if (record === null) throw new SnapshotError('restore', `snapshot ${v.doc.snapshot_id} is not recorded`);
        const stop = this.deps.metrics.snapshotSeconds.startTimer({ operation: 'restore' });
        await this.deps.snapshots.restore(record);
        stop();
      }
    } catch (error) {
      this.deps.logger.error(
        { incident_id: v.doc.incident_id, action_id: v.doc.action_id, err: errorMessage(error) },
        `undo of ${tool.name} failed: escalating`,
      );
      await this.deps.actions.update(v, { rollback_reason: `undo failed: ${errorMessage(error)}` });
      throw error;
    }
    const rolled = await this.deps.actions.update(v, {
      status: 'rolled_back',
      rollback_reason: toolUndoRefused === null ? reason : `${reason} (the RAG refused the tool undo: ${toolUndoRefused})`,
      lease_until: null,
      finished_at: new Date().toISOString(),
    });
    if (rolled) {
      await this.emit(rolled.doc, 'rolled_back', v.doc.action_id);
      this.deps.metrics.rollbacks.inc({ trigger });
    }
    return rolled;
  }

  /**
   * Deletes the snapshots the retention policy lets go. Snapshots of actions not yet finished are kept
   * whatever their age: an interrupted or failed action is put back through its snapshot, and a planned
   * restore_collection_snapshot must still find the snapshot it chose.
   */
  private async pruneSnapshots(): Promise<void> {
    const { deps } = this;
    if (!deps.snapshotRetention) return;
    const unfinished = await deps.actions.list({ statuses: ['planned', 'awaiting_grant', 'started', 'executed'] });
    // Its own pre-action snapshot, and the one a planned restore_collection_snapshot is about to recover.
    const protectedIds = new Set(
      unfinished.flatMap((a) => [a.snapshot_id, snapshotArgument(a.args_json)].filter((id): id is string => !!id)),
    );
    const pruned = await deps.snapshots.prune(deps.collection, deps.snapshotRetention, protectedIds);
    if (pruned.length === 0) return;
    deps.metrics.snapshotsPruned.inc(pruned.length);
    deps.logger.info(
      { collection: deps.collection, snapshots: pruned.map((r) => r.snapshot_id), policy: deps.snapshotRetention },
      `snapshot retention: deleted ${pruned.length} snapshot(s) of ${deps.collection}`,
    );
  }

  /** An action interrupted mid-flight (crash, expired lease): put the RAG back to its before state, then it runs again. */
  private async resetToBefore(
    v: Versioned<ActionDoc>,
    tool: RepairTool,
    ctx: ToolContext,
    reason: string,
  ): Promise<Versioned<ActionDoc> | null> {
    const owned = await this.deps.actions.update(v, { owner: this.deps.instanceId, lease_until: Date.now() + this.deps.leaseMs });
    if (owned === null) return null;
    const args = JSON.parse(owned.doc.args_json) as Record<string, unknown>;
    const prior = JSON.parse(owned.doc.prior_json ?? '{}') as PriorState;
    await tool.undo(ctx, args, prior);
    if (owned.doc.snapshot_id !== null) {
      const record = await this.deps.snapshots.get(owned.doc.snapshot_id);
      if (record) await this.deps.snapshots.restore(record);
    }
    this.deps.metrics.rollbacks.inc({ trigger: 'recovery' });
    healingLog(
      this.deps.logger,
      { incident_id: owned.doc.incident_id, action_id: owned.doc.action_id, tool: tool.name },
      `${reason}: ${tool.name} put back to its before state, resuming`,
    );
    return this.deps.actions.update(owned, { status: 'planned', owner: null, lease_until: null, resumes: owned.doc.resumes + 1 });
  }

  private async escalate(report: RootCauseReport, why: string, reason: string): Promise<void> {
    const { deps } = this;
    const tool = toolNamed('escalate_to_human') as RepairTool;
    const key = actionKey(report.incident_id, report.report_revision, tool.name);
    let v = await deps.actions.get(key);
    if (v === null) {
      const doc = this.baseDoc(report, tool, 99);
      doc.arguments = { reason: why, chosen_by: reason === 'policy' ? 'policy' : 'breaker' };
      doc.args_json = JSON.stringify({ reason: why });
      v = (await deps.actions.create(doc)) ?? (await deps.actions.get(key));
      if (v === null) return;
    }
    if (v.doc.status === 'escalated') return;
    // Nothing half-applied is left behind: anything of this incident still in flight here is undone.
    for (const doc of await deps.actions.list({ incident: report.incident_id, statuses: ['started', 'executed'] })) {
      const inflight = await deps.actions.get(doc.key);
      const inflightTool = toolNamed(doc.tool);
      if (inflight && inflightTool && (doc.owner === deps.instanceId || (doc.lease_until ?? 0) < Date.now()))
        await this.undo(inflight, inflightTool, this.toolContext(report), 'rolled back on escalation', 'breaker').catch(() => undefined);
    }
    const escalated = await deps.actions.update(v, {
      status: 'escalated',
      arguments: { ...v.doc.arguments, reason: why, escalation: reason },
      attempt: await deps.actions.failedCount(report.incident_id),
      finished_at: new Date().toISOString(),
    });
    if (escalated === null) return;
    await this.emit(escalated.doc, 'escalated');
    await deps.incidents.setStatus(report.incident_id, 'escalated');
    deps.metrics.escalations.inc({ reason });
    deps.metrics.reports.inc({ outcome: 'escalated' });
    healingLog(deps.logger, { incident_id: report.incident_id, reason }, `escalated to a human: ${why}`);
  }

  private async noBranch(report: RootCauseReport, message: string, policyVersion: string): Promise<void> {
    const doc = this.baseDoc(report, { name: 'no_policy_branch', version: policyVersion, intent: 'unknown', reversible: true }, 0);
    doc.status = 'failed';
    doc.failure = { reason: 'policy_denied', message };
    doc.arguments = { reason: message, policy_version: policyVersion, root_cause: report.root_cause };
    doc.finished_at = new Date().toISOString();
    const created = await this.deps.actions.create(doc);
    if (created) {
      await this.emit(created.doc, 'failed');
      await this.deps.incidents.setStatus(report.incident_id, 'failed');
      this.deps.metrics.reports.inc({ outcome: 'no_policy_branch' });
      this.deps.logger.error({ incident_id: report.incident_id, root_cause: report.root_cause }, `no repair: ${message}`);
    }
  }

  private async emit(doc: ActionDoc, status: RepairAction['status'], rollbackOf: string | null = null): Promise<void> {
    const event: RepairAction = {
      ...eventEnvelope('effector', EFFECTOR_VERSION),
      incident_id: doc.incident_id,
      action_id: doc.action_id,
      report_event_id: doc.report_event_id,
      intent: doc.intent,
      tool: doc.tool,
      tool_version: doc.tool_version,
      arguments: doc.arguments,
      status,
      attempt: Math.max(1, doc.attempt),
      snapshot_id: doc.snapshot_id,
      reversible: doc.reversible,
      grant: doc.grant,
      verification: doc.verification,
      failure: status === 'failed' ? doc.failure : null,
      rollback_of_action_id: rollbackOf,
    };
    this.deps.metrics.actions.inc({ tool: doc.tool, outcome: status });
    await this.deps.publish([event]);
  }

  // ---- the on-call engineer's commands (HTTP API / CLI) ----

  /** Approves or denies a grant, audit-logged; an approval re-runs the incident's plan. */
  async decideGrant(key: string, decision: 'approved' | 'denied', actor: string, note: string | null, ttlMs?: number) {
    const grant = await this.deps.grants.decide(key, decision, actor, note, ttlMs);
    await this.deps.audit.record({
      actor,
      command: `grants.${decision === 'approved' ? 'approve' : 'deny'}`,
      target: key,
      outcome: 'ok',
      detail: { tool: grant.tool, incident_id: grant.incident_id, expires_at: grant.expires_at },
    });
    const incident = await this.deps.incidents.get(grant.incident_id);
    if (incident) {
      void this.process(this.deps.incidents.report(incident.doc)).catch((error: unknown) =>
        this.deps.logger.error({ incident_id: grant.incident_id, err: errorMessage(error) }, 'resuming after a grant decision failed'),
      );
    }
    return grant;
  }

  /** 409 when the action's tool says its undo cannot run now (its way back deleted, or a later change owns the state). */
  private async refuseBlockedUndo(target: string, action: ActionDoc): Promise<void> {
    const tool = toolNamed(action.tool);
    const ctx = this.toolContext({ incident_id: action.incident_id } as RootCauseReport);
    const why = await tool?.undoBlocker?.(ctx, JSON.parse(action.args_json) as never, JSON.parse(action.prior_json ?? '{}') as PriorState);
    if (why) throw new RollbackRefused(409, `cannot roll back ${target}: ${action.tool} ${action.action_id}: ${why}`);
  }

  /** What `immune rollback <target>` will change (dry run) or changed. */
  async rollback(target: string, options: { dryRun: boolean; actor: string }): Promise<RollbackPlan> {
    const { deps } = this;
    const byId = (await deps.actions.getById(target)) ?? (await deps.actions.get(target));
    let kind: RollbackPlan['kind'];
    let actions: ActionDoc[] = [];
    let snapshot: SnapshotRecord | null = null;
    if (byId) {
      kind = 'action';
      actions = [byId.doc];
    } else if ((snapshot = await deps.snapshots.get(target))) {
      kind = 'snapshot';
    } else {
      const ofIncident = await deps.actions.list({ incident: target });
      if (ofIncident.length === 0) throw new RollbackRefused(404, `no action, snapshot or incident named ${target}`);
      kind = 'incident';
      actions = ofIncident.filter((a) => a.status === 'succeeded').reverse();
    }
    const plan: RollbackPlan = { target, kind, dry_run: options.dryRun, steps: [], done: false };
    // A snapshot retention deleted cannot be restored: say so before anything is undone, not halfway.
    const pruned =
      kind === 'snapshot'
        ? [snapshot]
        : await Promise.all(
            actions.filter((a) => a.status === 'succeeded' && a.snapshot_id).map((a) => deps.snapshots.get(a.snapshot_id!)),
          );
    const gone = pruned.filter((r): r is SnapshotRecord => r !== null && r.status === 'deleted');
    if (gone.length > 0)
      throw new RollbackRefused(
        409,
        `cannot roll back ${target}: ${gone.map(deletedSnapshot).join('; ')} (EFFECTOR_SNAPSHOT_KEEP_LAST / EFFECTOR_SNAPSHOT_KEEP_WITHIN_DAYS); a person must restore the collection another way`,
      );
    if (kind === 'snapshot' && snapshot) {
      plan.steps.push({
        action_id: snapshot.action_id,
        tool: null,
        incident_id: snapshot.incident_id,
        changes: [
          `collection ${snapshot.collection} restored from snapshot ${snapshot.snapshot_id} (${snapshot.points_count} points, taken ${snapshot.created_at})`,
        ],
      });
    } else {
      const undoable = actions.filter((a) => a.status === 'succeeded');
      if (undoable.length === 0)
        throw new RollbackRefused(
          409,
          `nothing to roll back for ${target}: no succeeded repair (${actions.map((a) => `${a.tool} ${a.status}`).join(', ') || 'none'})`,
        );
      // A way back that is gone, or a later change that owns the state: refused before anything is
      // undone. Steps run newest first, so each later step is asked again once the ones before it ran.
      await this.refuseBlockedUndo(target, undoable[0]!);
      for (const a of undoable) {
        const tool = toolNamed(a.tool);
        const changes = tool ? tool.describeUndo(JSON.parse(a.args_json) as never, JSON.parse(a.prior_json ?? '{}') as PriorState) : [];
        if (a.snapshot_id) changes.push(`collection ${deps.collection} restored from snapshot ${a.snapshot_id}`);
        plan.steps.push({ action_id: a.action_id, tool: a.tool, incident_id: a.incident_id, changes });
      }
    }
    if (options.dryRun) {
      await deps.audit.record({
        actor: options.actor,
        command: 'rollback',
        target,
        outcome: 'dry_run',
        detail: { kind, steps: plan.steps.length },
      });
      return plan;
    }
    try {
      if (kind === 'snapshot' && snapshot) {
        await deps.snapshots.restore(snapshot);
        deps.metrics.rollbacks.inc({ trigger: 'manual' });
      } else {
        for (const step of plan.steps) {
          const v = await deps.actions.getById(step.action_id as string);
          const tool = toolNamed(step.tool as string);
          if (v === null || tool === undefined || v.doc.status !== 'succeeded')
            throw new RollbackRefused(409, `action ${step.action_id} changed meanwhile`);
          const incident = await deps.incidents.get(v.doc.incident_id);
          const report = incident ? deps.incidents.report(incident.doc) : ({ incident_id: v.doc.incident_id } as RootCauseReport);
          await this.refuseBlockedUndo(target, v.doc);
          const rolled = await this.undo(v, tool, this.toolContext(report), `manual rollback by ${options.actor}`, 'manual');
          if (rolled === null) throw new RollbackRefused(409, `action ${step.action_id} changed meanwhile`);
          // A human rolled the repair back: the effector must not redo it on its own.
          await deps.incidents.setStatus(v.doc.incident_id, 'escalated');
        }
      }
    } catch (error) {
      await deps.audit.record({
        actor: options.actor,
        command: 'rollback',
        target,
        outcome: 'error',
        detail: { kind, error: errorMessage(error) },
      });
      throw error;
    }
    plan.done = true;
    await deps.audit.record({ actor: options.actor, command: 'rollback', target, outcome: 'ok', detail: { kind, steps: plan.steps } });
    healingLog(
      deps.logger,
      { incident_id: plan.steps[0]?.incident_id ?? target, actor: options.actor },
      `manual rollback of ${kind} ${target}`,
    );
    return plan;
  }
}

export { INTENT_TOOLS };

/** The snapshot a tool's arguments name (restore_collection_snapshot's source), if any. */
/** The collections an action's arguments and captured state name (a build target, the generation it retired). */
function collectionsNamed(argsJson: string, priorJson: string | null): string[] {
  const names: string[] = [];
  for (const json of [argsJson, priorJson ?? '{}'])
    try {
      const value = JSON.parse(json) as { target_collection?: unknown; from_collection?: unknown };
      for (const name of [value.target_collection, value.from_collection]) if (typeof name === 'string') names.push(name);
    } catch {
      // not JSON: names nothing
    }
  return names;
}

function snapshotArgument(argsJson: string): string | null {
  try {
    const args = JSON.parse(argsJson) as { snapshot_id?: unknown };
    return typeof args.snapshot_id === 'string' ? args.snapshot_id : null;
  } catch {
    return null;
  }
}
