/**
 * The append-only evidence ledger in Elasticsearch (`<prefix>-evidence-ledger`): a strict mapping,
 * document id = the hash of the record's canonical content (HMAC-SHA256 under IDENTIFIER_LEDGER_KEY
 * when one is configured), written with `op_type: create` so an existing id is never overwritten (a
 * replay writes the same ids and changes nothing), each record carrying its predecessor's hash for
 * its incident.
 *
 * Each incident's chain head lives in its own document in `<prefix>-evidence-ledger-heads`, outside
 * the records' index. An append claims the next head there under compare-and-set *before* it writes
 * its records, so two replicas can never both append after the same head: the loser re-reads the head
 * and chains after the winner's records (or, after `attempts` losses, gives up with ContendedError),
 * and no fork is ever written. The head document carries the claimed records (a write-ahead): an
 * append interrupted between the claim and the write is completed by the next append of the incident.
 */
import { ContendedError, double, epochMillis, keyword, long, opaque, type DocumentStore, type DocumentStores } from '@rag-immune/es-store';
import {
  chain,
  GENESIS_HASH,
  headMac,
  verifyChain,
  type ChainVerification,
  type EvidenceDraft,
  type EvidenceRecord,
  type LedgerHead,
  type LedgerKey,
} from './evidence-record.ts';

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
    hash_scheme: keyword,
  },
};

/** An incident's chain head, id = incident id. */
export interface LedgerHeadDocument {
  incident_id: string;
  hash: string;
  seq: number;
  /** headMac under the ledger key; null when the ledger is unkeyed. */
  mac: string | null;
  /** The records of the append that moved the head here, written after the claim (a write-ahead). */
  batch: EvidenceRecord[];
}

export const LEDGER_HEAD_MAPPINGS = {
  dynamic: 'strict' as const,
  properties: {
    incident_id: keyword,
    hash: keyword,
    seq: long,
    mac: keyword,
    batch: opaque,
  },
};

export interface EvidenceLedgerOptions {
  /** IDENTIFIER_LEDGER_KEY: records are HMAC-keyed and heads signed with it; absent: unkeyed SHA-256 (tamper-evident only). */
  key?: LedgerKey;
  /** IDENTIFIER_LEDGER_PREVIOUS_KEYS: keys retired by a rotation, newest first; verify only, never written with. */
  previousKeys?: readonly string[];
  /** IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT: when each retired key stopped signing (ms UTC), aligned with previousKeys. */
  previousKeyCutoffs?: readonly (number | undefined)[];
  /** Head compare-and-set attempts before an append gives up with ContendedError (default 5). */
  attempts?: number;
}

export class EvidenceLedger {
  private readonly docs: DocumentStore<EvidenceRecord>;
  private readonly heads: DocumentStore<LedgerHeadDocument>;
  private readonly key: LedgerKey;
  private readonly previousKeys: readonly string[];
  private readonly previousKeyCutoffs: readonly (number | undefined)[];
  private readonly attempts: number;

  constructor(
    stores: DocumentStores,
    prefix: string,
    private readonly onWrite?: (outcome: 'created' | 'existing') => void,
    options: EvidenceLedgerOptions = {},
  ) {
    this.docs = stores.open<EvidenceRecord>({
      name: `${prefix}-evidence-ledger`,
      mappings: LEDGER_MAPPINGS,
      settings: { number_of_replicas: 0 },
    });
    this.heads = stores.open<LedgerHeadDocument>({
      name: `${prefix}-evidence-ledger-heads`,
      mappings: LEDGER_HEAD_MAPPINGS,
      settings: { number_of_replicas: 0 },
    });
    this.key = options.key;
    this.previousKeys = options.previousKeys ?? [];
    this.previousKeyCutoffs = options.previousKeyCutoffs ?? [];
    this.attempts = options.attempts ?? 5;
  }

  get index(): string {
    return this.docs.index;
  }

  get headIndex(): string {
    return this.heads.index;
  }

  /** Whether records are keyed (IDENTIFIER_LEDGER_KEY configured). */
  get keyed(): boolean {
    return this.key !== undefined;
  }

  async ensureIndex(): Promise<void> {
    await this.docs.ensureIndex();
    await this.heads.ensureIndex();
  }

