import type { ClaimKind } from '../detectors/root-cause-detector.ts';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson, contentHash } from './canonical-json.ts';

/** prev_hash of an incident's first record. */
export const GENESIS_HASH = '0'.repeat(64);

/** The keyed scheme's name as records carry it. */
export const KEYED_SCHEME = 'hmac-sha256';

export type EvidenceKind = 'measurement' | 'trace_unavailable' | 'verdict';

/** What one evidence record says; its SHA-256 (canonical JSON) is its id. */
export interface EvidenceContent {
  incident_id: string;
  /** 1-based position in the incident's chain. */
  seq: number;
  /** record_id of the previous record of this incident (GENESIS_HASH for the first). */
  prev_hash: string;
  kind: EvidenceKind;
  probe_event_id: string | null;
  probe_id: string | null;
  /** The detector (cause) that measured it, or null for trace-level facts and verdicts. */
  detector: string | null;
  claim_kind: ClaimKind | null;
  subject: string;
  metric: string;
  observed: number;
  baseline: number | null;
  /** When the measured thing happened (the ProbeResult's occurred_at), ms UTC: never the write time, so a replay hashes the same. */
  occurred_at: number;
  /** Extra facts (trace ids, versions, hashes), part of the hashed content. */
  detail: Record<string, unknown>;
  /**
   * How the record's id was made (part of the hashed content): `hmac-sha256` = HMAC-SHA256 under the
   * ledger key (IDENTIFIER_LEDGER_KEY) of prev_hash followed by the canonical JSON; absent = the
   * unkeyed SHA-256 of the canonical JSON (development, and every record written before keys).
   */
  hash_scheme?: typeof KEYED_SCHEME;
}

export interface EvidenceRecord extends EvidenceContent {
  record_id: string;
}

/** A record as the chain needs it before it has a position. */
export type EvidenceDraft = Omit<EvidenceContent, 'incident_id' | 'seq' | 'prev_hash' | 'hash_scheme'>;

export interface LedgerHead {
  hash: string;
  seq: number;
}

export const EMPTY_HEAD: LedgerHead = { hash: GENESIS_HASH, seq: 0 };

/** The secret records and heads are keyed with (IDENTIFIER_LEDGER_KEY); undefined: unkeyed. */
export type LedgerKey = string | undefined;

/** A keyed record hashed (made or checked) without the key. */
export class LedgerKeyMissingError extends Error {
  constructor() {
    super(`a keyed record (${KEYED_SCHEME}) needs the ledger key (IDENTIFIER_LEDGER_KEY), and none is configured`);
    this.name = 'LedgerKeyMissingError';
  }
}

/**
 * A record's id: the unkeyed SHA-256 of its canonical JSON, or, for a keyed record, HMAC-SHA256
 * under the ledger key of prev_hash followed by the canonical JSON (which names the scheme, so a
 * record cannot be relabelled without changing its id).
 */
export function recordIdOf(content: EvidenceContent, key?: LedgerKey): string {
  if (content.hash_scheme === undefined) return contentHash(content);
  if (content.hash_scheme !== KEYED_SCHEME) throw new TypeError(`unknown hash scheme ${String(content.hash_scheme)}`);
  if (key === undefined) throw new LedgerKeyMissingError();
  return createHmac('sha256', key).update(content.prev_hash).update(canonicalJson(content)).digest('hex');
}

/** The MAC of an incident's chain head (domain-separated from record ids). */
export function headMac(key: string, incidentId: string, head: LedgerHead): string {
  return createHmac('sha256', key)
    .update(canonicalJson({ purpose: 'rag-immune evidence ledger head', incident_id: incidentId, hash: head.hash, seq: head.seq }))
    .digest('hex');
}

const sameHex = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Places drafts after `head` in the incident's chain: each record names the previous one's hash.
 * With a key every record is keyed (`hash_scheme: hmac-sha256`); without one, unkeyed SHA-256.
 */
export function chain(
  incidentId: string,
  head: LedgerHead,
  drafts: readonly EvidenceDraft[],
  key?: LedgerKey,
): { records: EvidenceRecord[]; head: LedgerHead } {
  const records: EvidenceRecord[] = [];
  let current = head;
  for (const draft of drafts) {
    const content: EvidenceContent = {
      ...draft,
      incident_id: incidentId,
      seq: current.seq + 1,
      prev_hash: current.hash,
      ...(key === undefined ? {} : { hash_scheme: KEYED_SCHEME }),
    };
    const recordId = recordIdOf(content, key);
    records.push({ ...content, record_id: recordId });
    current = { hash: recordId, seq: content.seq };
  }
  return { records, head: current };
}

