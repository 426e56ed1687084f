/**
 * What changed in the online index against the frozen baseline's, for some knowledge ids: the
 * evidence a data fault leaves in the store itself, whatever the query path shows. Chunks are
 * matched by their text (content identity survives a relabelling), then their identity fields,
 * validity and vectors are compared. Online-only chunks of a version the baseline cannot know yet
 * (published after its pin) are the online knowledge moving on, not a change.
 */
import { SAME_VECTOR_MIN_COSINE, vectorCosine } from '@rag-immune/rag-contract';

export interface IndexChunk {
  point_id: string;
  knowledge_id: string;
  doc_id: string | null;
  chunk_id: string | null;
  version: string | null;
  valid_from: string | null;
  valid_until: string | null;
  text: string;
  vector: number[] | null;
}

/** Online-only chunks of one version of one knowledge id. */
export interface OnlineOnlyVersion {
  knowledge_id: string;
  version: string | null;
  chunks: number;
  /** Whether the baseline holds chunks of this version of this knowledge id. */
  in_baseline: boolean;
}

/** The kinds of change the diff tells apart (the report's IndexChangeKind, less `unknown`). */
export type IndexChangeKind =
  'missing' | 'added' | 'relabelled' | 'payload_changed' | 'text_changed' | 'vector_moved' | 'alias_target_changed';

/** One changed chunk: which field, its value before (baseline) and after (online), shortened. */
export interface IndexChange {
  kind: IndexChangeKind;
  knowledge_id: string;
  /** The online point's id; the baseline's when the chunk is missing online. */
  point_id: string;
  chunk: string;
  field: string;
  before: string | null;
  after: string | null;
}

/** Which collections were compared, and what each alias pointed at when read (null: not an alias). */
export interface ComparedCollections {
  online: string;
  baseline: string;
  online_target: string | null;
  baseline_target: string | null;
  /** The online alias's target at the previous read, when it has changed since (null: unchanged, or first read). */
  online_target_before: string | null;
}

export interface IndexDiff {
  knowledge_ids: string[];
  online_points: number;
  baseline_points: number;
  /** Baseline chunks with no online chunk of the same text: deleted or overwritten beyond recognition. */
  missing: number;
  /** Online chunks the baseline lacks, of versions valid from before the baseline's pin (it should know them). */
  added_unexpected: number;
  /** Of those, chunks of a version the baseline never had for that knowledge id (no feed published it by the pin). */
  added_unknown_version: number;
  /** Online chunks of versions published after the baseline's pin: the online knowledge moved on. */
  added_after_pin: number;
  /** Same text, another knowledge id or document: the chunk's attribution changed. */
  relabelled: number;
  /** Same text and identity, another version or validity window (not explained by a newer version). */
  payload_changed: number;
  /**
   * Of payload_changed, chunks whose only change is a validity window closed (valid_until set where
   * the baseline's is open, same version and valid_from): the knowledge was superseded online.
   */
  windows_closed: number;
  /**
   * The online-only chunks (added_unexpected and added_after_pin) by knowledge id and version, and
   * whether the baseline has that version of that id: which knowledge the online index gained.
   */
  online_only_versions: OnlineOnlyVersion[];
  /**
   * Same chunk (chunk id, or vector unchanged), its text rewritten with its vector intact: edited in
   * place, since any ingest (a re-parse included) re-embeds what it rewrites. Rewritten and
   * re-embedded counts as a moved vector instead.
   */
  text_changed: number;
  /** Same chunk, vector no longer the baseline's (cosine below VECTOR_MOVED_COSINE). */
  vectors_moved: number;
  /**
   * Of vectors_moved, chunks whose text changed too (matched by chunk id): rewritten and re-embedded,
   * which is what a re-parse does. A corrupt index moves vectors under unchanged text.
   */
  text_reembedded: number;
  /** Lowest cosine between a matched chunk's two vectors (null: no vectors compared). */
  min_vector_cosine: number | null;
  /** A few changes of each kind, for the report and the on-call engineer. */
  examples: IndexChange[];
  /** Set by the reader of a real index; null from a bare diff. */
  collections: ComparedCollections | null;
}