  /**
   * Appends drafts after the incident's chain head; returns the records and the new head. `expected`
   * is the head the incident knows: when the ledger's head has moved past it with exactly these
   * drafts (a redelivery after a crash between the append and the incident's save), the records
   * already there are returned and nothing is added. Otherwise the drafts go after the ledger's head,
   * claimed under compare-and-set first. Create-only: an id that exists already is left as it is.
   */
  async append(
    incidentId: string,
    expected: LedgerHead,
    drafts: readonly EvidenceDraft[],
  ): Promise<{ records: EvidenceRecord[]; head: LedgerHead }> {
    if (drafts.length === 0) return { records: [], head: expected };
    for (let attempt = 0; attempt < this.attempts; attempt += 1) {
      const current = await this.heads.get(incidentId);
      // No head document: a new chain, or one written before head documents (its head is the incident's).
      const at: LedgerHead = current ? { hash: current.doc.hash, seq: current.doc.seq } : expected;
      if (current && at.hash !== expected.hash) {
        // The head moved past what the incident knows: another replica's append, or one that was
        // interrupted. Its claimed records first (idempotent), then: are these drafts already in?
        await this.write(current.doc.batch);
        const replay = chain(incidentId, expected, drafts, this.key);
        if (await this.alreadyChained(replay.records, at)) return replay;
      }
      const placed = chain(incidentId, at, drafts, this.key);
      const claimed = await this.heads.replace(incidentId, this.headDocument(incidentId, placed), current);
      // Another replica claimed this head first: re-read it and chain after its records.
      if (!claimed) continue;
      await this.write(placed.records);
      return placed;
    }
    throw new ContendedError(this.heads.index, incidentId, this.attempts);
  }

  /** The ids of `ids` that the ledger holds for this incident. */
  async existing(incidentId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const found = await this.docs.getMany([...new Set(ids)]);
    return new Set(found.filter((v) => v.doc.incident_id === incidentId).map((v) => v.id));
  }

  /**
   * The incident's evidence: the records on its chain from the ledger's head back to genesis, in
   * chain order. A record off the chain (a fork, an insertion) is never served. `anchor` (the
   * incident's head) stands in for the head of a ledger written before head documents.
   */
  async records(incidentId: string, anchor?: LedgerHead): Promise<EvidenceRecord[]> {
    const { stored, head } = await this.withClaimed(incidentId);
    const byId = new Map(stored.map(({ id, record }) => [id, record]));
    const newest = stored.map(({ record }) => record).sort((a, b) => b.seq - a.seq || (a.record_id < b.record_id ? -1 : 1))[0];
    const tip = head ? head.doc.hash : anchor && anchor.hash !== GENESIS_HASH ? anchor.hash : newest?.record_id;
    const out: EvidenceRecord[] = [];
    const seen = new Set<string>();
    for (let cursor = tip; cursor !== undefined && cursor !== GENESIS_HASH && !seen.has(cursor);) {
      const record = byId.get(cursor);
      if (record === undefined || record.incident_id !== incidentId) break;
      seen.add(cursor);
      out.push(record);
      cursor = record.prev_hash;
    }
    return out.reverse();
  }

  /**
   * One page of the incident's chain, newest first in the walk and returned in chain order: up to
   * `limit` records from `before` (a record hash and its sequence, the `next` of the previous page;
   * absent: the ledger's head) back towards genesis. Only that sequence range is read from
   * Elasticsearch, so a long chain is never loaded whole, and only records on the chain are served
   * (each page continues from the hash its predecessor page's oldest record names). `next` is null at genesis.
   */
  async page(
    incidentId: string,
    options: { before?: LedgerHead; limit: number; anchor?: LedgerHead },
  ): Promise<{ records: EvidenceRecord[]; next: LedgerHead | null }> {
    const limit = Math.max(1, Math.floor(options.limit));
    let from = options.before;
    const head = from === undefined ? await this.heads.get(incidentId) : undefined;
    if (from === undefined)
      from = head
        ? { hash: head.doc.hash, seq: head.doc.seq }
        : options.anchor && options.anchor.hash !== GENESIS_HASH
          ? options.anchor
          : undefined;
    if (from === undefined || from.hash === GENESIS_HASH || from.seq < 1) return { records: [], next: null };
    await this.docs.refresh();
    const lowest = Math.max(1, from.seq - limit + 1);
    const byId = new Map<string, EvidenceRecord>();
    for await (const hit of this.docs.scan({
      where: { incident_id: incidentId, seq: { gte: lowest, lte: from.seq } },
      sort: [{ seq: 'asc' }, { record_id: 'asc' }],
      pageSize: Math.min(limit, 1000),
    }))
      byId.set(hit.id, hit.doc);
    // Claimed, not yet written (an append in flight or interrupted): the head document holds them.
    for (const record of head?.doc.batch ?? []) if (!byId.has(record.record_id)) byId.set(record.record_id, record);
    const out: EvidenceRecord[] = [];
    let cursor = from.hash;
    while (out.length < limit && cursor !== GENESIS_HASH) {
      const record = byId.get(cursor);
      if (record === undefined || record.incident_id !== incidentId) break;
      out.push(record);
      cursor = record.prev_hash;
    }
    const oldest = out.at(-1);
    const next =
      oldest === undefined || oldest.prev_hash === GENESIS_HASH || out.length < limit
        ? null
        : { hash: oldest.prev_hash, seq: oldest.seq - 1 };
    return { records: out.reverse(), next };
  }

