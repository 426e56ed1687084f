import { context as otelContext, type Context } from '@opentelemetry/api';
import type { RootCauseReport } from '@rag-immune/contracts';
import { inSpan } from '@rag-immune/worker-runtime';
import { CATALOGUE } from './actions/catalogue.ts';
import { admitReport } from './admission/report-admission.ts';
import { errorMessage } from './error-message.ts';
import type { EffectorDeps } from './effector-deps.ts';
import { Escalation } from './escalation/escalation.ts';
import { ActionEvents } from './events/action-events.ts';
import { GrantGate } from './grants/grant-gate.ts';
import { decideGrant } from './operator/grant-decisions.ts';
import { reopenIncident } from './operator/reopen.ts';
import { Rollback, RollbackRefused, type RollbackPlan } from './operator/rollback.ts';
import { PlanLoop, refuseImplausible, type IncidentOutcome } from './plan/plan-loop.ts';
import { DEFAULT_BACKLOG, RepairBacklogFullError, RepairSlots, type BacklogBound, type RepairBacklogBounds } from './plan/repair-slots.ts';
import { ActionRunner } from './run/action-runner.ts';
import { Undoer } from './run/undo.ts';
import { SnapshotPruner } from './snapshots/snapshot-pruning.ts';
import { IncidentLeaseRefused, type IncidentLease } from './state/incident-lease.ts';

export type { EffectorDeps } from './effector-deps.ts';
export { CRASH_POINTS, type CrashPoint } from './run/crash-points.ts';
export { ReopenRefused } from './operator/reopen.ts';
export { RollbackRefused, type RollbackPlan } from './operator/rollback.ts';
export type { IncidentOutcome } from './plan/plan-loop.ts';

/**
 * Turns RootCauseReports into verified repairs: plan (policy + memory), then per action — grant if
 * needed, snapshot first when it writes to Qdrant, execute, verify with the affected probes against
 * the baseline, undo if they did not recover, next action — until recovered, or the breaker trips and
 * the incident is escalated. All state is in Elasticsearch under compare-and-set, so any replica can
 * pick up where another (or a killed one) stopped, and nothing runs twice.
 *
 * This class is the intake (reports from Kafka, one incident at a time per process) and the door for
 * the on-call engineer's commands; the rooms behind it are plan/ (the loop), run/ (runner, undo),
 * escalation/, events/, grants/ (the gate), operator/ (rollback, grant decisions) and snapshots/.
 */
export class Effector {
  private readonly chains = new Map<string, Promise<unknown>>();
  /** Runs queued or running per incident (the links of its chain still to settle). */
  private readonly depth = new Map<string, number>();
  private readonly backlog: RepairBacklogBounds;
  private readonly loop: PlanLoop;
  private readonly rollbacks: Rollback;
  /** At most deps.maxConcurrentRepairs repairs at once in this process; the others wait in order. */
  private readonly slots: RepairSlots;

