import type { Logger } from 'pino';
import type { RootCauseReport } from '@rag-immune/contracts';
import { errorMessage } from '../error-message.ts';
import type { IncidentOutcome } from '../plan/plan-loop.ts';
import { UNFINISHED } from '../state/action-state.ts';
import type { ActionDoc, ActionLease, ActionStore } from '../state/action-store.ts';
import type { IncidentDoc, IncidentStore } from '../state/incident-store.ts';

/** What the sweep reads and who it hands an incident to (Effector.process: one incident at a time). */
export interface RecoverySweepDeps {
  actions: Pick<ActionStore, 'list'>;
  incidents: Pick<IncidentStore, 'get' | 'list' | 'report'>;
  instanceId: string;
  leaseMs: number;
  logger: Logger;
  process(report: RootCauseReport): Promise<IncidentOutcome>;
}

/**
 * An action some replica was working on whose lease ran out: its owner died (or was drained and
 * gave it up) without finishing. In flight (`started`/`executed`, not held for a human) or owing its
 * undo (`undoing`; one whose owner set its lease aside to retry later counts once it has been left
 * alone for a whole lease).
 */
export function abandoned(action: ActionDoc, now: number, leaseMs: number): boolean {
  if (action.status === 'undoing') {
    if (action.lease_until !== null) return action.lease_until <= now;
    return Date.parse(action.updated_at) + leaseMs <= now;
  }
  if (action.status !== 'started' && action.status !== 'executed') return false;
  if ((action.hold_reason ?? null) !== null) return false; // held for a human: not to be touched
  return action.lease_until !== null && action.lease_until <= now;
}

/**
 * A step of an open incident's current plan that nobody carries on, though no lease of a running
 * repair names it: `planned` (nothing ran yet; its replica died before it started, or before or
 * while it claimed the step) once its claim ran out or, unclaimed, it was left alone for a whole
 * lease; or `succeeded` (fully, not a partial recovery) while its incident is still open and none
 * of its other actions is unfinished (its replica died between the state and the event: downstream
 * never heard of the repair, the incident was never closed). A live replica moves both on within
 * moments. Steps of an older revision are not stalled: the plan of the latest one replaced them.
 */
export function stalled(
  action: ActionDoc,
  incident: Pick<IncidentDoc, 'latest_revision'>,
  now: number,
  leaseMs: number,
  siblings: readonly ActionDoc[] = [],
): boolean {
  if (action.report_revision !== incident.latest_revision) return false;
  if (action.status === 'planned' && action.lease_until !== null) return action.lease_until <= now;
  if (action.status === 'succeeded') {
    if (action.verification?.outcome === 'partial') return false;
    if (siblings.some((s) => s.key !== action.key && UNFINISHED.includes(s.status))) return false;
  } else if (action.status !== 'planned') return false;
  return Date.parse(action.updated_at) + leaseMs <= now;
}

/**
 * What start-up recovery does, every `intervalMs` and without a restart: each open incident with an
 * abandoned action or a stalled step is handed to the plan loop, which takes the action over by
 * compare-and-set and puts it back to its before state and resumes it, finishes its owed undo, runs
 * the stalled step, or publishes the lost `succeeded` and closes the incident. A replica that still
 * works on an action keeps renewing its lease, so a live one is never swept.
 */
export class RecoverySweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: RecoverySweepDeps) {}

  start(intervalMs: number): void {
    if (this.timer !== undefined) return;
    this.stopped = false;
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.sweep()).catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep under way (shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass: the incidents it handed to the plan loop and what came of them. */
  async sweep(): Promise<{ incident_id: string; outcome: IncidentOutcome }[]> {
    const { deps } = this;
    const now = Date.now();
    const candidates = (await deps.actions.list({ statuses: ['started', 'executed', 'undoing'] })).filter((a) =>
      abandoned(a, now, deps.leaseMs),
    );
    // Stalled steps hold no lease to find them by: looked for in each open incident (few at a time,
    // unlike every succeeded repair ever recorded).
    const withLeases = new Set(candidates.map((a) => a.incident_id));
    for (const incident of await deps.incidents.list(['open'])) {
      if (withLeases.has(incident.incident_id) || (incident.held_for_human ?? null) !== null) continue;
      const steps = await deps.actions.list({ incident: incident.incident_id });
      candidates.push(...steps.filter((a) => stalled(a, incident, now, deps.leaseMs, steps)));
    }
    const outcomes: { incident_id: string; outcome: IncidentOutcome }[] = [];
    for (const incidentId of new Set(candidates.map((a) => a.incident_id))) {
      if (this.stopped) break;
      const incident = await deps.incidents.get(incidentId);
      if (incident === null || incident.doc.status !== 'open' || (incident.doc.held_for_human ?? null) !== null) continue;
      const taken = candidates.filter((a) => a.incident_id === incidentId).map((a) => `${a.tool} (${a.status}, owner ${a.owner ?? '-'})`);
      deps.logger.warn(
        { incident_id: incidentId, actions: taken },
        'recovery sweep: taking over actions whose lease expired or that stalled',
      );
      const outcome = await deps.process(deps.incidents.report(incident.doc)).catch((error: unknown) => {
        deps.logger.error({ incident_id: incidentId, err: errorMessage(error) }, 'recovery sweep: the incident could not be resumed');
        return 'contended' as const;
      });
      outcomes.push({ incident_id: incidentId, outcome });
    }
    return outcomes;
  }
}

/** After the drain's grace, how long the given-up repairs get to wind down (their writes are refused by then). */
export const DRAIN_SETTLE_MS = 5_000;

/**
 * Drain before exit: waits up to `graceMs` for the repairs in hand (`idle`) to finish; those still
 * running then are given up at a safe point — their lease is set expired (another replica's sweep
 * takes them over, puts the RAG back and resumes them), their execute is cancelled through its
 * abort signal, and this process may no longer write them — and it waits `settleMs` more for the
 * work to wind down. Resolves with the actions given up.
 */
export async function drainRepairs(options: {
  idle: () => Promise<void>;
  leases: () => Pick<ActionLease, 'key' | 'relinquish'>[];
  graceMs: number;
  settleMs: number;
  logger: Logger;
}): Promise<string[]> {
  const finished = await waitAtMost(options.idle(), options.graceMs);
  if (finished) return [];
  const leases = options.leases();
  await Promise.all(leases.map((lease) => lease.relinquish('this replica is shutting down')));
  const keys = leases.map((lease) => lease.key);
  options.logger.warn(
    { actions: keys, grace_ms: options.graceMs },
    'drain: repairs still running at the end of the grace period were given up for another replica to resume',
  );
  await waitAtMost(options.idle(), options.settleMs);
  return keys;
}

async function waitAtMost(done: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    done.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return result;
}
