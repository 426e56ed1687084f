import type { Client } from '@elastic/elasticsearch';
import type { RootCauseReport } from '@rag-immune/contracts';
import { date, ensureIndex, int, isConflict, isNotFound, kw } from './es.ts';

export interface IncidentDoc {
  incident_id: string;
  latest_revision: number;
  /** The latest report, so a restart or a grant can re-run its plan without Kafka. */
  report_json: string;
  component: string;
  status: 'open' | 'recovered' | 'escalated' | 'failed' | 'observed';
  updated_at: string;
}

/** The latest report of each incident the effector has seen. */
export class IncidentStore {
  constructor(
    private readonly es: Client,
    readonly index: string,
  ) {}

  init(): Promise<void> {
    return ensureIndex(this.es, this.index, { incident_id: kw, latest_revision: int, status: kw, component: kw, updated_at: date });
  }

  async get(incidentId: string): Promise<{ doc: IncidentDoc; seqNo: number; primaryTerm: number } | null> {
    try {
      const r = await this.es.get<IncidentDoc>({ index: this.index, id: incidentId });
      return r.found && r._source ? { doc: r._source, seqNo: r._seq_no as number, primaryTerm: r._primary_term as number } : null;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** Records the report unless a later revision is already recorded; false when the report is superseded. */
  async record(report: RootCauseReport): Promise<boolean> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const current = await this.get(report.incident_id);
      if (current && current.doc.latest_revision > report.report_revision) return false;
      if (current && current.doc.latest_revision === report.report_revision) return true;
      const doc: IncidentDoc = {
        incident_id: report.incident_id,
        latest_revision: report.report_revision,
        report_json: JSON.stringify(report),
        component: report.affected_component,
        status: 'open',
        updated_at: new Date().toISOString(),
      };
      try {
        await this.es.index({
          index: this.index,
          id: report.incident_id,
          document: doc,
          refresh: true,
          ...(current ? { if_seq_no: current.seqNo, if_primary_term: current.primaryTerm } : { op_type: 'create' as const }),
        });
        return true;
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
    }
    throw new Error(`incident ${report.incident_id}: could not record revision ${report.report_revision} (contended)`);
  }

  async setStatus(incidentId: string, status: IncidentDoc['status']): Promise<void> {
    await this.es.update({ index: this.index, id: incidentId, doc: { status, updated_at: new Date().toISOString() }, refresh: true });
  }

  report(doc: IncidentDoc): RootCauseReport {
    return JSON.parse(doc.report_json) as RootCauseReport;
  }

  async list(statuses?: IncidentDoc['status'][]): Promise<IncidentDoc[]> {
    const r = await this.es.search<IncidentDoc>({
      index: this.index,
      query: statuses ? { terms: { status: statuses } } : { match_all: {} },
      size: 500,
      ignore_unavailable: true,
    });
    return r.hits.hits.map((h) => h._source as IncidentDoc);
  }
}