  /** The incident's records among `ids` (the ones a report cites), read by id: never the whole chain. */
  async recordsById(incidentId: string, ids: readonly string[]): Promise<EvidenceRecord[]> {
    const unique = [...new Set(ids)];
    const out: EvidenceRecord[] = [];
    for (let i = 0; i < unique.length; i += 1000) {
      const found = await this.docs.getMany(unique.slice(i, i + 1000));
      for (const { doc } of found) if (doc.incident_id === incidentId) out.push(doc);
    }
    return out;
  }

  /**
   * Verifies the incident's chain from the ledger's head (see verifyChain): hashes (HMACs when
   * keyed), links, no orphans, a signed head for a keyed chain, and `anchor`, the incident's own
   * head kept in the incidents index, on the chain. `externalAnchors` are heads kept outside
   * Elasticsearch (the `ledger_head` of the incident's RootCauseReports in Kafka): a ledger behind
   * the newest of them was cut back, and fails.
   */
  async verify(incidentId: string, anchor?: LedgerHead, externalAnchors: readonly LedgerHead[] = []): Promise<ChainVerification> {
    let { stored, head } = await this.withClaimed(incidentId);
    // The head is read before the records: an append that claimed a newer head in between left its
    // records beyond the head read, which would look like orphans (a fork) though they chain after it
    // (an effector refused a sound report as ledger_truncated while promoted traffic replays were
    // appended to its incident, traffic bench 2026-12-07). Re-read until the head covers every stored
    // record; a record forged beyond the head is never covered and stays an orphan.
    const beyondHead = () => {
      const seq = head?.doc.seq;
      return seq !== undefined && stored.some(({ record }) => record.seq > seq);
    };
    for (let reread = 0; reread < 3 && beyondHead(); reread++) ({ stored, head } = await this.withClaimed(incidentId));
    const tip = head ? { hash: head.doc.hash, seq: head.doc.seq } : anchor && anchor.hash !== GENESIS_HASH ? anchor : undefined;
    return verifyChain(incidentId, stored, tip, {
      key: this.key,
      previousKeys: this.previousKeys,
      previousKeyCutoffs: this.previousKeyCutoffs,
      externalAnchors,
      ...(head ? { headMac: head.doc.mac } : {}),
      ...(anchor ? { anchor } : {}),
    });
  }

  private headDocument(incidentId: string, placed: { records: EvidenceRecord[]; head: LedgerHead }): LedgerHeadDocument {
    return {
      incident_id: incidentId,
      hash: placed.head.hash,
      seq: placed.head.seq,
      mac: this.key === undefined ? null : headMac(this.key, incidentId, placed.head),
      batch: placed.records,
    };
  }

  /** Whether `records` (chained after some head) are all in the ledger and the last one is `at` or below it. */
  private async alreadyChained(records: readonly EvidenceRecord[], at: LedgerHead): Promise<boolean> {
    const last = records.at(-1);
    if (last === undefined || last.seq > at.seq) return false;
    if (last.record_id === at.hash) return true;
    const found = await this.docs.getMany(records.map((r) => r.record_id));
    return found.length === records.length;
  }

  private async write(records: readonly EvidenceRecord[]): Promise<void> {
    if (records.length === 0) return;
    const outcomes = await this.docs.createMany(records.map((record) => ({ id: record.record_id, doc: record })));
    for (const outcome of outcomes) this.onWrite?.(outcome === 'created' ? 'created' : 'existing');
  }

  /**
   * The incident's stored records and its head document, with the records the head claims and an
   * append has not written yet (in flight, or interrupted by a crash) taken from the head document:
   * they are chained and, keyed, signed like any other, and the next append writes them. The head is
   * read first: an append writes its predecessor's claimed records before it claims, so everything
   * older than the head's own batch is in the index by then. (Read in the other order, or without the
   * batch, an append in flight made a chain look cut back: an effector refused a sound report as
   * `ledger_truncated` while traffic anomalies were being appended to its incident.)
   */
  private async withClaimed(
    incidentId: string,
  ): Promise<{ stored: { id: string; record: EvidenceRecord }[]; head: Awaited<ReturnType<DocumentStore<LedgerHeadDocument>['get']>> }> {
    const head = await this.heads.get(incidentId);
    const stored = await this.stored(incidentId);
    const have = new Set(stored.map(({ id }) => id));
    for (const record of head?.doc.batch ?? [])
      if (!have.has(record.record_id) && record.incident_id === incidentId) stored.push({ id: record.record_id, record });
    return { stored, head };
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
