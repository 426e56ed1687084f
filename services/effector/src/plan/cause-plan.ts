import type { RootCauseReport } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import type { ToolBox } from '../actions/catalogue.ts';
import type { ToolContext } from '../actions/repair-tool.ts';
import { toolContextFor } from '../actions/tool-context.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import { decide, toolsNotToRetry, type Decision, type RepairHistory } from '../policy/decision.ts';
import { supersededWithin } from './later-revision.ts';
import { consultMemory } from './memory-consultation.ts';
import { done, type PlanOutcome } from './plan-outcome.ts';

/** A cause's ordered steps and what its tools may read and call. */
export interface CausePlan {
  kind: 'plan';
  decision: Extract<Decision, { ok: true }>;
  ctx: ToolContext;
}

/**
 * The plan for one cause (a report's only cause, or one slice of several): what its incident's
 * actions already cover, what failed before, what memory recommends and the policy decides. A cause
 * with nothing to repair, no policy branch or an abstention a later revision supersedes comes back
 * as the loop's decision instead of a plan.
 */
export async function planCause(
  deps: EffectorDeps,
  tools: ToolBox,
  report: RootCauseReport,
  log: EffectorDeps['logger'],
): Promise<CausePlan | PlanOutcome> {
  const all = await deps.actions.list({ incident: report.incident_id });
  // A whole-index rebuild verified after the revision's last anomaly already rebuilt the knowledge it
  // adds: those anomalies were seen before the rebuild finished, so there is nothing new to repair.
  // The rebuild this very revision ran is not such a cover: on a restart after a kill between its
  // `succeeded` state and event, the plan below must still publish that event and close the incident.
  const coveredBy = all.find(
    (a) =>
      a.status === 'succeeded' &&
      a.report_event_id !== report.event_id &&
      a.component === report.affected_component &&
      tools.named(a.tool)?.coversAllKnowledge === true &&
      a.finished_at !== null &&
      Date.parse(a.finished_at) > report.window_end,
  );
  if (coveredBy && report.root_cause !== 'unknown') {
    healingLog(
      log,
      { incident_id: report.incident_id, action_id: coveredBy.action_id, tool: coveredBy.tool },
      `revision ${report.report_revision}: every anomaly it names predates the verified ${coveredBy.tool}, which rebuilt all knowledge: nothing to repair`,
    );
    return done('recovered', 'covered');
  }
  const failedHere = all.filter((a) => (a.status === 'failed' || a.status === 'rolled_back') && a.executions > 0);
  const history: RepairHistory = {
    failedAttempts: failedHere.length,
    failedTools: toolsNotToRetry(failedHere, report),
  };
  const recommendation = await consultMemory(deps, report, failedHere);
  const decision = decide(deps.policy, report, history, recommendation, deps.memoryMinConfidence, tools, deps.ragRepair);
  if (!decision.ok) return { kind: 'no_branch', report, message: decision.reason, policyVersion: decision.policyVersion };
  if (report.root_cause === 'unknown' && (await supersededWithin(deps.incidents, report, deps.abstentionGraceMs ?? 0))) {
    log.info('abstention superseded by a later revision within the grace period: not escalated');
    return done('superseded', 'superseded');
  }
  return { kind: 'plan', decision, ctx: toolContextFor(deps, report) };
}
