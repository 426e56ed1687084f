/**
 * The index diff as evidence for the data causes. The trace diff sees a data fault only through the
 * query path (a chunk retrieved or not), so the nearest signature wins: any retrieval change looks
 * like a corrupt index. The store itself says what changed: vectors moved or points gone support
 * vector_index_corruption, chunks relabelled support wrong_attribution, and a diff that shows
 * neither contradicts them (the verdict then names what does fit, or abstains with the diff).
 */
import { CAUSES, type IndexDiffEvidence } from '@rag-immune/contracts';
import type { DetectorVerdict, Measurement } from '../detectors/index.ts';
import { diffIndexes, indexChanged, type IndexChangeKind, type IndexChunk, type IndexDiff } from './index-diff.ts';
import type { KnowledgeIndexReader } from './index-reader.ts';

export interface IndexDiffer {
  /** The diff for these knowledge ids, or null when the index could not be read (no evidence either way). */
  diff(knowledgeIds: readonly string[]): Promise<IndexDiff | null>;
}

/** At most this many knowledge ids are diffed per probe: a fault's scope, not the corpus. */
export const MAX_DIFF_IDS = 8;
/** At most this many lost chunks are looked for elsewhere in the online index. */
const MAX_NEAREST_LOOKUPS = 16;

export class QdrantIndexDiffer implements IndexDiffer {
  constructor(
    private readonly online: KnowledgeIndexReader,
    private readonly baseline: KnowledgeIndexReader,
    private readonly baselinePinnedAt: Date | undefined,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** The online alias's target at the last read: an alias repointed since is part of what changed. */
  private lastOnlineTarget: string | null = null;

  async diff(knowledgeIds: readonly string[]): Promise<IndexDiff | null> {
    const ids = [...new Set(knowledgeIds)].slice(0, MAX_DIFF_IDS);
    if (ids.length === 0) return null;
    try {
      const [online, baseline] = await Promise.all([this.online.chunksOf(ids), this.baseline.chunksOf(ids)]);
      // A baseline chunk whose text the online knowledge lost may live on under another knowledge id
      // (a relabelling): the online chunk nearest its vector says where it went, if anywhere.
      const texts = new Set(online.map((c) => c.text));
      const lost = baseline.filter((c) => !texts.has(c.text) && c.vector !== null).slice(0, MAX_NEAREST_LOOKUPS);
      const found = (await Promise.all(lost.map((c) => this.online.nearest(c.vector!)))).filter(
        (hit): hit is IndexChunk =>
          hit !== null && lost.some((c) => c.text === hit.text) && !online.some((o) => o.point_id === hit.point_id),
      );
      const diff = diffIndexes(ids, [...online, ...found], baseline, this.baselinePinnedAt);
      const [onlineTarget, baselineTarget] = await Promise.all([
        this.online.aliasTarget?.() ?? Promise.resolve(null),
        this.baseline.aliasTarget?.() ?? Promise.resolve(null),
      ]);
      const before = this.lastOnlineTarget !== null && onlineTarget !== this.lastOnlineTarget ? this.lastOnlineTarget : null;
      this.lastOnlineTarget = onlineTarget;
      diff.collections = {
        online: this.online.collection ?? 'online',
        baseline: this.baseline.collection ?? 'baseline',
        online_target: onlineTarget,
        baseline_target: baselineTarget,
        online_target_before: before,
      };
      return diff;
    } catch (error) {
      this.onError(error);
      return null;
    }
  }
}

/** How much a cause's score keeps when the index shows none of the changes that cause makes. */
export const CONTRADICTED_WEIGHT = 0.2;

/**
 * The kinds of change a signature is made of: the report's kinds, with a moved vector told apart by
 * whether its text changed too (`vector_moved`: text unchanged; `text_reembedded`: rewritten and
 * re-embedded, reported among the contract's vectors_moved).
 */
export type SignatureChange = Exclude<IndexChangeKind, 'alias_target_changed'> | 'text_reembedded';

/**
 * The changes each catalogue data cause makes to the stored knowledge (its index signature). A
 * change of a kind outside every signature is one no catalogue cause explains: text rewritten in
 * place (a re-ingest would have re-embedded it). Added chunks are a re-cut (parser_bug) when their
 * version is one the baseline has; chunks of a version it never had, valid from before its pin,
 * were published by no feed it knows: no catalogue cause explains them (see unexplainedChanges).
 */
export const INDEX_SIGNATURES: Readonly<Partial<Record<DetectorVerdict['cause'], readonly SignatureChange[]>>> = {
  // Corruption damages vectors or drops points; it never rewrites a chunk's text.
  vector_index_corruption: ['vector_moved', 'missing'],
  wrong_attribution: ['relabelled'],
  // A stale feed or a stalled ingest rolls versions back: newer chunks gone, older ones reopened.
  knowledge_source_failure: ['payload_changed', 'missing'],
  // A re-parse re-cuts and re-embeds: old chunks gone, new cuts of the same versions, new text with new vectors.
  parser_bug: ['text_reembedded', 'missing', 'added'],
};

/**
 * The causes the diff may forbid naming: those whose detectors read a retrieval or context change
 * as damage to the stored chunks. A stale feed or unpublished knowledge is judged on its feed check.
 */
const JUDGED: readonly DetectorVerdict['cause'][] = ['vector_index_corruption', 'wrong_attribution', 'parser_bug'];
/** The data causes whose knowledge is diffed: every cause scoped by stored knowledge. */
const DIFFED: readonly DetectorVerdict['cause'][] = [...JUDGED, 'knowledge_source_failure', 'unpublished_knowledge'];

/** How many changes of each kind the diff shows that a signature can explain (added: of versions the baseline has). */
export function changeCounts(diff: IndexDiff): Record<SignatureChange, number> {
  return {
    missing: diff.missing,
    added: diff.added_unexpected - diff.added_unknown_version,
    relabelled: diff.relabelled,
    payload_changed: diff.payload_changed,
    text_changed: diff.text_changed,
    vector_moved: diff.vectors_moved - diff.text_reembedded,
    text_reembedded: diff.text_reembedded,
  };
}

/** The catalogue causes whose signature the diff shows. */
export function explainedBy(diff: IndexDiff): DetectorVerdict['cause'][] {
  const counts = changeCounts(diff);
  return (Object.entries(INDEX_SIGNATURES) as [DetectorVerdict['cause'], readonly SignatureChange[]][])
    .filter(([, kinds]) => kinds.some((k) => counts[k] > 0))
    .map(([cause]) => cause);
}

/**
 * The kinds of change the diff shows that no catalogue cause's signature explains. An alias repointed
 * is reported but not among them: the effector's own rebuilds swap aliases, and what the new target
 * holds is what the content diff judges.
 */
export function unexplainedChanges(diff: IndexDiff): IndexChangeKind[] {
  const explained = new Set<SignatureChange>(Object.values(INDEX_SIGNATURES).flat());
  const unexplained: IndexChangeKind[] = [];
  for (const [kind, count] of Object.entries(changeCounts(diff)) as [SignatureChange, number][])
    if (count > 0 && !explained.has(kind) && kind !== 'text_reembedded') unexplained.push(kind);
  // Chunks of a version the baseline never had: published by no feed it knows.
  return diff.added_unknown_version > 0 ? ['added', ...unexplained.filter((k) => k !== 'added')] : unexplained;
}

/** Whether the diff contradicts naming `cause`: read, changed, none of the cause's signature, some change no cause explains. */
export function contradicts(diff: IndexDiff, cause: DetectorVerdict['cause']): boolean {
  if (!JUDGED.includes(cause)) return false;
  return unexplainedChanges(diff).length > 0 && !explainedBy(diff).includes(cause);
}

/**
 * The data causes the index diff can confirm or contradict, with the changes each one makes. Points
 * missing beside chunks rewritten and re-embedded are a re-cut's, not a corrupt index's.
 */
const SIGNATURES: Partial<Record<DetectorVerdict['cause'], (diff: IndexDiff) => Measurement[]>> = {
  vector_index_corruption: (diff) => [
    measurement(diff, 'index_vectors_moved', changeCounts(diff).vector_moved),
    measurement(diff, 'index_points_missing', diff.text_reembedded > 0 ? 0 : diff.missing),
  ],
  wrong_attribution: (diff) => [measurement(diff, 'index_chunks_relabelled', diff.relabelled)],
};

function measurement(diff: IndexDiff, metric: string, observed: number): Measurement {
  return { claim_kind: 'chunk_pollution', subject: diff.knowledge_ids.join(','), metric, observed, baseline: 0 };
}

/** The knowledge ids worth diffing: those the data-cause verdicts implicate. */
export function idsToDiff(verdicts: readonly DetectorVerdict[]): string[] {
  return [...new Set(verdicts.filter((v) => v.score > 0 && DIFFED.includes(v.cause)).flatMap((v) => v.knowledge_ids))];
}

/**
 * Each data-cause verdict with the diff's measurements added: kept when the index shows its change,
 * its score cut to CONTRADICTED_WEIGHT when the index was read and shows none of it.
 */
export function weighByIndexDiff(verdicts: readonly DetectorVerdict[], diff: IndexDiff | null): DetectorVerdict[] {
  if (diff === null) return [...verdicts];
  const weighed = verdicts.map((verdict) => {
    const signature = SIGNATURES[verdict.cause];
    if (signature === undefined || verdict.score <= 0) return verdict;
    const measurements = signature(diff);
    const seen = measurements.some((m) => m.observed > 0);
    return {
      ...verdict,
      score: seen ? verdict.score : verdict.score * CONTRADICTED_WEIGHT,
      measurements: [...verdict.measurements, ...measurements],
    };
  });
  const reparse = reparseFromIndex(verdicts, weighed, diff);
  if (reparse === null) return weighed;
  // The detectors' own parser_bug verdict (score 0: it saw no chunk text change) gives way to it.
  const at = weighed.findIndex((v) => v.cause === 'parser_bug');
  return at < 0 ? [...weighed, reparse] : weighed.map((v, i) => (i === at ? reparse : v));
}

/**
 * parser_bug named from the store when the query path could not see it: a re-parse can push the
 * re-cut chunk out of the probe's context, so no retrieved chunk shows other text under its id (the
 * parser detector's signature) and the lost chunk reads as a damaged vector. When the diff shows
 * chunks rewritten and re-embedded and no vector moved under unchanged text, the corruption verdict
 * it contradicted passes its score to parser_bug on the same knowledge (traffic bench, 2026-12-07:
 * parser-bug:boilerplate named vector_index_corruption 0.97, two index repairs undone, escalated).
 */
function reparseFromIndex(before: readonly DetectorVerdict[], after: readonly DetectorVerdict[], diff: IndexDiff): DetectorVerdict | null {
  if (diff.text_reembedded === 0 || changeCounts(diff).vector_moved > 0) return null;
  if (after.some((v) => v.cause === 'parser_bug' && v.score > 0)) return null;
  const corruption = before.find((v) => v.cause === 'vector_index_corruption' && v.score > 0);
  if (corruption === undefined) return null;
  const ids = corruption.knowledge_ids.filter((id) => diff.knowledge_ids.includes(id));
  return {
    cause: 'parser_bug',
    component: CAUSES.parser_bug.component,
    score: corruption.score,
    knowledge_ids: ids.length > 0 ? ids : [...diff.knowledge_ids],
    measurements: [
      measurement(diff, 'index_chunks_reembedded_with_new_text', diff.text_reembedded),
      measurement(diff, 'index_points_missing', diff.missing),
      measurement(diff, 'index_chunks_added', changeCounts(diff).added),
    ],
  };
}

/** The diff in a ledger record's detail: counts and a few examples, bounded, and what explains it. */
export function diffDetail(diff: IndexDiff): Record<string, unknown> {
  return { ...diff, changed: indexChanged(diff), explained_by: explainedBy(diff), unexplained: unexplainedChanges(diff) };
}

/** The diff as the RootCauseReport carries it (`evidence_id`: its index_changed ledger record). */
export function toIndexDiffEvidence(diff: IndexDiff, evidenceId: string | null): IndexDiffEvidence {
  const collections = diff.collections;
  const examples: IndexDiffEvidence['examples'] = diff.examples.map((e) => ({ ...e }));
  if (collections?.online_target_before)
    examples.unshift({
      kind: 'alias_target_changed',
      knowledge_id: '',
      point_id: '',
      chunk: collections.online,
      field: 'alias target',
      before: collections.online_target_before,
      after: collections.online_target,
    });
  return {
    online_collection: collections?.online ?? 'online',
    baseline_collection: collections?.baseline ?? 'baseline',
    online_target: collections?.online_target ?? null,
    baseline_target: collections?.baseline_target ?? null,
    online_target_before: collections?.online_target_before ?? null,
    knowledge_ids: [...diff.knowledge_ids],
    online_points: diff.online_points,
    baseline_points: diff.baseline_points,
    missing: diff.missing,
    added_unexpected: diff.added_unexpected,
    added_after_pin: diff.added_after_pin,
    relabelled: diff.relabelled,
    payload_changed: diff.payload_changed,
    text_changed: diff.text_changed,
    vectors_moved: diff.vectors_moved,
    min_vector_cosine: diff.min_vector_cosine,
    explained_by: explainedBy(diff),
    unexplained: unexplainedChanges(diff),
    examples,
    evidence_id: evidenceId,
  };
}
