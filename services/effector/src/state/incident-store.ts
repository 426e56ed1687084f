import type { IncidentOutcome, RootCauseReport } from '@rag-immune/contracts';
import {
  ContendedError,
  date,
  integer,
  keyword,
  modify,
  type DocumentStore,
  type DocumentStores,
  type Versioned,
} from '@rag-immune/es-store';
import { EFFECTOR_INDEX_SETTINGS } from '../config.ts';

export interface IncidentDoc {
  incident_id: string;
  latest_revision: number;
  /** The latest report, so a restart or a grant can re-run its plan without Kafka. */
  report_json: string;
  component: string;
  /** The shared outcome vocabulary, plus `observed`: observe mode planned and ran nothing. */
  status: IncidentOutcome | 'observed';
  updated_at: string;
}

/** The latest report of each incident the effector has seen. */
export class IncidentStore {
  private readonly docs: DocumentStore<IncidentDoc>;

  constructor(stores: DocumentStores, index: string) {
    this.docs = stores.open<IncidentDoc>({
      name: index,
      refresh: true,
      settings: EFFECTOR_INDEX_SETTINGS,
      mappings: {
        dynamic: false,
        properties: { incident_id: keyword, latest_revision: integer, status: keyword, component: keyword, updated_at: date },
      },
    });
  }

  get index(): string {
    return this.docs.index;
  }

  init(): Promise<void> {
    return this.docs.ensureIndex();
  }

  get(incidentId: string): Promise<Versioned<IncidentDoc> | null> {
    return this.docs.get(incidentId);
  }

  /** Records the report unless a later revision is already recorded; false when the report is superseded. */
  async record(report: RootCauseReport): Promise<boolean> {
    let superseded = false;
    try {
      await modify(this.docs, report.incident_id, (current): IncidentDoc | undefined => {
        superseded = current !== null && current.latest_revision > report.report_revision;
        if (current && current.latest_revision >= report.report_revision) return undefined;
        return {
          incident_id: report.incident_id,
          latest_revision: report.report_revision,
          report_json: JSON.stringify(report),
          component: report.affected_component,
          status: 'open',
          updated_at: new Date().toISOString(),
        };
      });
    } catch (error) {
      if (error instanceof ContendedError)
        throw new Error(`incident ${report.incident_id}: could not record revision ${report.report_revision} (contended)`);
      throw error;
    }
    return !superseded;
  }

  async setStatus(incidentId: string, status: IncidentDoc['status']): Promise<void> {
    await this.docs.patch(incidentId, { status, updated_at: new Date().toISOString() });
  }

  report(doc: IncidentDoc): RootCauseReport {
    return JSON.parse(doc.report_json) as RootCauseReport;
  }

  async list(statuses?: IncidentDoc['status'][]): Promise<IncidentDoc[]> {
    return (await this.docs.find({ where: statuses ? { status: statuses } : {}, size: 500 })).map((hit) => hit.doc);
  }
}
