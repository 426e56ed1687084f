import type { RepairAction, RootCauseReport } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import { PreconditionError, type PriorState, type RepairTool, type ToolContext } from '../actions/repair-tool.ts';
import { crashPoint } from './crash-points.ts';
import { errorMessage } from '../error-message.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import type { ActionEvents } from '../events/action-events.ts';
import type { SnapshotRecord } from '../snapshots/snapshot-record.ts';
import type { SnapshotPruner } from '../snapshots/snapshot-pruning.ts';
import type { ActionDoc, ActionLease, Versioned } from '../state/action-store.ts';
import { hasSeveralCauses } from '../verify/cause-scope.ts';
import { VerificationTimeoutError, verdictOf, type ProbeMeasurement } from '../verify/recovery-verifier.ts';
import { judgeRepair, nothingToRepair, verificationOutcome } from '../verify/repair-judgement.ts';
import type { Undoer } from './undo.ts';

type Failure = NonNullable<RepairAction['failure']>;
export type Grant = RepairAction['grant'];
/**
 * succeeded / failed (undone) / contended; undo_pending: the failed repair's undo met an error and
 * is owed (the plan must not go on); undo_failed: it cannot be undone; held: verification stayed
 * inconclusive, the repair is left applied for a human; snapshot_budget: no room for its snapshot
 * within EFFECTOR_SNAPSHOT_BUDGET_BYTES (it never ran). The last three escalate. partial: the repair
 * healed some of its cause's probes and made none worse: kept (`succeeded`, verification outcome
 * `partial`), not undone; the rest is the plan's to handle.
 */
export type RunOutcome =
  | 'succeeded'
  | 'failed'
  | 'contended'
  | 'undo_pending'
  | 'undo_failed'
  | 'held'
  | 'snapshot_budget'
  | 'partial'
  /** Not run: its cause's probes showed no anomaly just before (see nothingToRepair). */
  | 'nothing_to_repair';

class Interrupted extends Error {}

/** How far a claim on a `planned` step (its preconditions and snapshot) reaches, renewed while it works; EFFECTOR_LEASE_MS when shorter. */
export const PLANNED_CLAIM_MS = 120_000;

/**
 * Runs `work` with a signal that aborts when `ms` pass (or `stop` aborts: the lease was lost). On
 * the timeout the signal cancels the work on the RAG (the repair hooks pass it to fetch) and the
 * work is given up to `settleMs` to wind down before the TimeoutError is thrown, so an undo never
 * starts while the repair call is still in flight.
 */
