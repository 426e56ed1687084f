import type { RootCauseReport } from '@rag-immune/contracts';
import { healingLog } from '@rag-immune/worker-runtime';
import { errorMessage } from '../error-message.ts';
import type { EffectorDeps } from '../effector-deps.ts';

export class ReopenRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ReopenRefused';
  }
}

/**
 * A person hands an escalated incident back to the effector (for routes.ts to expose, e.g.
 * `POST /incidents/{id}/reopen`): the hold a manual rollback or a held repair put on it is lifted,
 * the incident is open again and its latest revision is re-planned. Until then no revision repairs
 * it. Audit-logged; 404 unknown incident, 409 not escalated.
 */
export async function reopenIncident(
  deps: Pick<EffectorDeps, 'incidents' | 'audit' | 'logger'>,
  resume: (report: RootCauseReport) => Promise<unknown>,
  request: { incidentId: string; actor: string; note: string | null },
): Promise<{ incident_id: string; held_for_human: string | null }> {
  const { incidentId, actor, note } = request;
  const incident = await deps.incidents.get(incidentId);
  const refuse = async (status: number, message: string): Promise<never> => {
    await deps.audit.record({ actor, command: 'incident.reopen', target: incidentId, outcome: 'refused', detail: { message } });
    throw new ReopenRefused(status, message);
  };
  if (incident === null) return refuse(404, `no incident ${incidentId}`);
  if (incident.doc.status !== 'escalated')
    return refuse(409, `incident ${incidentId} is ${incident.doc.status}, not escalated: nothing to re-open`);
  const held = incident.doc.held_for_human ?? null;
  await deps.incidents.reopen(incidentId);
  await deps.audit.record({ actor, command: 'incident.reopen', target: incidentId, outcome: 'ok', detail: { held_for_human: held, note } });
  healingLog(deps.logger, { incident_id: incidentId, actor }, `incident re-opened by ${actor}: the effector may repair it again`);
  void resume(deps.incidents.report(incident.doc)).catch((error: unknown) =>
    deps.logger.error({ incident_id: incidentId, err: errorMessage(error) }, 'repairing after a re-open failed'),
  );
  return { incident_id: incidentId, held_for_human: held };
}
