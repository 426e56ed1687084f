/**
 * The append-only evidence ledger in Elasticsearch (`<prefix>-evidence-ledger`): a strict mapping,
 * document id = SHA-256 of the record's canonical content, written with `op_type: create` so an
 * existing id is never overwritten (a replay writes the same ids and changes nothing), each record
 * carrying its predecessor's hash for its incident.
 */
import type { Client } from '@elastic/elasticsearch';
import { chain, verifyChain, type ChainVerification, type EvidenceDraft, type EvidenceRecord, type LedgerHead } from './evidence-record.ts';

export const LEDGER_MAPPINGS = {
  dynamic: 'strict' as const,
  properties: {
    record_id: { type: 'keyword' as const },
    incident_id: { type: 'keyword' as const },
    seq: { type: 'long' as const },
    prev_hash: { type: 'keyword' as const },
    kind: { type: 'keyword' as const },
    probe_event_id: { type: 'keyword' as const },
    probe_id: { type: 'keyword' as const },
    detector: { type: 'keyword' as const },
    claim_kind: { type: 'keyword' as const },
    subject: { type: 'keyword' as const },
    metric: { type: 'keyword' as const },
    observed: { type: 'double' as const },
    baseline: { type: 'double' as const },
    occurred_at: { type: 'date' as const, format: 'epoch_millis' },
    detail: { type: 'object' as const, enabled: false },
  },
};

export class EvidenceLedger {
  readonly index: string;

  constructor(
    private readonly es: Client,
    prefix: string,
    private readonly onWrite?: (outcome: 'created' | 'existing') => void,
  ) {
    this.index = `${prefix}-evidence-ledger`;
  }

  async ensureIndex(): Promise<void> {
    if (await this.es.indices.exists({ index: this.index })) return;
    try {
      await this.es.indices.create({ index: this.index, mappings: LEDGER_MAPPINGS, settings: { number_of_replicas: 0 } });
    } catch (error) {
      if (!String((error as Error).message).includes('resource_already_exists_exception')) throw error;
    }
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
    const response = await this.es.bulk({
      operations: placed.records.flatMap((record) => [{ create: { _index: this.index, _id: record.record_id } }, record]),
    });
    for (const item of response.items) {
      const result = item.create;
      if (result?.status === 201) this.onWrite?.('created');
      else if (result?.status === 409) this.onWrite?.('existing');
      else throw new Error(`evidence ledger write failed: ${result?.status} ${JSON.stringify(result?.error)}`);
    }
    return placed;
  }

  /** The ids of `ids` that the ledger holds for this incident. */
  async existing(incidentId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const response = await this.es.mget<EvidenceRecord>({ index: this.index, ids: [...new Set(ids)] });
    return new Set(
      response.docs
        .filter((doc) => 'found' in doc && doc.found && (doc._source as EvidenceRecord).incident_id === incidentId)
        .map((doc) => doc._id),
    );
  }

  /** Every record of an incident, in chain order. */
  async records(incidentId: string): Promise<EvidenceRecord[]> {
    return (await this.stored(incidentId)).map(({ record }) => record).sort((a, b) => a.seq - b.seq);
  }

  async verify(incidentId: string, head?: LedgerHead): Promise<ChainVerification> {
    return verifyChain(incidentId, await this.stored(incidentId), head);
  }

  private async stored(incidentId: string): Promise<{ id: string; record: EvidenceRecord }[]> {
    await this.es.indices.refresh({ index: this.index });
    const out: { id: string; record: EvidenceRecord }[] = [];
    let searchAfter: (string | number)[] | undefined;
    for (;;) {
      const response = await this.es.search<EvidenceRecord>({
        index: this.index,
        size: 1000,
        query: { term: { incident_id: incidentId } },
        sort: [{ seq: 'asc' }, { record_id: 'asc' }],
        ...(searchAfter ? { search_after: searchAfter } : {}),
      });
      const hits = response.hits.hits;
      for (const hit of hits) out.push({ id: hit._id as string, record: hit._source as EvidenceRecord });
      if (hits.length < 1000) return out;
      searchAfter = hits.at(-1)?.sort as (string | number)[];
    }
  }
}