async function withCancellingTimeout<T>(
  work: (signal: AbortSignal) => Promise<T>,
  ms: number,
  what: string,
  stop: AbortSignal,
  settleMs: number,
): Promise<T> {
  const controller = new AbortController();
  const signal = AbortSignal.any([controller.signal, stop]);
  const running = Promise.resolve().then(() => work(signal));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  const stopped = new Promise<'stopped'>((resolve) => {
    if (stop.aborted) resolve('stopped');
    else stop.addEventListener('abort', () => resolve('stopped'), { once: true });
  });
  try {
    const first = await Promise.race([running.then((value) => ({ value })), timeout, stopped]);
    if (first !== 'timeout' && first !== 'stopped') return first.value;
    const error =
      first === 'timeout'
        ? Object.assign(new Error(`${what} did not finish within ${ms} ms`), { name: 'TimeoutError' })
        : new Interrupted(`${what}: the lease was lost`);
    controller.abort(error);
    // Let the cancelled call wind down (bounded: a tool that ignores its signal cannot hold the undo forever).
    let settle: NodeJS.Timeout | undefined;
    await Promise.race([running.catch(() => undefined), new Promise((resolve) => (settle = setTimeout(resolve, settleMs)))]);
    clearTimeout(settle);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs one action: preconditions, before-figures, snapshot, execute, verify; undo when it did not
 * heal. Every step is a compare-and-set on the action's record, so a replica that lost the race
 * stops ('contended') instead of running the repair twice.
 */
export class ActionRunner {
  constructor(
    private readonly deps: EffectorDeps,
    private readonly events: ActionEvents,
    private readonly undoer: Undoer,
    private readonly pruner: SnapshotPruner,
  ) {}

  async run(v0: Versioned<ActionDoc>, tool: RepairTool, report: RootCauseReport, ctx: ToolContext, grant: Grant): Promise<RunOutcome> {
    const { deps } = this;
    // Claimed before anything runs (preconditions, before-figures, snapshot): another replica keeps off
    // while the claim is live, and its sweep takes the step over once it ran out. The claim is shorter
    // than the lease of a started repair: nothing has touched the RAG yet, so a replica killed here
    // should cost minutes, not the whole lease; a takeover while this one still works is safe (its
    // move to `started` is a compare-and-set, which then fails, and it stops).
    if (v0.doc.owner !== null && v0.doc.owner !== deps.instanceId && (v0.doc.lease_until ?? 0) > Date.now()) return 'contended';
    const claimed = await deps.actions.update(v0, {
      owner: deps.instanceId,
      lease_until: Date.now() + Math.min(deps.leaseMs, PLANNED_CLAIM_MS),
    });
    if (claimed === null) return 'contended';
    // Renewed while the step is prepared (a snapshot may outlast the claim), given back at drain; the
    // started repair's own hold below shares it and renews it by the whole lease.
    const claim = deps.actions.hold(claimed, {
      owner: deps.instanceId,
      leaseMs: deps.leaseMs,
      claimMs: Math.min(deps.leaseMs, PLANNED_CLAIM_MS),
    });
    try {
      return await this.runClaimed(claimed, tool, report, ctx, grant);
    } finally {
      claim.release();
    }
  }

  private async runClaimed(
    v: Versioned<ActionDoc>,
    tool: RepairTool,
    report: RootCauseReport,
    ctx: ToolContext,
    grant: Grant,
  ): Promise<RunOutcome> {
    const { deps } = this;
    const args = tool.input.parse(JSON.parse(v.doc.args_json)) as Record<string, unknown>;
    const fail = async (failure: Failure, verification: RepairAction['verification'] = null) => {
      const failed = await deps.actions.move(v, 'failed', { failure, verification, finished_at: new Date().toISOString() });
      if (failed) await this.events.emit(failed.doc, 'failed');
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
      // The same probes as the verification, so at least its budget (EFFECTOR_VERIFY_TIMEOUT_MS): a
      // traffic incident on a sampling RAG names several sampled probes, and one RAG call's budget cut
      // the before-figures short (the LangChain RAG, 2026-12-07: "did not finish within 120000 ms").
      before = await deps.verifier.measure(report, Math.max(deps.ragTimeoutMs, 60_000, deps.verifyTimeoutMs ?? 0));
    } catch (error) {
      return fail({
        reason: error instanceof VerificationTimeoutError ? 'timeout' : 'verification_failed',
        message: `before-repair probes: ${errorMessage(error)}`,
      });
    }
    // A repair on healthy probes heals nothing and would verify as "recovered": not run (nothing captured, no snapshot).
    const healthy = nothingToRepair(before);
    if (healthy !== null) {
      await fail({ reason: 'policy_denied', message: healthy });
      return 'nothing_to_repair';
    }
    let prior: PriorState;
    try {
      prior = await tool.capture(ctx, args);
    } catch (error) {
      return fail({ reason: 'tool_error', message: `could not record the state to undo to: ${errorMessage(error)}` });
    }
    let snapshot: SnapshotRecord | null = null;
    if (tool.touchesQdrant) {
      let room: Awaited<ReturnType<SnapshotPruner['makeRoom']>>;
      try {
        room = await this.pruner.makeRoom();
      } catch (error) {
        return fail({ reason: 'snapshot_failed', message: `snapshot budget: ${errorMessage(error)}` });
      }
      if (!room.fits) {
        await fail({ reason: 'snapshot_failed', message: room.message });
        return 'snapshot_budget';
      }
      const stop = deps.metrics.snapshotSeconds.startTimer({ operation: 'create' });
      try {
        snapshot = await deps.snapshots.create(deps.collection, report.incident_id, v.doc.action_id);
        crashPoint(deps, 'after_snapshot');
        stop();
      } catch (error) {
        return fail({ reason: 'snapshot_failed', message: errorMessage(error) });
      }
      // Off the repair's path: a failed prune only leaves more archives, and the next snapshot retries it.
      void this.pruner
        .prune()
        .catch((error: unknown) =>
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
      ...verificationOutcome(null),
    };
    const started = await deps.actions.move(v, 'started', {
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
    // Renewed while this replica works on it (execute, verify, re-measure waits, undo); lost: it stops.
    const lease = deps.actions.hold(started, { owner: deps.instanceId, leaseMs: deps.leaseMs });
    try {
      return await this.runStarted(started, lease, tool, report, ctx, args, verificationBefore, before);
    } finally {
      lease.release();
    }
  }

  private async runStarted(
    started: Versioned<ActionDoc>,
    lease: ActionLease,
    tool: RepairTool,
    report: RootCauseReport,
    ctx: ToolContext,
    args: Record<string, unknown>,
    verificationBefore: NonNullable<RepairAction['verification']>,
    before: ProbeMeasurement,
  ): Promise<RunOutcome> {
    const { deps } = this;
    let v = started;
    let keepPartial = false;
    crashPoint(deps, 'after_started');
    await this.events.emit(v.doc, 'started');
    healingLog(
      deps.logger,
      { incident_id: report.incident_id, action_id: v.doc.action_id, tool: tool.name, snapshot_id: v.doc.snapshot_id },
      `repair ${tool.name} started`,
    );

    let failure: Failure | null = null;
    let verification: NonNullable<RepairAction['verification']> = verificationBefore;
    try {
      // The signal cancels the RAG call on the timeout (or a lost lease); the action id is its
      // idempotency key, so a retried or resumed call is the same job to the RAG.
      await withCancellingTimeout(
        (signal) => tool.execute({ ...ctx, signal, idempotencyKey: v.doc.action_id }, args),
        deps.executeTimeoutMs,
        tool.name,
        lease.signal,
        Math.min(deps.ragTimeoutMs, 10_000),
      );
      crashPoint(deps, 'after_execute');
      const executed = await deps.actions.move(v, 'executed');
      crashPoint(deps, 'after_executed');
      if (executed === null) throw new Interrupted('another replica took the action over');
      v = executed;
      const problem = await tool.verify(ctx, args);
      // The tool saying its change did not take is a verdict already: no measurement holds it.
      const measured = problem === null ? await this.measureConclusively(v, tool, report, lease.signal) : null;
      if (measured !== null && measured.held !== null) return measured.held;
      if (measured !== null) v = measured.v;
      const after = measured?.after ?? (await deps.verifier.measure(report));
      // Probe by probe against the before-figures: kept when it healed its cause's probes (or some) and made none worse.
      const judgement = problem === null ? judgeRepair(before, after) : null;
      verification = {
        ...verificationBefore,
        fcs_after: after.fcs,
        ic_after: after.ic,
        kf_age_days_after: after.kf_age_days,
        recovered: judgement?.outcome === 'recovered',
        ...verificationOutcome(judgement),
      };
      keepPartial = judgement?.outcome === 'partial';
      if (!verification.recovered && !keepPartial)
        failure = {
          reason: 'verification_failed',
          message:
            problem ??
            (judgement?.outcome === 'worse'
              ? `the repair made probes worse: ${judgement.worsened.join(', ')}`
              : `probes still anomalous against the baseline: ${after.anomalies.join('; ')}`),
        };
    } catch (error) {
      if (error instanceof Interrupted || lease.lost) return 'contended';
      const timedOut = error instanceof VerificationTimeoutError || (error instanceof Error && error.name === 'TimeoutError');
      failure = { reason: timedOut ? 'timeout' : 'tool_error', message: errorMessage(error) };
    }
    if (failure === null && keepPartial) return this.keepPartial(v, tool, report, verification);
    if (failure === null) return this.succeed(v, tool, report, verification);
    // Not `failed` yet: a failed repair still applied must not look finished. `undoing` survives a
    // crash or an unreachable server mid-undo, and nothing else runs for the incident until it is done.
    const undoing = await deps.actions.move(v, 'undoing', {
      failure,
      verification,
      owner: deps.instanceId,
      lease_until: Date.now() + deps.leaseMs,
      finished_at: new Date().toISOString(),
    });
    if (undoing === null) return 'contended';
    v = undoing;
    // The published lifecycle is unchanged (failed, then rolled_back): `undoing` is internal.
    await this.events.emit(v.doc, 'failed');
    deps.logger.warn(
      { incident_id: report.incident_id, action_id: v.doc.action_id, tool: tool.name, failure },
      `repair ${tool.name} failed (${failure.reason}): undoing`,
    );
    const undone = await this.undoer.finishUndo(v, tool, ctx, failure.reason === 'verification_failed' ? 'verification' : 'error');
    return undone.status === 'rolled_back' ? 'failed' : undone.status;
  }

  /**
   * Measures the repair until the measurement judges it: an inconclusive one (the measurement
   * failed, not the repair) holds the action `executed` with its reason and measures again after
   * the configured delay; past the bounded count the repair stays held for a human ('held').
   * An error of the measurement itself (other than the verification budget running out, a
   * `timeout` failure) counts as inconclusive too.
   */
  private async measureConclusively(
    v0: Versioned<ActionDoc>,
    tool: RepairTool,
    report: RootCauseReport,
    stop: AbortSignal,
  ): Promise<{ held: null; v: Versioned<ActionDoc>; after: ProbeMeasurement } | { held: RunOutcome; v: null; after: null }> {
    const { deps } = this;
    const hold = deps.inconclusiveHold ?? { remeasures: 3, delayMs: 30_000 };
    let v = v0;
    for (let measures = 1; ; measures += 1) {
      let after: ProbeMeasurement | null = null;
      let why: string;
      try {
        after = await deps.verifier.measure(report);
        why = after.inconclusive ?? '';
      } catch (error) {
        if (error instanceof VerificationTimeoutError) throw error;
        why = `the measurement failed: ${errorMessage(error)}`;
      }
      if (after !== null && verdictOf(after) !== 'inconclusive') {
        if ((v.doc.hold_reason ?? null) === null) return { held: null, v, after };
        const cleared = await deps.actions.update(v, { hold_reason: null });
        if (cleared === null) throw new Interrupted('another replica took the action over');
        return { held: null, v: cleared, after };
      }
      const last = measures > hold.remeasures;
      const reason = `verification inconclusive (measure ${measures} of ${hold.remeasures + 1}): ${why}`;
      const held = await deps.actions.update(v, {
        hold_reason: last ? `${reason}; held for a human` : reason,
        // Still owned while it waits: another replica must not take it over and undo it.
        lease_until: last ? null : Date.now() + hold.delayMs + deps.leaseMs,
      });
      if (held === null) throw new Interrupted('another replica took the action over');
      v = held;
      healingLog(
        deps.logger,
        { incident_id: report.incident_id, action_id: v.doc.action_id, tool: tool.name },
        last ? `repair ${tool.name}: ${reason}; held, not undone, for a human` : `repair ${tool.name}: ${reason}; measuring again`,
      );
      if (last) return { held: 'held', v: null, after: null };
      await sleepUnless(hold.delayMs, stop);
      if (stop.aborted) throw new Interrupted('the lease was lost while the repair was held');
    }
  }

  private async succeed(
    v: Versioned<ActionDoc>,
    tool: RepairTool,
    report: RootCauseReport,
    verification: NonNullable<RepairAction['verification']>,
  ): Promise<RunOutcome> {
    const { deps } = this;
    const done = await deps.actions.move(v, 'succeeded', {
      verification,
      finished_at: new Date().toISOString(),
      lease_until: null,
    });
    if (done === null) return 'contended';
    crashPoint(deps, 'after_succeeded');
    await this.events.emit(done.doc, 'succeeded');
    // One cause of several healed: the plan loop closes the incident when every cause is.
    if (!hasSeveralCauses(report)) await deps.incidents.setStatus(report.incident_id, 'recovered');
    deps.metrics.timeToRecovery.observe({ tool: tool.name }, Math.max(0, (Date.now() - report.occurred_at) / 1000));
    deps.metrics.reports.inc({ outcome: 'recovered' });
    healingLog(
      deps.logger,
      { incident_id: report.incident_id, action_id: done.doc.action_id, tool: tool.name, verification },
      `repair ${tool.name} verified: the affected probes recovered`,
    );
    return 'succeeded';
  }

  /**
   * A partial recovery: the repair healed some of its cause's probes and made none worse. It is kept
   * (`succeeded`, verification outcome `partial`, recovered false) rather than undone; the incident
   * stays open for the rest.
   */
  private async keepPartial(
    v: Versioned<ActionDoc>,
    tool: RepairTool,
    report: RootCauseReport,
    verification: NonNullable<RepairAction['verification']>,
  ): Promise<RunOutcome> {
    const { deps } = this;
    const kept = await deps.actions.move(v, 'succeeded', { verification, finished_at: new Date().toISOString(), lease_until: null });
    if (kept === null) return 'contended';
    await this.events.emit(kept.doc, 'succeeded');
    deps.metrics.reports.inc({ outcome: 'partial' });
    healingLog(
      deps.logger,
      { incident_id: report.incident_id, action_id: kept.doc.action_id, tool: tool.name, verification },
      `repair ${tool.name} kept as a partial recovery: healed ${verification.healed_probe_ids.join(', ')}, still anomalous ${verification.unhealed_probe_ids.join(', ')}`,
    );
    return 'partial';
  }
}

/** Waits `ms`, or less when `stop` aborts. */
function sleepUnless(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (stop.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
  });
}
