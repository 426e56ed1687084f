import type { RootCauseReport } from '@rag-immune/contracts';
import { MemoryUnavailableError, type Recommendation } from '@rag-immune/memory-client';
import { errorMessage } from '../error-message.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import type { ActionDoc } from '../state/action-store.ts';

/** Asks memory how similar incidents healed, leaving out intents that already failed here; null when memory is off or down (the policy decides). */
export async function consultMemory(
  deps: Pick<EffectorDeps, 'memory' | 'environment' | 'logger'>,
  report: RootCauseReport,
  failed: readonly ActionDoc[],
): Promise<Recommendation | null> {
  if (deps.memory === null) return null;
  try {
    return await deps.memory.recommend({
      incident_id: report.incident_id,
      root_cause: report.root_cause,
      affected_component: report.affected_component,
      environment: deps.environment,
      claims: report.claims.map((c) => ({ kind: c.kind, metric: c.metric, observed: c.observed, baseline: c.baseline })),
      affected_knowledge_ids: report.affected_knowledge_ids,
      exclude_intents: [...new Set(failed.map((a) => a.intent))],
    });
  } catch (error) {
    deps.logger.warn(
      { incident_id: report.incident_id, err: errorMessage(error), unavailable: error instanceof MemoryUnavailableError },
      'memory unavailable: policy decides',
    );
    return null;
  }
}
