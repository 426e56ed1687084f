/**
 * The append-only evidence ledger in Elasticsearch (`<prefix>-evidence-ledger`): a strict mapping,
 * document id = SHA-256 of the record's canonical content, written with `op_type: create` so an
 * existing id is never overwritten (a replay writes the same ids and changes nothing), each record
 * carrying its predecessor's hash for its incident.
 */
import { double, epochMillis, keyword, long, opaque, type DocumentStore, type DocumentStores } from '@rag-immune/es-store';
import { chain, verifyChain, type ChainVerification, type EvidenceDraft, type EvidenceRecord, type LedgerHead } from './evidence-record.ts';

export const LEDGER_MAPPINGS = {
  dynamic: 'strict' as const,
  properties: {
    record_id: keyword,
    incident_id: keyword,
    seq: long,
    prev_hash: keyword,
    kind: keyword,
    probe_event_id: keyword,
    probe_id: keyword,
    detector: keyword,
    claim_kind: keyword,
    subject: keyword,
    metric: keyword,
    observed: double,
    baseline: double,
    occurred_at: epochMillis,
    detail: opaque,
  },
};

export class EvidenceLedger {
  private readonly docs: DocumentStore<EvidenceRecord>;

  constructor(
    stores: DocumentStores,
    prefix: string,
    private readonly onWrite?: (outcome: 'created' | 'existing') => void,
  ) {
    this.docs = stores.open<EvidenceRecord>({
      name: `${prefix}-evidence-ledger`,
      mappings: LEDGER_MAPPINGS,
      settings: { number_of_replicas: 0 },
    });
  }

  get index(): string {
    return this.docs.index;
  }

  ensureIndex(): Promise<void> {
    return this.docs.ensureIndex();
  }

  /**
   * Appends drafts after `head`; returns the records and the new head. Create-only: an id that
   * exists already (the same content at the same place: a redelivery) is left as it is.
   */
  async append(
    incidentId: string,
    head: LedgerHead,
    drafts: readonly EvidenceDraft[],
  ): Promise<{ records: EvidenceRecord[]; head: LedgerHead }> {
    const placed = chain(incidentId, head, drafts);
    if (placed.records.length === 0) return placed;
    const outcomes = await this.docs.createMany(placed.records.map((record) => ({ id: record.record_id, doc: record })));
    for (const outcome of outcomes) this.onWrite?.(outcome === 'created' ? 'created' : 'existing');
    return placed;
  }

  /** The ids of `ids` that the ledger holds for this incident. */
  async existing(incidentId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const found = await this.docs.getMany([...new Set(ids)]);
    return new Set(found.filter((v) => v.doc.incident_id === incidentId).map((v) => v.id));
  }

  /** Every record of an incident, in chain order. */
  async records(incidentId: string): Promise<EvidenceRecord[]> {
    return (await this.stored(incidentId)).map(({ record }) => record).sort((a, b) => a.seq - b.seq);
  }

  async verify(incidentId: string, head?: LedgerHead): Promise<ChainVerification> {
    return verifyChain(incidentId, await this.stored(incidentId), head);
  }

  private async stored(incidentId: string): Promise<{ id: string; record: EvidenceRecord }[]> {
    await this.docs.refresh();
    const out: { id: string; record: EvidenceRecord }[] = [];
    for await (const hit of this.docs.scan({
      where: { incident_id: incidentId },
      sort: [{ seq: 'asc' }, { record_id: 'asc' }],
      pageSize: 1000,
    }))
      out.push({ id: hit.id, record: hit.doc });
    return out;
  }
}
