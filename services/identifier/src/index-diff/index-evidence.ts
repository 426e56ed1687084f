/**
 * The index diff as evidence for the data causes. The trace diff sees a data fault only through the
 * query path (a chunk retrieved or not), so the nearest signature wins: any retrieval change looks
 * like a corrupt index. The store itself says what changed: vectors moved or points gone support
 * vector_index_corruption, chunks relabelled support wrong_attribution, and a diff that shows
 * neither contradicts them (the verdict then names what does fit, or abstains with the diff).
 */
import type { DetectorVerdict, Measurement } from '../detectors/index.ts';
import { diffIndexes, indexChanged, type IndexChunk, type IndexDiff } from './index-diff.ts';
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
      return diffIndexes(ids, [...online, ...found], baseline, this.baselinePinnedAt);
    } catch (error) {
      this.onError(error);
      return null;
    }
  }
}

/** How much a cause's score keeps when the index shows none of the changes that cause makes. */
export const CONTRADICTED_WEIGHT = 0.2;

/** The data causes the index diff can confirm or contradict, with the changes each one makes. */
const SIGNATURES: Partial<Record<DetectorVerdict['cause'], (diff: IndexDiff) => Measurement[]>> = {
  vector_index_corruption: (diff) => [
    measurement(diff, 'index_vectors_moved', diff.vectors_moved),
    measurement(diff, 'index_points_missing', diff.missing),
  ],
  wrong_attribution: (diff) => [measurement(diff, 'index_chunks_relabelled', diff.relabelled)],
};

function measurement(diff: IndexDiff, metric: string, observed: number): Measurement {
  return { claim_kind: 'chunk_pollution', subject: diff.knowledge_ids.join(','), metric, observed, baseline: 0 };
}

/** The knowledge ids worth diffing: those the data-cause verdicts implicate. */
export function idsToDiff(verdicts: readonly DetectorVerdict[]): string[] {
  return [...new Set(verdicts.filter((v) => v.score > 0 && SIGNATURES[v.cause] !== undefined).flatMap((v) => v.knowledge_ids))];
}

/**
 * Each data-cause verdict with the diff's measurements added: kept when the index shows its change,
 * its score cut to CONTRADICTED_WEIGHT when the index was read and shows none of it.
 */
export function weighByIndexDiff(verdicts: readonly DetectorVerdict[], diff: IndexDiff | null): DetectorVerdict[] {
  if (diff === null) return [...verdicts];
  return verdicts.map((verdict) => {
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
}

/** The diff in a ledger record's detail: counts and a few examples, bounded. */
export function diffDetail(diff: IndexDiff): Record<string, unknown> {
  return { ...diff, changed: indexChanged(diff) };
}
