import type { ClaimKind } from '../detectors/root-cause-detector.ts';
import { contentHash } from './canonical-json.ts';

/** prev_hash of an incident's first record. */
export const GENESIS_HASH = '0'.repeat(64);

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
}

export interface EvidenceRecord extends EvidenceContent {
  record_id: string;
}

/** A record as the chain needs it before it has a position. */
export type EvidenceDraft = Omit<EvidenceContent, 'incident_id' | 'seq' | 'prev_hash'>;

export interface LedgerHead {
  hash: string;
  seq: number;
}

export const EMPTY_HEAD: LedgerHead = { hash: GENESIS_HASH, seq: 0 };

export function recordIdOf(content: EvidenceContent): string {
  return contentHash(content);
}

/** Places drafts after `head` in the incident's chain: each record names the previous one's hash. */
export function chain(
  incidentId: string,
  head: LedgerHead,
  drafts: readonly EvidenceDraft[],
): { records: EvidenceRecord[]; head: LedgerHead } {
  const records: EvidenceRecord[] = [];
  let current = head;
  for (const draft of drafts) {
    const content: EvidenceContent = { ...draft, incident_id: incidentId, seq: current.seq + 1, prev_hash: current.hash };
    const recordId = recordIdOf(content);
    records.push({ ...content, record_id: recordId });
    current = { hash: recordId, seq: content.seq };
  }
  return { records, head: current };
}

export function contentOf(record: EvidenceRecord): EvidenceContent {
  const { record_id: _id, ...content } = record;
  return content;
}

export interface ChainVerification {
  incident_id: string;
  ok: boolean;
  records: number;
  head: string | null;
  /** Records of the incident not on the chain from its head (a replica's lost race, or an insertion). */
  orphans: string[];
  problems: { record_id: string; seq: number | null; problem: string }[];
}

/**
 * Checks an incident's chain: every record's id is the hash of its content, each names the previous
 * one, the chain runs unbroken from the head back to genesis.
 */
export function verifyChain(
  incidentId: string,
  stored: readonly { id: string; record: EvidenceRecord }[],
  head?: LedgerHead,
): ChainVerification {
  const problems: ChainVerification['problems'] = [];
  const byId = new Map<string, EvidenceRecord>();
  for (const { id, record } of stored) {
    const recomputed = recordIdOf(contentOf(record));
    if (recomputed !== id || record.record_id !== id)
      problems.push({ record_id: id, seq: record.seq ?? null, problem: `content hash ${recomputed} does not match its id` });
    if (record.incident_id !== incidentId)
      problems.push({ record_id: id, seq: record.seq ?? null, problem: 'belongs to another incident' });
    byId.set(id, record);
  }
  const start = head?.hash ?? [...byId.values()].sort((a, b) => b.seq - a.seq)[0]?.record_id ?? GENESIS_HASH;
  const visited = new Set<string>();
  let cursor = start;
  let expectedSeq = head?.seq ?? byId.get(start)?.seq ?? 0;
  while (cursor !== GENESIS_HASH) {
    const record = byId.get(cursor);
    if (record === undefined) {
      problems.push({ record_id: cursor, seq: expectedSeq, problem: 'missing: the chain points to a record that does not exist' });
      break;
    }
    if (visited.has(cursor)) {
      problems.push({ record_id: cursor, seq: record.seq, problem: 'cycle' });
      break;
    }
    if (record.seq !== expectedSeq)
      problems.push({ record_id: cursor, seq: record.seq, problem: `sequence ${record.seq}, expected ${expectedSeq}` });
    visited.add(cursor);
    cursor = record.prev_hash;
    expectedSeq -= 1;
  }
  if (cursor === GENESIS_HASH && expectedSeq !== 0)
    problems.push({ record_id: GENESIS_HASH, seq: expectedSeq, problem: 'chain reaches genesis early' });
  return {
    incident_id: incidentId,
    ok: problems.length === 0,
    records: visited.size,
    head: start === GENESIS_HASH ? null : start,
    orphans: [...byId.keys()].filter((id) => !visited.has(id)),
    problems,
  };
}
