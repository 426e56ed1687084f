import { eventEnvelope, type RepairAction } from '@rag-immune/contracts';
import { EFFECTOR_VERSION } from '../config.ts';
import type { EffectorMetrics } from '../metrics.ts';
import type { ActionDoc } from '../state/action-store.ts';

/**
 * The RepairAction lifecycle events the effector publishes: one per step an action's durable record
 * went through (planned, started, succeeded, failed, rolled_back, escalated), counted by tool and outcome.
 */
export class ActionEvents {
  constructor(
    private readonly publish: (events: RepairAction[]) => Promise<void>,
    private readonly metrics: Pick<EffectorMetrics, 'actions'>,
  ) {}

  async emit(doc: ActionDoc, status: RepairAction['status'], rollbackOf: string | null = null): Promise<void> {
    this.metrics.actions.inc({ tool: doc.tool, outcome: status });
    await this.publish([repairActionEvent(doc, status, rollbackOf)]);
  }
}

/** The event for one lifecycle step of an action, from its durable record. */
export function repairActionEvent(doc: ActionDoc, status: RepairAction['status'], rollbackOf: string | null): RepairAction {
  return {
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
}
