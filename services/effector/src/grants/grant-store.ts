import { date, keyword, type DocumentStore, type DocumentStores, type Versioned } from '@rag-immune/es-store';
import { EFFECTOR_INDEX_SETTINGS } from '../config.ts';

export type GrantStatus = 'pending' | 'approved' | 'denied' | 'expired';

export interface GrantDoc {
  key: string;
  action_id: string;
  incident_id: string;
  tool: string;
  reversible: boolean;
  /** Why a human must decide (approve mode, irreversible, or what the tool says, e.g. an old snapshot and its age). Absent on older requests. */
  reason?: string;
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
  private readonly docs: DocumentStore<GrantDoc>;

  constructor(
    stores: DocumentStores,
    index: string,
    private readonly ttlMs: number,
  ) {
    this.docs = stores.open<GrantDoc>({
      name: index,
      refresh: true,
      settings: EFFECTOR_INDEX_SETTINGS,
      mappings: {
        dynamic: false,
        properties: { key: keyword, action_id: keyword, incident_id: keyword, status: keyword, requested_at: date, expires_at: date },
      },
    });
  }

  get index(): string {
    return this.docs.index;
  }

  init(): Promise<void> {
    return this.docs.ensureIndex();
  }

  get(key: string): Promise<Versioned<GrantDoc> | null> {
    return this.docs.get(key);
  }

  /** Opens a pending request (or renews an expired one); returns the request in force. */
  async request(
    fields: Pick<GrantDoc, 'key' | 'action_id' | 'incident_id' | 'tool' | 'reversible'> & Pick<Partial<GrantDoc>, 'reason'>,
    now = new Date(),
  ): Promise<GrantDoc> {
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
    if (await this.docs.replace(fields.key, doc, current)) return doc;
    // Another replica opened (or renewed) it first: theirs is in force.
    return (await this.get(fields.key))?.doc ?? doc;
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
    if ((await this.docs.replace(key, doc, current)) === null) throw new GrantError(409, `grant ${key} was decided concurrently`);
    return doc;
  }

  async list(filter: { status?: GrantStatus; incident?: string } = {}): Promise<(GrantDoc & { effective_status: GrantStatus })[]> {
    const hits = await this.docs.find({
      where: filter.incident ? { incident_id: filter.incident } : {},
      size: 500,
      sort: [{ requested_at: 'desc' }],
    });
    const now = new Date();
    return hits
      .map((h) => h.doc)
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