  constructor(private readonly deps: EffectorDeps) {
    this.backlog = { ...DEFAULT_BACKLOG, ...deps.backlog };
    this.slots = new RepairSlots(
      deps.maxConcurrentRepairs ?? 2,
      (waiting) => deps.metrics.repairsWaiting.set(waiting),
      this.backlog.maxWaiting,
      () => deps.metrics.repairBacklogRefused.inc({ bound: 'waiting' }),
    );
    const tools = deps.tools ?? CATALOGUE;
    const events = new ActionEvents(deps.publish, deps.metrics);
    const undoer = new Undoer(deps, events);
    const runner = new ActionRunner(deps, events, undoer, new SnapshotPruner(deps, tools));
    const escalation = new Escalation(deps, tools, events, undoer);
    this.loop = new PlanLoop(deps, tools, events, runner, undoer, new GrantGate(deps, events), escalation);
    this.rollbacks = new Rollback(deps, tools, undoer);
  }

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
  async accept(received: RootCauseReport, parent: Context, onOutcome?: (outcome: IncidentOutcome | Error) => void): Promise<void> {
    // Back-pressure before anything is asked or recorded: a full backlog throws, so the bus retries the
    // delivery and then leaves it in Kafka (nothing lost, nothing held in memory meanwhile).
    this.refuseOverBacklog(received.incident_id);
    // Who may make the effector act: a report is recorded only once it passed the probe cap and, when
    // the identifier's API is configured, matches the identifier's own record (admission/). An
    // identifier that cannot be asked throws: the bus retries, then leaves the report in Kafka.
    const admission = await admitReport(this.deps, received);
    if (!admission.admitted) {
      onOutcome?.(admission.superseded ? 'superseded' : 'refused');
      return;
    }
    const report = admission.report;
    const recorded = await this.deps.incidents.record(report);
    if (recorded === 'implausible') {
      onOutcome?.(refuseImplausible(this.deps, report));
      return;
    }
    if (recorded === 'superseded') {
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

  /**
   * One incident at a time within this process (a grant approval and a redelivery must not interleave),
   * and at most maxConcurrentRepairs incidents at once (the others wait, in order).
   */
  process(report: RootCauseReport): Promise<IncidentOutcome> {
    const previous = this.chains.get(report.incident_id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.slots.run(() => this.underLease(report)));
    this.chains.set(report.incident_id, next);
    this.depth.set(report.incident_id, (this.depth.get(report.incident_id) ?? 0) + 1);
    void next
      .finally(() => {
        this.settled(report.incident_id);
        if (this.chains.get(report.incident_id) === next) this.chains.delete(report.incident_id);
      })
      .then((outcome) => {
        if (outcome === 'undo_pending') this.retryOwedUndo(report.incident_id);
      })
      .catch(() => undefined);
    return next;
  }

  /**
   * The repair run holds the incident's lease across replicas (state/incident-lease.ts): while another
   * replica repairs it or an operator rolls it back there, this run does nothing now
   * (`in_progress_elsewhere`) and looks again a little later, so a newer revision it carried is not
   * dropped once the holder lets go.
   */
  private async underLease(report: RootCauseReport): Promise<IncidentOutcome> {
    const leases = this.deps.incidentLeases;
    if (leases === undefined) return this.loop.run(report);
    try {
      return await leases.withLease(report.incident_id, `repair of revision ${report.report_revision}`, () => this.loop.run(report));
    } catch (error) {
      if (!(error instanceof IncidentLeaseRefused)) throw error;
      this.deps.logger.info(
        {
          incident_id: report.incident_id,
          report_revision: report.report_revision,
          holder: error.holder.owner,
          purpose: error.holder.purpose,
        },
        'incident leased elsewhere: this run waits its turn',
      );
      this.retryWhenFree(report.incident_id, error.holder.until - Date.now());
      return 'in_progress_elsewhere';
    }
  }

  /** Re-runs the incident's latest revision once its lease may be free (at most 5 s apart), while it is open. */
  private retryWhenFree(incidentId: string, untilFreeMs: number): void {
    const timer = setTimeout(
      () => {
        void (async () => {
          const incident = await this.deps.incidents.get(incidentId);
          if (incident?.doc.status === 'open' && !this.chains.has(incidentId)) await this.process(this.deps.incidents.report(incident.doc));
        })().catch((error: unknown) =>
          this.deps.logger.error({ incident_id: incidentId, err: errorMessage(error) }, 'retrying a leased incident failed'),
        );
      },
      Math.min(Math.max(untilFreeMs, 1000), 5000),
    );
    timer.unref();
  }

  /**
   * Throws RepairBacklogFullError (counted) when taking one more report for `incidentId` would pass a
   * bound: too many incidents in hand, too many runs queued for this one, or the slots' waiting line full.
   */
  private refuseOverBacklog(incidentId: string): void {
    const refuse = (bound: BacklogBound, message: string): never => {
      this.deps.metrics.repairBacklogRefused.inc({ bound });
      this.deps.logger.warn({ incident_id: incidentId, bound }, `report left in Kafka: ${message}`);
      throw new RepairBacklogFullError(bound, message);
    };
    const inHand = this.chains.has(incidentId);
    if (!inHand && this.chains.size >= this.backlog.maxIncidents)
      refuse('incidents', `${this.chains.size} incidents already in hand (EFFECTOR_MAX_INCIDENTS_IN_HAND=${this.backlog.maxIncidents})`);
    const queued = this.depth.get(incidentId) ?? 0;
    if (queued >= this.backlog.maxPerIncident)
      refuse(
        'per_incident',
        `${queued} runs already queued for ${incidentId} (EFFECTOR_MAX_RUNS_PER_INCIDENT=${this.backlog.maxPerIncident})`,
      );
    if (!inHand && this.slots.full)
      refuse(
        'waiting',
        `${this.slots.load.waiting} repairs already wait for a slot (EFFECTOR_MAX_WAITING_REPAIRS=${this.backlog.maxWaiting})`,
      );
  }

  private settled(incidentId: string): void {
    const left = (this.depth.get(incidentId) ?? 1) - 1;
    if (left > 0) this.depth.set(incidentId, left);
    else this.depth.delete(incidentId);
  }

  /**
   * A failed repair's undo met an error: try again after a while rather than only at the next
   * start-up or revision (each try counts; after MAX_UNDO_ATTEMPTS the incident is escalated).
   */
  private retryOwedUndo(incidentId: string): void {
    const timer = setTimeout(() => {
      void (async () => {
        const incident = await this.deps.incidents.get(incidentId);
        if (incident?.doc.status === 'open') await this.process(this.deps.incidents.report(incident.doc));
      })().catch((error: unknown) =>
        this.deps.logger.error({ incident_id: incidentId, err: errorMessage(error) }, 'retrying an owed undo failed'),
      );
    }, this.deps.undoRetryMs ?? 30_000);
    // Never what keeps the process alive: start-up recovery finishes the undo after a restart.
    timer.unref();
  }

  /** On start-up: every open incident is re-run; actions this replica left in flight are put back and resumed. */
  async recoverInFlight(): Promise<{ incident_id: string; outcome: IncidentOutcome }[]> {
    const open = await this.deps.incidents.list(['open']);
    const outcomes = [];
    for (const incident of open) {
      // One incident's error (an owed undo that failed again) must not keep the others from resuming.
      const outcome = await this.process(this.deps.incidents.report(incident)).catch((error: unknown) => {
        this.deps.logger.error({ incident_id: incident.incident_id, err: errorMessage(error) }, 'start-up recovery of the incident failed');
        return 'contended' as const;
      });
      outcomes.push({ incident_id: incident.incident_id, outcome });
    }
    return outcomes;
  }

  // ---- the on-call engineer's commands (HTTP API / CLI): operator/ ----

  /** Approves or denies a grant, audit-logged; an approval re-runs the incident's plan. */
  decideGrant(key: string, decision: 'approved' | 'denied', actor: string, note: string | null, ttlMs?: number) {
    return decideGrant(this.deps, (report) => this.process(report), {
      key,
      decision,
      actor,
      note,
      ...(ttlMs !== undefined ? { ttlMs } : {}),
    });
  }

  /** Re-opens an escalated incident (lifting a rollback's or a held repair's hold), audit-logged; its latest revision is re-planned. */
  reopen(incidentId: string, options: { actor: string; note?: string | null }) {
    return reopenIncident(this.deps, (report) => this.process(report), { incidentId, actor: options.actor, note: options.note ?? null });
  }

  /** What `immune rollback <target>` will change (dry run) or changed. */
  rollback(target: string, options: { dryRun: boolean; actor: string }): Promise<RollbackPlan> {
    if (options.dryRun) return this.rollbacks.run(target, options);
    // In the incident's turn, as a repair of it would be: never interleaved with this process's own
    // work on the incident; another replica's (its repair run or another rollback) holds the
    // incident's lease and refuses this one with 409 naming it. A snapshot of no incident is leased
    // per collection (two manual restores of one collection never run at once).
    return this.rollbacks.incidentOf(target).then((incidentId) => {
      if (incidentId === null) return this.leasedRollback(`collection:${this.deps.collection}`, target, options);
      const previous = this.chains.get(incidentId) ?? Promise.resolve();
      const next = previous.catch(() => undefined).then(() => this.leasedRollback(incidentId, target, options));
      this.chains.set(incidentId, next);
      this.depth.set(incidentId, (this.depth.get(incidentId) ?? 0) + 1);
      void next
        .finally(() => {
          this.settled(incidentId);
          if (this.chains.get(incidentId) === next) this.chains.delete(incidentId);
        })
        .catch(() => undefined);
      return next;
    });
  }

  private async leasedRollback(key: string, target: string, options: { dryRun: boolean; actor: string }): Promise<RollbackPlan> {
    const leases = this.deps.incidentLeases;
    if (leases === undefined) return this.rollbacks.run(target, options);
    let lease: IncidentLease;
    try {
      lease = await leases.acquire(key, `manual rollback of ${target} by ${options.actor}`);
    } catch (error) {
      if (!(error instanceof IncidentLeaseRefused)) throw error;
      await this.deps.audit.record({
        actor: options.actor,
        command: 'rollback',
        target,
        outcome: 'refused',
        detail: { leased_by: error.holder.owner, purpose: error.holder.purpose, until: new Date(error.holder.until).toISOString() },
      });
      throw new RollbackRefused(409, `cannot roll back ${target} now: ${error.message}`);
    }
    try {
      return await this.rollbacks.run(target, { ...options, lease });
    } finally {
      await lease.release();
    }
  }
}
