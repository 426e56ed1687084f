import type { RootCauseReport } from '@rag-immune/contracts';
import type { IncidentStore } from '../state/incident-store.ts';

/**
 * Whether a later revision of the report's incident is recorded within `graceMs` of the report
 * (polled). Counted from when the identifier issued it, so a redelivery or a restart's recovery of
 * an old abstention does not wait again.
 */
export async function supersededWithin(incidents: Pick<IncidentStore, 'get'>, report: RootCauseReport, graceMs: number): Promise<boolean> {
  const deadline = Math.min(report.occurred_at, Date.now()) + graceMs;
  for (;;) {
    const current = await incidents.get(report.incident_id);
    if (current && current.doc.latest_revision > report.report_revision) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(0, deadline - Date.now()))));
  }
}
