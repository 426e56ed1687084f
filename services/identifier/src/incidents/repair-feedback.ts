import type { Logger } from 'pino';
import type { RepairAction } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import type { IdentifierMetrics } from '../metrics.ts';
import { DEFAULT_INCIDENT_CAPS, rollIncident, type IncidentCaps } from './incident-caps.ts';
import type { IncidentState } from './incident-state.ts';
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
    if (to === null || to === incident.state) note(incident, now, `repair_${action.status}`, detail);
    else {
      moveTo(incident, to, now, `repair_${action.status}`, detail);
      metrics.transitions.inc({ to });
      healingLog(logger, { incident_id: incident.incident_id, ...detail }, `incident ${to} (repair ${action.status})`);
    }
    rollIncident(incident, this.deps.incidentCaps ?? DEFAULT_INCIDENT_CAPS);
    await store.save(incident, current);
  }
}
