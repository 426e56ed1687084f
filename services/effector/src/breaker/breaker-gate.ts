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
