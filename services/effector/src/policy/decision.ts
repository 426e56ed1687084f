import type { RootCauseReport } from '@rag-immune/contracts';
import type { Recommendation } from '@rag-immune/memory-client';
import { CATALOGUE, INTENT_TOOLS, type ToolBox } from '../actions/catalogue.ts';
import { CONTRACT_HOOKS, toolAvailable, type RagRepairAccess } from '../actions/rag-repair-access.ts';
import type { PolicyBranch, RepairPolicy } from './policy.ts';

/** What the incident went through so far (across report revisions). */
export interface RepairHistory {
  /** Repairs of this incident that failed verification or errored (the breaker counts these). */
  failedAttempts: number;
  /** Tools that failed for this incident in earlier revisions: not tried again. */
  failedTools: ReadonlySet<string>;
}

/** A repair of this incident that failed: its tool, the report revision it ran for, and its arguments. */
export interface FailedRepair {
  tool: string;
  report_revision: number;
  args_json: string;
}

/**
 * The tools not to try again for this revision: those that failed for an earlier one, unless the
 * report now names knowledge the failed run did not cover. A scoped repair that failed on a narrow
 * first guess (revision 1 named half the damaged documents) is a different repair on the wider
 * scope, not a repeat; one failed run that covered the whole current scope keeps the tool out, and
 * the breaker's failed-repair limit still bounds the retries.
 */
export function toolsNotToRetry(failed: readonly FailedRepair[], report: RootCauseReport): Set<string> {
  const skip = new Set<string>();
  for (const repair of failed) {
    if (repair.report_revision >= report.report_revision) continue;
    const covered = knowledgeIdsOf(repair.args_json);
    const widened = covered !== null && report.affected_knowledge_ids.some((id) => !covered.has(id));
    if (!widened) skip.add(repair.tool);
  }
  return skip;
}

function knowledgeIdsOf(argsJson: string): Set<string> | null {
  try {
    const ids = (JSON.parse(argsJson) as { knowledge_ids?: unknown }).knowledge_ids;
    return Array.isArray(ids) ? new Set(ids.filter((id): id is string => typeof id === 'string')) : null;
  } catch {
    return null;
  }
}

export interface PlannedStep {
  tool: string;
  params: Record<string, string>;
  reason: string;
  chosen_by: 'memory' | 'policy';
  case_ids: string[];
}

export type Decision =
  | { ok: true; policyVersion: string; branch: string; steps: PlannedStep[]; memoryNote: string }
  | { ok: false; policyVersion: string; reason: string };

export function branchMatches(branch: PolicyBranch, report: RootCauseReport, history: RepairHistory): boolean {
  const w = branch.when;
  if (w.cause && !w.cause.includes(report.root_cause)) return false;
  if (w.component && !w.component.includes(report.affected_component)) return false;
  const scoped = report.affected_knowledge_ids.length > 0;
  if (w.scope === 'knowledge' && !scoped) return false;
  if (w.scope === 'global' && scoped) return false;
  if (w.min_confidence !== undefined && report.confidence < w.min_confidence) return false;
  if (w.attempts_at_least !== undefined && history.failedAttempts < w.attempts_at_least) return false;
  if (w.attempts_below !== undefined && history.failedAttempts >= w.attempts_below) return false;
  return true;
}

/**
 * The ordered actions for a report: the first matching policy branch, reordered by memory's
 * strategy when memory answered from similar cases with enough confidence (memory can only
 * reorder the branch's tools, never add one: memory's answer is no authority over the policy). Each step says why it was
 * chosen and by whom; tools that already failed for the incident are left out.
 */
export function decide(
  policy: RepairPolicy,
  report: RootCauseReport,
  history: RepairHistory,
  recommendation: Recommendation | null,
  memoryMinConfidence: number,
  tools: ToolBox = CATALOGUE,
  /** What the RAG lets the effector do: a branch's tools this RAG cannot have are left out of its plan. */
  access: RagRepairAccess = CONTRACT_HOOKS,
): Decision {
  const branch = policy.branches.find((candidate) => branchMatches(candidate, report, history));
  if (branch === undefined)
    return {
      ok: false,
      policyVersion: policy.policy_version,
      reason: `no policy branch matches cause ${report.root_cause} / ${report.affected_component}`,
    };
  const policySteps: PlannedStep[] = branch.actions
    // A hook tool for a RAG without repair hooks (or a stand-in for one that has them) is never planned.
    .filter((action) => toolAvailable(tools.named(action.tool), access))
    .map((action) => ({
      tool: action.tool,
      params: action.params,
      reason: action.reason,
      chosen_by: 'policy',
      case_ids: [],
    }));
  let memoryNote = 'memory not consulted';
  let steps = policySteps;
  if (recommendation !== null) {
    const usable = recommendation.source === 'cases' && !recommendation.degraded && recommendation.confidence >= memoryMinConfidence;
    memoryNote = `memory ${recommendation.source} confidence ${recommendation.confidence.toFixed(2)} (${recommendation.reason})${usable ? '' : ': not followed'}`;
    if (usable) {
      const caseIds = recommendation.citations.map((c) => c.case_id);
      const fromMemory: PlannedStep[] = [];
      const outsideBranch: string[] = [];
      for (const item of recommendation.strategy) {
        const name = item.tool !== null && tools.named(item.tool) ? item.tool : INTENT_TOOLS[item.intent][0];
        if (name === undefined || fromMemory.some((s) => s.tool === name)) continue;
        // Memory only reorders what the policy allows: a tool outside the matched branch is never added.
        const inPolicy = policySteps.find((s) => s.tool === name);
        if (inPolicy === undefined) {
          if (!outsideBranch.includes(name)) outsideBranch.push(name);
          continue;
        }
        fromMemory.push({
          tool: name,
          params: inPolicy.params,
          reason: `memory: ${recommendation.reason} (similar cases healed with ${item.intent})`,
          chosen_by: 'memory',
          case_ids: caseIds,
        });
      }
      steps = [...fromMemory, ...policySteps.filter((s) => !fromMemory.some((m) => m.tool === s.tool))];
      if (outsideBranch.length > 0) memoryNote += `; not in policy branch ${branch.id}, dropped: ${outsideBranch.join(', ')}`;
    }
  } else memoryNote = 'memory unavailable: policy only';
  // The terminal step (escalation) is never left out: a plan always ends with a human.
  steps = steps.filter((s) => !history.failedTools.has(s.tool) || tools.named(s.tool)?.terminal === true);
  return { ok: true, policyVersion: policy.policy_version, branch: branch.id, steps, memoryNote };
}
