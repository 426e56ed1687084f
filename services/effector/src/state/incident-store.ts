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
  /**
   * Why a human holds the incident (a manual rollback, a repair left held after an inconclusive
   * verification): it stays `escalated` whatever revision comes next, until a person re-opens it.
   * Absent/null: the effector may repair it.
   */
  held_for_human?: string | null;
  updated_at: string;
}

/** A revision more than this far beyond the last one recorded is no real successor: forged or broken. */
export const MAX_REVISION_JUMP = 1000;
/** No identifier revises one incident this often: a higher revision is forged or broken. */
export const MAX_REPORT_REVISION = 1_000_000;

/** What recording a report came to. */
export type RecordVerdict = 'recorded' | 'superseded' | 'implausible';

/**
 * Why a report's revision cannot be believed, or null: one far beyond the last seen (or beyond any
 * real one) would supersede every genuine revision to come, so it is refused, not recorded.
 */
export function implausibleRevision(latest: number | null, revision: number): string | null {
  if (!Number.isSafeInteger(revision) || revision > MAX_REPORT_REVISION)
    return `report_revision ${revision} exceeds the maximum ${MAX_REPORT_REVISION}`;
  if (latest !== null && revision > latest + MAX_REVISION_JUMP)
    return `report_revision ${revision} jumps more than ${MAX_REVISION_JUMP} beyond the last recorded ${latest}`;
  return null;
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

  /**
   * Records the report unless a later revision is already recorded ('superseded') or its revision
   * is implausible ('implausible': refused, nothing recorded). An incident a human holds keeps its
   * hold and `escalated` status: the new revision is stored, but not repaired.
   */
  async record(report: RootCauseReport): Promise<RecordVerdict> {
    let verdict: RecordVerdict = 'recorded';
    try {
      await modify(this.docs, report.incident_id, (current): IncidentDoc | undefined => {
        verdict = 'recorded';
        if (implausibleRevision(current?.latest_revision ?? null, report.report_revision) !== null) {
          verdict = 'implausible';
          return undefined;
        }
        if (current !== null && current.latest_revision > report.report_revision) verdict = 'superseded';
        if (current && current.latest_revision >= report.report_revision) return undefined;
        const held = current?.held_for_human ?? null;
        return {
          incident_id: report.incident_id,
          latest_revision: report.report_revision,
          report_json: JSON.stringify(report),
          component: report.affected_component,
          status: held === null ? 'open' : 'escalated',
          held_for_human: held,
          updated_at: new Date().toISOString(),
        };
      });
    } catch (error) {
      if (error instanceof ContendedError)
        throw new Error(`incident ${report.incident_id}: could not record revision ${report.report_revision} (contended)`);
      throw error;
    }
    return verdict;
  }

  /** A human must decide: the incident is escalated and stays so across revisions until `reopen`. */
  async holdForHuman(incidentId: string, why: string): Promise<void> {
    await this.docs.patch(incidentId, { status: 'escalated', held_for_human: why, updated_at: new Date().toISOString() });
  }

  /** A person lets the effector repair the incident again. */
  async reopen(incidentId: string): Promise<void> {
    await this.docs.patch(incidentId, { status: 'open', held_for_human: null, updated_at: new Date().toISOString() });
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
