import type { RootCauseReport } from '@rag-immune/contracts';
import { PreconditionError, type RepairTool, type ToolContext } from '../actions/repair-tool.ts';
import { crashPoint } from '../run/crash-points.ts';
import { errorMessage } from '../error-message.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import type { ActionEvents } from '../events/action-events.ts';
import type { PlannedStep } from '../policy/decision.ts';
import { actionKey, newActionDoc, type ActionDoc, type Versioned } from '../state/action-store.ts';
import { hasSeveralCauses } from '../verify/cause-scope.ts';

/** Why the plan holds a step: what the RepairAction's arguments carry besides the tool's own. */
export interface PlanProvenance {
  policyVersion: string;
  branch: string;
  memoryNote: string;
}

/**
 * The action's durable record, created (and `planned` published) by exactly one replica; null when
 * the tool does not apply (recorded `failed`, no change made).
 */
export async function ensurePlanned(
  deps: Pick<EffectorDeps, 'actions' | 'crashAt' | 'onCrash'>,
  events: ActionEvents,
  report: RootCauseReport,
  tool: RepairTool,
  step: PlannedStep,
  position: number,
  provenance: PlanProvenance,
  ctx: ToolContext,
): Promise<Versioned<ActionDoc> | null> {
  const key = actionKey(report.incident_id, report.report_revision, tool.name);
  const existing = await deps.actions.get(key);
  if (existing) return existing;
  const doc = newActionDoc(report, tool, position);
  const why = {
    reason: step.reason,
    chosen_by: step.chosen_by,
    policy_version: provenance.policyVersion,
    policy_branch: provenance.branch,
    memory: provenance.memoryNote,
    ...(step.case_ids.length ? { case_ids: step.case_ids.join(',') } : {}),
    // One cause of several: which one this repair is for (memory keeps a case per cause).
    ...(hasSeveralCauses(report) ? { finding: report.root_cause } : {}),
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
    const created = await deps.actions.create(doc);
    if (created) await events.emit(created.doc, 'failed');
    return null;
  }
  doc.args_json = JSON.stringify(args);
  doc.arguments = {
    ...Object.fromEntries(Object.entries(args).map(([k, value]) => [k, typeof value === 'string' ? value : JSON.stringify(value)])),
    ...why,
  };
  const created = await deps.actions.create(doc);
  if (created) {
    await events.emit(created.doc, 'planned');
    crashPoint(deps, 'after_planned');
    return created;
  }
  return deps.actions.get(key);
}
