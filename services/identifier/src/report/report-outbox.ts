import type { RootCauseReport } from '@rag-immune/contracts';
import { note, type Incident } from '../incidents/incident.ts';
import type { IncidentStore, Versioned } from '../incidents/incident-store.ts';

/**
 * The report outbox: a staged report is saved on its incident first, then published, then cleared. A
 * failed publish leaves it staged, and the next delivery publishes it before anything else.
 */
export class ReportOutbox {
  constructor(
    private readonly store: IncidentStore,
    private readonly publishReport: (report: RootCauseReport) => Promise<void>,
    private readonly now: () => number,
  ) {}

  /** Publishes what the saved incident has staged, if anything. */
  async flushAfterSave(incidentId: string): Promise<void> {
    const saved = await this.store.get(incidentId);
    if (saved?.doc.pending_report) await this.flush(saved);
  }

  /** Publishes the staged report, clears it and returns the incident as saved after. */
  async flush(current: Versioned<Incident>): Promise<Versioned<Incident> | null> {
    const report = current.doc.pending_report!;
    await this.publishReport(report);
    const incident = structuredClone(current.doc);
    incident.pending_report = null;
    note(incident, this.now(), 'report_published', { event_id: report.event_id, revision: report.report_revision });
    await this.store.save(incident, current);
    return this.store.get(incident.incident_id);
  }
}