/** Same text embedded by the same model gives the same vector up to float noise (the effector's restore reads it too). */
export const VECTOR_MOVED_COSINE = SAME_VECTOR_MIN_COSINE;
const MAX_EXAMPLES = 8;
/** Examples carry short values: a report is a bus event, not a copy of the index. */
const MAX_VALUE_CHARS = 80;

export const shortValue = (value: string | null): string | null =>
  value === null || value.length <= MAX_VALUE_CHARS ? value : `${value.slice(0, MAX_VALUE_CHARS - 1)}…`;

const label = (c: IndexChunk): string => c.chunk_id ?? `${c.doc_id ?? c.knowledge_id}@${c.version ?? '?'}#${c.point_id}`;

/**
 * The diff of the online chunks against the baseline's. `baselinePinnedAt` (the baseline's "as of"):
 * online-only chunks valid from after it are expected; without it every online-only chunk is
 * counted as unexpected only when its version is unknown to the baseline for that knowledge id.
 */
export function diffIndexes(
  knowledgeIds: readonly string[],
  online: readonly IndexChunk[],
  baseline: readonly IndexChunk[],
  baselinePinnedAt?: Date,
): IndexDiff {
  const diff: IndexDiff = {
    knowledge_ids: [...knowledgeIds],
    online_points: online.length,
    baseline_points: baseline.length,
    missing: 0,
    added_unexpected: 0,
    added_unknown_version: 0,
    added_after_pin: 0,
    relabelled: 0,
    payload_changed: 0,
    windows_closed: 0,
    online_only_versions: [],
    text_changed: 0,
    vectors_moved: 0,
    text_reembedded: 0,
    min_vector_cosine: null,
    examples: [],
    collections: null,
  };
  const perKind = Math.ceil(MAX_EXAMPLES / 4);
  const example = (kind: IndexChangeKind, chunk: IndexChunk, field: string, before: string | null, after: string | null) => {
    if (diff.examples.length >= MAX_EXAMPLES || diff.examples.filter((e) => e.kind === kind).length >= perKind) return;
    diff.examples.push({
      kind,
      knowledge_id: chunk.knowledge_id,
      point_id: chunk.point_id,
      chunk: label(chunk),
      field,
      before: shortValue(before),
      after: shortValue(after),
    });
  };
  const byText = new Map<string, IndexChunk[]>();
  for (const chunk of online) byText.set(chunk.text, [...(byText.get(chunk.text) ?? []), chunk]);
  const matched = new Set<IndexChunk>();
  const lost: IndexChunk[] = [];
  const pairs: [IndexChunk, IndexChunk][] = [];

  for (const b of baseline) {
    const candidates = (byText.get(b.text) ?? []).filter((o) => !matched.has(o));
    // The same text may be there twice (a version ingested whose text does not name its version):
    // the chunk of the baseline's own version is the baseline chunk, the other one was added.
    const sameIdentity = candidates.filter((o) => o.knowledge_id === b.knowledge_id && o.doc_id === b.doc_id);
    const same = sameIdentity.find((o) => o.version === b.version) ?? sameIdentity[0] ?? candidates[0];
    if (same === undefined) lost.push(b);
    else {
      matched.add(same);
      pairs.push([b, same]);
    }
  }
  // A chunk whose text no online chunk has may still be there, its text rewritten in place: the
  // same chunk id, or the same vector (text edited after embedding, so no re-embedding moved it).
  for (const b of lost) {
    const rewritten = online.find(
      (o) =>
        !matched.has(o) &&
        o.knowledge_id === b.knowledge_id &&
        o.version === b.version &&
        ((b.chunk_id !== null && o.chunk_id === b.chunk_id) ||
          (o.vector !== null && b.vector !== null && vectorCosine(o.vector, b.vector) >= VECTOR_MOVED_COSINE)),
    );
    if (rewritten === undefined) {
      diff.missing += 1;
      example('missing', b, 'point', b.point_id, null);
      continue;
    }
    matched.add(rewritten);
    const inPlace = rewritten.vector === null || b.vector === null || vectorCosine(rewritten.vector, b.vector) >= VECTOR_MOVED_COSINE;
    if (inPlace) {
      diff.text_changed += 1;
      example('text_changed', rewritten, 'text', b.text, rewritten.text);
    }
    pairs.push([b, rewritten]);
  }
  for (const [b, same] of pairs) {
    if (same.knowledge_id !== b.knowledge_id || same.doc_id !== b.doc_id) {
      diff.relabelled += 1;
      example('relabelled', same, same.knowledge_id !== b.knowledge_id ? 'knowledge_id' : 'doc_id', ...identity(b, same));
    } else if (same.version !== b.version || same.valid_from !== b.valid_from || !validUntilExplained(b, same, online)) {
      diff.payload_changed += 1;
      if (same.version === b.version && same.valid_from === b.valid_from && b.valid_until === null) diff.windows_closed += 1;
      const field = same.version !== b.version ? 'version' : same.valid_from !== b.valid_from ? 'valid_from' : 'valid_until';
      example('payload_changed', same, field, b[field], same[field]);
    }
    if (same.vector !== null && b.vector !== null) {
      const c = vectorCosine(same.vector, b.vector);
      diff.min_vector_cosine = diff.min_vector_cosine === null ? c : Math.min(diff.min_vector_cosine, c);
      if (c < VECTOR_MOVED_COSINE) {
        diff.vectors_moved += 1;
        if (same.text !== b.text) {
          diff.text_reembedded += 1;
          example('vector_moved', same, 'text', b.text, same.text);
        } else example('vector_moved', same, 'vector', 'cosine 1.000', `cosine ${c.toFixed(3)}`);
      }
    }
  }
  const baselineVersions = new Set(baseline.map((b) => `${b.knowledge_id}@${b.version}`));
  for (const o of online) {
    if (matched.has(o)) continue;
    const after = baselinePinnedAt !== undefined && o.valid_from !== null && Date.parse(o.valid_from) > baselinePinnedAt.getTime();
    const knownVersion = baselineVersions.has(`${o.knowledge_id}@${o.version}`);
    const gained = diff.online_only_versions.find((v) => v.knowledge_id === o.knowledge_id && v.version === o.version);
    if (gained === undefined)
      diff.online_only_versions.push({ knowledge_id: o.knowledge_id, version: o.version, chunks: 1, in_baseline: knownVersion });
    else gained.chunks += 1;
    if (after || (baselinePinnedAt === undefined && !knownVersion)) diff.added_after_pin += 1;
    else {
      diff.added_unexpected += 1;
      if (!knownVersion) diff.added_unknown_version += 1;
      example('added', o, 'point', null, `version ${o.version} valid from ${o.valid_from}`);
    }
  }
  return diff;
}

const identity = (b: IndexChunk, o: IndexChunk): [string, string] =>
  b.knowledge_id !== o.knowledge_id ? [b.knowledge_id, o.knowledge_id] : [b.doc_id ?? '-', o.doc_id ?? '-'];

/**
 * A baseline chunk open-ended (valid_until null) that online closes is the online knowledge moving
 * on when an online chunk of the same knowledge id begins exactly then; anything else is a change.
 */
function validUntilExplained(b: IndexChunk, o: IndexChunk, online: readonly IndexChunk[]): boolean {
  if (b.valid_until === o.valid_until) return true;
  if (b.valid_until !== null || o.valid_until === null) return false;
  return online.some((c) => c.knowledge_id === o.knowledge_id && c.valid_from === o.valid_until);
}

/** Whether the diff shows any change to the stored knowledge (the online knowledge moving on is none). */
export function indexChanged(diff: IndexDiff): boolean {
  return diff.missing + diff.added_unexpected + diff.relabelled + diff.payload_changed + diff.text_changed + diff.vectors_moved > 0;
}
