import type { RootCauseReport } from '@rag-immune/contracts';
import type { EffectorDeps } from '../effector-deps.ts';
import { breakerVerdict, type BreakerVerdict } from './circuit-breaker.ts';

/** Reads what the breaker counts (failed repairs of the incident, recent starts on its component) and keeps its gauge. */
export async function checkBreaker(
  deps: Pick<EffectorDeps, 'actions' | 'limits' | 'metrics'>,
  report: RootCauseReport,
): Promise<BreakerVerdict> {
  const failedRepairs = await deps.actions.failedCount(report.incident_id);
  const componentStarts = await deps.actions.startedSince(
    report.affected_component,
    new Date(Date.now() - deps.limits.componentRateWindowMs),
  );
  const verdict = breakerVerdict({ failedRepairs, componentStartsInWindow: componentStarts }, deps.limits, report.affected_component);
  deps.metrics.breakerOpen.set({ component: report.affected_component }, verdict.open ? 1 : 0);
  return verdict;
}

/**
 * Claims one of the component's rate-limit slots for the action about to start (breaker/rate-claims.ts):
 * the atomic half of the rate limit, taken right before the repair runs. Without a claim store, open
 * only by the count checkBreaker read.
 */
export async function claimRateSlot(
  deps: Pick<EffectorDeps, 'rateClaims' | 'limits' | 'metrics' | 'instanceId'>,
  report: RootCauseReport,
  actionKey: string,
): Promise<BreakerVerdict> {
  if (!deps.rateClaims) return { open: false };
  const claim = await deps.rateClaims.claim({
    component: report.affected_component,
    actionKey,
    owner: deps.instanceId,
    limit: deps.limits.componentRateLimit,
    windowMs: deps.limits.componentRateWindowMs,
  });
  if (claim.claimed) return { open: false };
  const verdict = breakerVerdict({ failedRepairs: 0, componentStartsInWindow: claim.active }, deps.limits, report.affected_component);
  deps.metrics.breakerOpen.set({ component: report.affected_component }, verdict.open ? 1 : 0);
  return verdict;
}

/** Gives the action's rate-limit slot back when its repair never started (claimRateSlot's undo). */
export async function releaseRateSlotUnlessStarted(
  deps: Pick<EffectorDeps, 'rateClaims' | 'limits' | 'actions'>,
  report: RootCauseReport,
  actionKey: string,
): Promise<void> {
  if (!deps.rateClaims) return;
  const action = await deps.actions.get(actionKey);
  if (action !== null && action.doc.started_at !== null) return;
  await deps.rateClaims.release({ component: report.affected_component, actionKey, limit: deps.limits.componentRateLimit });
}