export function contentOf(record: EvidenceRecord): EvidenceContent {
  const { record_id: _id, ...content } = record;
  return content;
}

/** Whether `record` is what its id says: its id recomputed (with the key when it is keyed) matches. */
export function recordMatches(record: EvidenceRecord, id: string, key?: LedgerKey): boolean {
  return record.record_id === id && sameHex(recordIdOf(contentOf(record), key), id);
}

/**
 * Which key of the keyring (newest first: the ledger key, then the retired ones) a keyed record was
 * written under; -1 when none of them makes its id. Records carry no key id (so the strict mapping of
 * ledgers written before rotation needs no new field): the keyring is small, each key is tried.
 */
export function keyIndexOf(record: EvidenceRecord, id: string, keyring: readonly string[]): number {
  return keyring.findIndex((key) => recordMatchesSafely(record, id, key));
}

export interface ChainVerification {
  incident_id: string;
  ok: boolean;
  /** Records on the chain from the head back to genesis. */
  records: number;
  head: string | null;
  /**
   * Whether a key protects the chain: a key is configured, the head's record is keyed and the head
   * is signed. false: the chain is only tamper-evident (anyone who can write the ledger's indices
   * can rewrite it whole and recompute every hash), not tamper-proof.
   */
  keyed: boolean;
  /** Records on the chain hashed without a key (written before a key was configured, or without one). */
  unkeyed_records: number;
  /** Records on the chain keyed under a retired key (IDENTIFIER_LEDGER_PREVIOUS_KEYS), written before a rotation. */
  retired_key_records: number;
  /** Records of the incident not on the chain from its head (a lost append race, or an insertion): each one fails verification. */
  orphans: string[];
  problems: { record_id: string; seq: number | null; problem: string }[];
}

export interface VerifyOptions {
  /** The ledger key; keyed records and signed heads are checked with it. */
  key?: LedgerKey;
  /**
   * Keys retired by a rotation (IDENTIFIER_LEDGER_PREVIOUS_KEYS), newest first: records and heads
   * written under them still verify, but never one written under a retired key after a record
   * under a newer one (whoever holds an old key cannot extend a chain past the rotation).
   */
  previousKeys?: readonly string[];
  /**
   * The MAC of `head` from its head document, null when that document is unsigned; undefined when
   * there is no head document (a ledger written before them: `head` is the incident's own).
   */
  headMac?: string | null;
  /**
   * The incident document's head, kept outside the ledger's indices: it must be on the chain (the
   * ledger's head may be ahead of it, never behind or beside it).
   */
  anchor?: LedgerHead;
  /**
   * Heads published outside Elasticsearch (the `ledger_head` of RootCauseReports, which Kafka keeps):
   * the newest must be on the chain, and a ledger whose head is older than it was cut back (newer
   * records removed, an old signed head restored) even when every hash and MAC left still checks.
   */
  externalAnchors?: readonly LedgerHead[];
  /**
   * When each retired key stopped signing (ms UTC), aligned with previousKeys (undefined: no cut-off
   * given). A record under a retired key that happened after its cut-off was forged with a leaked key.
   */
  previousKeyCutoffs?: readonly (number | undefined)[];
}

/** A retired ledger key and when it stopped signing (IDENTIFIER_LEDGER_PREVIOUS_KEYS `key@ISO-time`). */
export interface RetiredLedgerKey {
  key: string;
  /** ms UTC; records under the key that happened later are refused. */
  retiredAt?: number;
}

/**
 * Checks an incident's chain: every record's id is the hash (or, keyed, the HMAC) of its content;
 * the chain runs unbroken from the head back to genesis, its first record naming genesis; no record
 * of the incident is off the chain; the head is signed when the chain is keyed; the incident's own
 * head is on the chain. Without a head (none given) a chain with records fails: nothing says where
 * it ends, so a truncation could not be seen.
 */
