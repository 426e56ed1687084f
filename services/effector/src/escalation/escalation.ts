import type { RootCauseReport } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import type { ToolBox } from '../actions/catalogue.ts';
import { toolContextFor } from '../actions/tool-context.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import type { ActionEvents } from '../events/action-events.ts';
import type { Undoer } from '../run/undo.ts';
import { actionKey, newActionDoc } from '../state/action-store.ts';

/** Why an incident went to a human: the policy said so, or the breaker, or every planned repair failed. */
export type EscalationReason =
  | 'policy'
  | 'plan_exhausted'
  | 'failed_repairs'
  | 'component_rate_limit'
  /** A failed repair could not be undone: it may still be applied. */
  | 'undo_failed'
  /** A repair's verification never judged it: it is held applied, for a person to keep or roll back. */
  | 'verification_inconclusive'
  /** A repair needed a snapshot and the collection's snapshots already fill EFFECTOR_SNAPSHOT_BUDGET_BYTES. */
  | 'snapshot_budget'
  /** A repair healed part of its cause's probes and is kept; nothing planned healed the rest. */
  | 'partial_recovery'
  /** The repair's probes showed no anomaly just before it would have run: it was not run. */
  | 'nothing_to_repair';

/**
 * Handing an incident to a human: undo whatever of it is still in flight, record and publish an
 * `escalated` action under the terminal tool, mark the incident escalated. Also the record of a report
 * no policy branch matched.
 */
export class Escalation {
  constructor(
    private readonly deps: EffectorDeps,
    private readonly tools: ToolBox,
    private readonly events: ActionEvents,
    private readonly undoer: Undoer,
  ) {}

  async escalate(report: RootCauseReport, why: string, reason: EscalationReason): Promise<void> {
    const { deps } = this;
    const tool = this.tools.escalation;
    const key = actionKey(report.incident_id, report.report_revision, tool.name);
    let v = await deps.actions.get(key);
    if (v === null) {
      const doc = newActionDoc(report, tool, 99);
      doc.arguments = {
        reason: why,
        chosen_by: reason === 'policy' ? 'policy' : 'breaker',
        // The cause (of several) whose plan ended here: memory files the escalation under its case.
        ...((report.findings ?? []).length >= 2 ? { finding: report.root_cause } : {}),
      };
      doc.args_json = JSON.stringify({ reason: why });
      v = (await deps.actions.create(doc)) ?? (await deps.actions.get(key));
      if (v === null) return;
    }
    if (v.doc.status === 'escalated') return;
    // Nothing half-applied is left behind: anything of this incident still in flight here is undone.
    for (const doc of await deps.actions.list({ incident: report.incident_id, statuses: ['started', 'executed'] })) {
      const inflight = await deps.actions.get(doc.key);
      const inflightTool = this.tools.named(doc.tool);
      // A repair held after an inconclusive verification is the human's to keep or roll back.
      const heldForHuman = (doc.hold_reason ?? null) !== null && doc.lease_until === null;
      if (inflight && inflightTool && !heldForHuman && (doc.owner === deps.instanceId || (doc.lease_until ?? 0) < Date.now()))
        await this.undoer
          .undo(inflight, inflightTool, toolContextFor(deps, report), 'rolled back on escalation', 'breaker')
          .catch(() => undefined);
    }
    const escalated = await deps.actions.move(v, 'escalated', {
      arguments: { ...v.doc.arguments, reason: why, escalation: reason },
      attempt: await deps.actions.failedCount(report.incident_id),
      finished_at: new Date().toISOString(),
    });
    if (escalated === null) return;
    await this.events.emit(escalated.doc, 'escalated');
    await deps.incidents.setStatus(report.incident_id, 'escalated');
    deps.metrics.escalations.inc({ reason });
    deps.metrics.reports.inc({ outcome: 'escalated' });
    healingLog(deps.logger, { incident_id: report.incident_id, reason }, `escalated to a human: ${why}`);
  }

  /** No policy branch matches the report: a failed pseudo-action says so, and the incident is failed. */
  async noBranch(report: RootCauseReport, message: string, policyVersion: string): Promise<void> {
    const { deps } = this;
    const doc = newActionDoc(report, { name: 'no_policy_branch', version: policyVersion, intent: 'unknown', reversible: true }, 0);
    doc.status = 'failed';
    doc.failure = { reason: 'policy_denied', message };
    doc.arguments = { reason: message, policy_version: policyVersion, root_cause: report.root_cause };
    doc.finished_at = new Date().toISOString();
    const created = await deps.actions.create(doc);
    if (created) {
      await this.events.emit(created.doc, 'failed');
      await deps.incidents.setStatus(report.incident_id, 'failed');
      deps.metrics.reports.inc({ outcome: 'no_policy_branch' });
      deps.logger.error({ incident_id: report.incident_id, root_cause: report.root_cause }, `no repair: ${message}`);
    }
  }
}
