/**
 * The incident state machine. Every transition the identifier makes goes through `transition`, so
 * an impossible one (a closed incident repairing again) is an error, not silent drift.
 *
 *   open → diagnosing → reported → repairing → verified | failed | escalated → closed
 */
export const INCIDENT_STATES = ['open', 'diagnosing', 'reported', 'repairing', 'verified', 'failed', 'escalated', 'closed'] as const;
export type IncidentState = (typeof INCIDENT_STATES)[number];

const ALLOWED: Record<IncidentState, readonly IncidentState[]> = {
  open: ['diagnosing', 'reported', 'closed'],
  diagnosing: ['reported', 'closed'],
  // reported → reported: a new revision after new evidence changed the verdict.
  reported: ['reported', 'repairing', 'escalated', 'closed'],
  repairing: ['repairing', 'verified', 'failed', 'escalated', 'reported'],
  verified: ['closed', 'repairing', 'reported'],
  failed: ['repairing', 'reported', 'escalated', 'closed'],
  escalated: ['repairing', 'reported', 'closed'],
  closed: [],
};

export class InvalidTransitionError extends Error {
  constructor(
    readonly from: IncidentState,
    readonly to: IncidentState,
  ) {
    super(`incident cannot go from ${from} to ${to}`);
    this.name = 'InvalidTransitionError';
  }
}

export function canTransition(from: IncidentState, to: IncidentState): boolean {
  return ALLOWED[from].includes(to);
}

export function assertTransition(from: IncidentState, to: IncidentState): void {
  if (!canTransition(from, to)) throw new InvalidTransitionError(from, to);
}

/** States in which an incident still owns new anomalies. */
export const ACTIVE_STATES: readonly IncidentState[] = INCIDENT_STATES.filter((s) => s !== 'closed');