export function verifyChain(
  incidentId: string,
  stored: readonly { id: string; record: EvidenceRecord }[],
  head?: LedgerHead,
  options: VerifyOptions = {},
): ChainVerification {
  const { key } = options;
  const keyring = key === undefined ? [] : [key, ...(options.previousKeys ?? [])];
  const problems: ChainVerification['problems'] = [];
  const byId = new Map<string, EvidenceRecord>();
  // Per keyed record, the keyring position of the key it was written under (0 = the ledger key).
  const keyIndex = new Map<string, number>();
  for (const { id, record } of stored) {
    const keyed = record.hash_scheme !== undefined;
    if (keyed && key === undefined)
      problems.push({ record_id: id, seq: record.seq ?? null, problem: 'keyed record: no ledger key (IDENTIFIER_LEDGER_KEY) to check it' });
    else if (keyed) {
      const index = keyIndexOf(record, id, keyring);
      if (index < 0)
        problems.push({
          record_id: id,
          seq: record.seq ?? null,
          problem: 'content HMAC does not match its id under the ledger key or any retired key (tampered, or written under another key)',
        });
      else keyIndex.set(id, index);
    } else if (!recordMatchesSafely(record, id, key))
      problems.push({ record_id: id, seq: record.seq ?? null, problem: `content hash ${safeId(record)} does not match its id` });
    if (record.incident_id !== incidentId)
      problems.push({ record_id: id, seq: record.seq ?? null, problem: 'belongs to another incident' });
    byId.set(id, record);
  }

  if (head === undefined && byId.size > 0)
    problems.push({
      record_id: GENESIS_HASH,
      seq: null,
      problem: `no head: nothing says where the chain of ${byId.size} records ends (truncated, or its head removed)`,
    });
  const start = head?.hash ?? [...byId.values()].sort((a, b) => b.seq - a.seq)[0]?.record_id ?? GENESIS_HASH;
  const visited = new Set<string>();
  let cursor = start;
  let expectedSeq = head?.seq ?? byId.get(start)?.seq ?? 0;
  let newestUnkeyed: EvidenceRecord | undefined;
  let downgradeSeen = false;
  let unkeyed = 0;
  let retired = 0;
  // Walking back from the head, keys may only get older (a larger keyring position), never newer.
  let newerKeyed: { id: string; index: number } | undefined;
  while (cursor !== GENESIS_HASH) {
    const record = byId.get(cursor);
    if (record === undefined) {
      problems.push({
        record_id: cursor,
        seq: expectedSeq,
        problem:
          cursor === start
            ? 'missing head: the chain ends at a record that does not exist (truncated)'
            : 'missing: the chain points to a record that does not exist (truncated)',
      });
      break;
    }
    if (visited.has(cursor)) {
      problems.push({ record_id: cursor, seq: record.seq, problem: 'cycle' });
      break;
    }
    if (record.seq !== expectedSeq)
      problems.push({ record_id: cursor, seq: record.seq, problem: `sequence ${record.seq}, expected ${expectedSeq}` });
    // Keys only ever start: an unkeyed record newer than a keyed one was written without the key.
    if (record.hash_scheme === undefined) {
      unkeyed += 1;
      newestUnkeyed ??= record;
    } else if (newestUnkeyed !== undefined && !downgradeSeen) {
      downgradeSeen = true;
      problems.push({
        record_id: newestUnkeyed.record_id,
        seq: newestUnkeyed.seq,
        problem: `unkeyed record after keyed record ${cursor} (a downgraded rewrite)`,
      });
    }
    const index = keyIndex.get(cursor);
    if (index !== undefined) {
      if (index > 0) retired += 1;
      const cutoff = index > 0 ? options.previousKeyCutoffs?.[index - 1] : undefined;
      if (cutoff !== undefined && record.occurred_at > cutoff)
        problems.push({
          record_id: cursor,
          seq: record.seq,
          problem: `written under ${keyName(index)} for ${new Date(record.occurred_at).toISOString()}, after its cut-off ${new Date(cutoff).toISOString()} (a forgery with a retired key)`,
        });
      if (newerKeyed !== undefined && index < newerKeyed.index)
        problems.push({
          record_id: newerKeyed.id,
          seq: byId.get(newerKeyed.id)?.seq ?? null,
          problem: `written under a retired key after record ${cursor}, which is under a newer key (a forgery with an old key)`,
        });
      newerKeyed = { id: cursor, index };
    }
    if (record.seq === 1 && record.prev_hash !== GENESIS_HASH)
      problems.push({ record_id: cursor, seq: 1, problem: 'truncated: the first record names a predecessor, not genesis' });
    visited.add(cursor);
    cursor = record.prev_hash;
    expectedSeq -= 1;
  }
  if (cursor === GENESIS_HASH && expectedSeq !== 0)
    problems.push({ record_id: GENESIS_HASH, seq: expectedSeq, problem: 'chain reaches genesis early' });

  const orphans = [...byId.keys()].filter((id) => !visited.has(id));
  for (const id of orphans)
    problems.push({
      record_id: id,
      seq: byId.get(id)!.seq ?? null,
      problem: 'orphan: not on the chain from the head (a fork or an insertion)',
    });

  // The head. With a key configured every head document must be signed by it (an unsigned one was
  // written without the key, or rewritten by someone without it); without head documents (a ledger
  // written before them) the head is the incident's own, and a keyed chain always has one.
  const headRecord = byId.get(start);
  const headKeyed = headRecord !== undefined && headRecord.hash_scheme !== undefined;
  let headSigned = false;
  const headProblem = (problem: string) => problems.push({ record_id: start, seq: head?.seq ?? null, problem });
  if (head !== undefined) {
    if (options.headMac === undefined) {
      if (headKeyed) headProblem('keyed chain without its signed head document (removed, or rewritten)');
    } else if (options.headMac === null) {
      if (key !== undefined || headKeyed)
        headProblem('unsigned head while the ledger is keyed (written without the key, or rewritten by someone without it)');
    } else if (key === undefined) {
      headProblem('signed head: no ledger key (IDENTIFIER_LEDGER_KEY) to check it');
    } else {
      const mac = options.headMac;
      const signedWith = keyring.findIndex((candidate) => sameHex(headMac(candidate, incidentId, head), mac));
      const recordKey = keyIndex.get(start);
      if (signedWith < 0) headProblem("head's MAC does not match (a forged or rewritten head)");
      // The head is signed in the same append as its record: by the same key.
      else if (recordKey !== undefined && signedWith !== recordKey)
        headProblem(`head signed under ${keyName(signedWith)}, its record under ${keyName(recordKey)} (a head re-signed with another key)`);
      else headSigned = true;
    }
  }

  // The incident's own head (outside the ledger's indices) must be on the chain.
  const anchor = options.anchor;
  if (anchor !== undefined && anchor.hash !== GENESIS_HASH) {
    const anchored = byId.get(anchor.hash);
    if (!visited.has(anchor.hash) || anchored?.seq !== anchor.seq)
      problems.push({
        record_id: anchor.hash,
        seq: anchor.seq,
        problem: "the incident's head is not on the ledger's chain (truncated, or rewritten)",
      });
  }

  // The newest head published outside the ledger's store: a ledger behind it was truncated.
  const newest = [...(options.externalAnchors ?? [])].sort((a, b) => b.seq - a.seq)[0];
  if (newest !== undefined && newest.hash !== GENESIS_HASH) {
    const at = head?.seq ?? byId.get(start)?.seq ?? 0;
    if (newest.seq > at)
      problems.push({
        record_id: newest.hash,
        seq: newest.seq,
        problem: `truncated: the ledger's head is at sequence ${at}, behind sequence ${newest.seq} published in a RootCauseReport (newer records removed, an older head restored)`,
      });
    else if (!visited.has(newest.hash) || byId.get(newest.hash)?.seq !== newest.seq)
      problems.push({
        record_id: newest.hash,
        seq: newest.seq,
        problem: 'a head published in a RootCauseReport is not on the chain (rewritten)',
      });
  }

  return {
    incident_id: incidentId,
    ok: problems.length === 0,
    records: visited.size,
    head: start === GENESIS_HASH ? null : start,
    keyed: key !== undefined && (start === GENESIS_HASH || (headKeyed && headSigned)),
    unkeyed_records: unkeyed,
    retired_key_records: retired,
    orphans,
    problems,
  };
}

/** recordMatches that says false (rather than throwing) for an unknown scheme or a missing key. */
function recordMatchesSafely(record: EvidenceRecord, id: string, key: LedgerKey): boolean {
  try {
    return recordMatches(record, id, key);
  } catch {
    return false;
  }
}

const keyName = (index: number) => (index === 0 ? 'the ledger key' : `retired key ${String(index)}`);

function safeId(record: EvidenceRecord): string {
  try {
    return recordIdOf(contentOf(record));
  } catch {
    return '(unhashable)';
  }
}
