/**
 * The repair action state machine. Every status change an action makes goes through
 * `ActionStore.move`, which checks it here, so an impossible one (a rolled-back repair succeeding,
 * an escalation running) is an error rather than silent drift, like the identifier's incident-state.ts.
 *
 *   planned → awaiting_grant → started → executed → succeeded → rolled_back
 *      ↘ failed                   started | executed → planned (put back after a crash)
 *   started | executed → undoing → rolled_back   (a failed repair is undone before anything else runs)
 *                              ↘ failed          (its undo cannot be done: escalated, a human must look)
 *
 * `undoing` is internal: the published lifecycle stays failed → rolled_back (the Avro RepairStatus
 * enum has no such symbol); it only makes a crash or an error mid-undo resumable instead of final.
 */
export const ACTION_STATUSES = [
  'planned',
  'awaiting_grant',
  'started',
  'executed',
  'succeeded',
  'failed',
  'rolled_back',
  'escalated',
  'undoing',
] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

/** The statuses an action record is created in: planned, or failed when the tool cannot even be planned. */
export const INITIAL_STATUSES: readonly ActionStatus[] = ['planned', 'failed'];

const ALLOWED: Record<ActionStatus, readonly ActionStatus[]> = {
  // awaiting_grant: approve mode or an irreversible tool; failed: a denied grant or a refused precondition.
  planned: ['awaiting_grant', 'started', 'failed', 'escalated'],
  awaiting_grant: ['started', 'failed', 'escalated'],
  // planned: an interrupted execution put back to its before state; rolled_back: undone on escalation;
  // undoing: the repair failed and its undo is owed before the plan goes on.
  started: ['executed', 'failed', 'planned', 'rolled_back', 'undoing'],
  executed: ['succeeded', 'failed', 'planned', 'rolled_back', 'undoing'],
  // A person's `immune rollback`.
  succeeded: ['rolled_back'],
  // Undone; or failed: the undo itself cannot be done (the way back is gone), a human must look.
  undoing: ['rolled_back', 'failed'],
  // A record an earlier version left failed before its undo ran.
  failed: ['rolled_back'],
  rolled_back: [],
  escalated: [],
};

/** Statuses after which the action never runs again. */
export const TERMINAL: ReadonlySet<ActionStatus> = new Set(['succeeded', 'failed', 'rolled_back', 'escalated']);
/** Statuses in which a repair may have changed the RAG without being verified or undone. */
export const IN_FLIGHT: ReadonlySet<ActionStatus> = new Set(['started', 'executed']);
/** Statuses of an action not yet finished: its snapshots may still be needed (an undo owed restores one). */
export const UNFINISHED: readonly ActionStatus[] = ['planned', 'awaiting_grant', 'started', 'executed', 'undoing'];
/** Statuses of a repair that failed (the breaker counts them), its undo done or still owed. */
export const FAILED_REPAIR: readonly ActionStatus[] = ['failed', 'rolled_back', 'undoing'];

export class InvalidActionTransitionError extends Error {
  constructor(
    readonly from: ActionStatus | null,
    readonly to: ActionStatus,
  ) {
    super(from === null ? `an action cannot be created ${to}` : `an action cannot go from ${from} to ${to}`);
    this.name = 'InvalidActionTransitionError';
  }
}

export function canMoveAction(from: ActionStatus, to: ActionStatus): boolean {
  return ALLOWED[from].includes(to);
}

export function assertActionTransition(from: ActionStatus, to: ActionStatus): void {
  if (!canMoveAction(from, to)) throw new InvalidActionTransitionError(from, to);
}

export function assertInitialStatus(status: ActionStatus): void {
  if (!INITIAL_STATUSES.includes(status)) throw new InvalidActionTransitionError(null, status);
}
