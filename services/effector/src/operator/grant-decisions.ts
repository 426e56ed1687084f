import type { RootCauseReport } from '@rag-immune/contracts';
import { errorMessage } from '../error-message.ts';
import type { EffectorDeps } from '../effector-deps.ts';
import type { GrantDoc } from '../grants/grant-store.ts';

/**
 * The on-call engineer's grant decision (HTTP API / `immune grants`): approves or denies, audit-logged;
 * either way the incident's plan re-runs, so an approved action runs and a denied one is failed.
 */
export async function decideGrant(
  deps: Pick<EffectorDeps, 'grants' | 'audit' | 'incidents' | 'logger'>,
  resume: (report: RootCauseReport) => Promise<unknown>,
  request: { key: string; decision: 'approved' | 'denied'; actor: string; note: string | null; ttlMs?: number },
): Promise<GrantDoc> {
  const { key, decision, actor, note, ttlMs } = request;
  const grant = await deps.grants.decide(key, decision, actor, note, ttlMs);
  await deps.audit.record({
    actor,
    command: `grants.${decision === 'approved' ? 'approve' : 'deny'}`,
    target: key,
    outcome: 'ok',
    detail: { tool: grant.tool, incident_id: grant.incident_id, expires_at: grant.expires_at },
  });
  const incident = await deps.incidents.get(grant.incident_id);
  if (incident) {
    void resume(deps.incidents.report(incident.doc)).catch((error: unknown) =>
      deps.logger.error({ incident_id: grant.incident_id, err: errorMessage(error) }, 'resuming after a grant decision failed'),
    );
  }
  return grant;
}
