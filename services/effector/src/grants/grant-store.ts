import type { Client } from '@elastic/elasticsearch';
import { date, ensureIndex, isConflict, isNotFound, kw } from '../state/es.ts';

export type GrantStatus = 'pending' | 'approved' | 'denied' | 'expired';

export interface GrantDoc {
  key: string;
  action_id: string;
  incident_id: string;
  tool: string;
  reversible: boolean;
  status: Exclude<GrantStatus, 'expired'>;
  requested_at: string;
  /** A pending request lapses, and an approval stops covering the action, at this time. */
  expires_at: string;
  decided_by: string | null;
  decided_at: string | null;
  note: string | null;
}

/** A grant's status now: pending or approved past its expiry reads as expired. */
export function effectiveStatus(grant: GrantDoc, now: Date = new Date()): GrantStatus {
  if ((grant.status === 'pending' || grant.status === 'approved') && Date.parse(grant.expires_at) <= now.getTime()) return 'expired';
  return grant.status;
}

/** Human grants for actions that need one (approve mode, irreversible actions), with expiry. */
export class GrantStore {
  constructor(
    private readonly es: Client,
    readonly index: string,
    private readonly ttlMs: number,
  ) {}

  init(): Promise<void> {
    return ensureIndex(this.es, this.index, { key: kw, action_id: kw, incident_id: kw, status: kw, requested_at: date, expires_at: date });
  }

  async get(key: string): Promise<{ doc: GrantDoc; seqNo: number; primaryTerm: number } | null> {
    try {
      const r = await this.es.get<GrantDoc>({ index: this.index, id: key });
      return r.found && r._source ? { doc: r._source, seqNo: r._seq_no as number, primaryTerm: r._primary_term as number } : null;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /** Opens a pending request (or renews an expired one); returns the request in force. */
  async request(fields: Pick<GrantDoc, 'key' | 'action_id' | 'incident_id' | 'tool' | 'reversible'>, now = new Date()): Promise<GrantDoc> {
    const current = await this.get(fields.key);
    if (current && effectiveStatus(current.doc, now) !== 'expired') return current.doc;
    const doc: GrantDoc = {
      ...fields,
      status: 'pending',
      requested_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.ttlMs).toISOString(),
      decided_by: null,
      decided_at: null,
      note: null,
    };
    try {
      await this.es.index({
        index: this.index,
        id: fields.key,
        document: doc,
        refresh: true,
        ...(current ? { if_seq_no: current.seqNo, if_primary_term: current.primaryTerm } : { op_type: 'create' as const }),
      });
      return doc;
    } catch (error) {
      if (isConflict(error)) return (await this.get(fields.key))?.doc ?? doc;
      throw error;
    }
  }

  /** Approves or denies a pending request; an approval holds for ttl from now. Throws when not pending. */
  async decide(key: string, decision: 'approved' | 'denied', by: string, note: string | null, ttlMs = this.ttlMs): Promise<GrantDoc> {
    const current = await this.get(key);
    if (current === null) throw new GrantError(404, `no grant request ${key}`);
    const status = effectiveStatus(current.doc);
    if (status !== 'pending') throw new GrantError(409, `grant ${key} is ${status}, not pending`);
    const now = new Date();
    const doc: GrantDoc = {
      ...current.doc,
      status: decision,
      decided_by: by,
      decided_at: now.toISOString(),
      note,
      expires_at: decision === 'approved' ? new Date(now.getTime() + ttlMs).toISOString() : current.doc.expires_at,
    };
    try {
      await this.es.index({
        index: this.index,
        id: key,
        document: doc,
        if_seq_no: current.seqNo,
        if_primary_term: current.primaryTerm,
        refresh: true,
      });
    } catch (error) {
      if (isConflict(error)) throw new GrantError(409, `grant ${key} was decided concurrently`);
      throw error;
    }
    return doc;
  }

  async list(filter: { status?: GrantStatus; incident?: string } = {}): Promise<(GrantDoc & { effective_status: GrantStatus })[]> {
    const r = await this.es.search<GrantDoc>({
      index: this.index,
      query: filter.incident ? { term: { incident_id: filter.incident } } : { match_all: {} },
      size: 500,
      sort: [{ requested_at: 'desc' }],
      ignore_unavailable: true,
    });
    const now = new Date();
    return r.hits.hits
      .map((h) => h._source as GrantDoc)
      .map((g) => ({ ...g, effective_status: effectiveStatus(g, now) }))
      .filter((g) => filter.status === undefined || g.effective_status === filter.status);
  }
}

export class GrantError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'GrantError';
  }
}
