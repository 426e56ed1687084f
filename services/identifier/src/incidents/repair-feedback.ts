import type { Logger } from 'pino';
import type { RepairAction } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import type { IdentifierMetrics } from '../metrics.ts';
import { DEFAULT_INCIDENT_CAPS, rollIncident, type IncidentCaps } from './incident-caps.ts';
import { canTransition, type IncidentState } from './incident-state.ts';
import { moveTo, note } from './incident.ts';
import type { IncidentStore } from './incident-store.ts';

/** The incident state a RepairAction lifecycle step moves its incident to; null: the step is only noted. */
export function incidentStateAfter(action: Pick<RepairAction, 'status' | 'verification'>): IncidentState | null {
  switch (action.status) {
    case 'planned':
    case 'started':
      return 'repairing';
    case 'succeeded':
      // A "success" whose verification did not recover healed nothing.
      return action.verification?.recovered === false ? 'failed' : 'verified';
    case 'failed':
    case 'rolled_back':
      return 'failed';
    case 'escalated':
      return 'escalated';
    default:
      return null;
  }
}

/**
 * The states an action's outcome moves its incident through: straight to `to`, or through
 * `repairing` when a new report revision was issued while the repair ran (the incident is back at
 * `reported` when the earlier repair's outcome arrives: it did run, and it ended); null when neither fits.
 */
export function pathTo(from: IncidentState, to: IncidentState): IncidentState[] | null {
  if (canTransition(from, to)) return [to];
  if (to !== 'repairing' && canTransition(from, 'repairing') && canTransition('repairing', to)) return ['repairing', to];
  return null;
}

/** The effector's RepairActions fed back into the incident they name: repairing, verified, failed, escalated. */
export class RepairFeedback {
  constructor(
    private readonly deps: {
      store: IncidentStore;
      metrics: IdentifierMetrics;
      logger: Logger;
      now: () => number;
      incidentCaps?: IncidentCaps;
    },
  ) {}

  /** Applies one action step; throws ConcurrentUpdateError when another writer won. */
  async apply(action: RepairAction): Promise<void> {
    const { store, metrics, logger } = this.deps;
    const current = await store.get(action.incident_id);
    if (!current) {
      logger.warn({ incident_id: action.incident_id, status: action.status }, 'repair action for an unknown incident ignored');
      return;
    }
    const incident = structuredClone(current.doc);
    if (incident.state === 'closed') return;
    if (incident.timeline.some((t) => t.detail.action_event_id === action.event_id)) return; // a replay
    const now = this.deps.now();
    const to = incidentStateAfter(action);
    incident.repair = {
      action_id: action.action_id,
      status: action.status,
      attempt: action.attempt,
      intent: action.intent,
      recovered: action.verification?.recovered ?? null,
    };
    const detail = {
      action_event_id: action.event_id,
      action_id: action.action_id,
      status: action.status,
      intent: action.intent,
      attempt: action.attempt,
    };
    const path = to === null || to === incident.state ? [] : pathTo(incident.state, to);
    if (path === null) {
      // Nothing the state machine allows (e.g. a closed-then-reopened incident's older repair): kept in
      // the timeline, never thrown. An error here is not transient: retried, it would block the partition.
      note(incident, now, `repair_${action.status}_out_of_order`, { ...detail, state: incident.state });
      logger.info(
        { incident_id: incident.incident_id, state: incident.state, ...detail },
        'repair step kept in the timeline only: no transition fits it',
      );
    } else if (path.length === 0) note(incident, now, `repair_${action.status}`, detail);
    else
      for (const step of path) {
        moveTo(incident, step, now, `repair_${action.status}`, detail);
        metrics.transitions.inc({ to: step });
        healingLog(logger, { incident_id: incident.incident_id, ...detail }, `incident ${step} (repair ${action.status})`);
      }
    rollIncident(incident, this.deps.incidentCaps ?? DEFAULT_INCIDENT_CAPS);
    await store.save(incident, current);
  }
}
