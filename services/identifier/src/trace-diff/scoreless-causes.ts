/**
 * The causes a score-less trace pair (scoreless.ts) can be named with, from what is measured without
 * retrieval scores: the contexts' set diff, the answers' text, the sentinel's comparison in the
 * ProbeResult, and the index diff of the contexts' knowledge against the pinned baseline copy. Each
 * cause has one narrow signature and every other reading is refused (null): a product's traces that
 * lack the scores get a named cause only where the store, the feed check or the unchanged input say so.
 * - vector_index_corruption: vectors moved or points gone, nothing else (scoreless.ts).
 * - unpublished_knowledge: the sentinel found online versions no feed published, and the index shows
 *   exactly those versions gained online (the baseline lacks them), with nothing damaged beside.
 * - generator_inconsistency: the same context chunks on both sides, the index of their knowledge
 *   unchanged, the answers differ and the sentinel measured the online one worse: the prompt or the
 *   model setting changed outside the index.
 */
import type { ProbeResult } from '@rag-immune/contracts';
import { CAUSES } from '@rag-immune/contracts';
import type { DetectorVerdict, Measurement } from '../detectors/index.ts';
import type { IndexDiff } from '../index-diff/index-diff.ts';
import { MAX_DIFF_IDS } from '../index-diff/index-evidence.ts';
import type { Layer } from '../verdict/verdict.ts';
import { scorelessVerdict, SCORELESS_CORRUPTION_SCORE, type ScorelessDiff } from './scoreless.ts';

/**
 * The fit given to unpublished_knowledge when the feed check and the index diff agree. As for the
 * corruption signature: below the reference detector's (0.85 on the lookup alone, which also reads the
 * trace's versions), so the calibrated confidence is lower than with a full trace (about 0.84 on four
 * probes with the fitted calibration, against the acceptance threshold of 0.7), and never more.
 */
export const SCORELESS_UNPUBLISHED_SCORE = SCORELESS_CORRUPTION_SCORE;

/**
 * The fit given to generator_inconsistency by elimination: same input to the generator (same chunks,
 * from an index unchanged against the pinned copy), another answer the sentinel measured worse. The
 * reference detector reads more (facts unsupported by the own context, the generator's build); this
 * fit is the corruption signature's, so it clears the acceptance only with two or more such probes.
 */
export const SCORELESS_GENERATION_SCORE = SCORELESS_CORRUPTION_SCORE;

/** A named cause of a score-less pair, with the layer where the two sides part. */
export interface ScorelessCause {
  verdict: DetectorVerdict;
  layer: Layer;
}

/**
 * The knowledge ids to diff for a score-less pair: the ids the sentinel found unpublished first (the
 * online context need not hold them all), then the contexts' (lost and gained first).
 */
export function scorelessIdsToDiff(result: ProbeResult, diff: ScorelessDiff): string[] {
  const unpublished = (result.comparison.unpublished_knowledge ?? []).map((u) => u.knowledge_id);
  return [...new Set([...unpublished, ...diff.knowledge_ids])].slice(0, MAX_DIFF_IDS);
}

/** The one cause the measurements name, or null (the analysis then stays trace_incomplete). */
export function nameScorelessCause(result: ProbeResult, diff: ScorelessDiff, index: IndexDiff): ScorelessCause | null {
  const unpublished = unpublishedVerdict(result, diff, index);
  // A context that changed because versions were added is not a changed generator, nor is it damage.
  if (unpublished !== null) return { verdict: unpublished, layer: contextsDiffer(diff) ? 'retrieval' : 'context' };
  const corruption = scorelessVerdict(diff, index);
  // The contexts differ and the store shows damaged vectors: retrieval is where they part.
  if (corruption !== null) return { verdict: corruption, layer: 'retrieval' };
  const generation = generationVerdict(result, diff, index);
  return generation === null ? null : { verdict: generation, layer: 'answer' };
}

const contextsDiffer = (diff: ScorelessDiff) => diff.lost.length > 0 || diff.gained.length > 0;
const versionKey = (knowledgeId: string, version: string | null) => `${knowledgeId}\u0000${version ?? ''}`;

/**
 * unpublished_knowledge from the sentinel's feed check (the ProbeResult's `unpublished_knowledge`,
 * whatever its `feed_check` status) and the index: the online-only chunks of the diffed knowledge are
 * exactly the listed versions, none of them a version the baseline has, and nothing else changed but
 * the previous chunks' validity windows closing (no vector moved, no point missing, nothing relabelled,
 * no text rewritten, no other version's chunks added). An id the sentinel saw relabelled is left out,
 * as the reference detector leaves it to wrong attribution.
 */
export function unpublishedVerdict(result: ProbeResult, diff: ScorelessDiff, index: IndexDiff): DetectorVerdict | null {
  const relabelled = new Set(result.comparison.attribution?.relabelled_knowledge_ids ?? []);
  const listed = (result.comparison.unpublished_knowledge ?? []).filter(
    (u) => !relabelled.has(u.knowledge_id) && index.knowledge_ids.includes(u.knowledge_id),
  );
  if (listed.length === 0) return null;
  const damage = index.vectors_moved + index.missing + index.relabelled + index.text_changed;
  if (damage > 0 || index.payload_changed !== index.windows_closed) return null;
  const gained = index.online_only_versions;
  const listedKeys = new Set(listed.map((u) => versionKey(u.knowledge_id, u.online_version)));
  const gainedKeys = new Set(gained.map((v) => versionKey(v.knowledge_id, v.version)));
  if (gained.some((v) => v.in_baseline) || gainedKeys.size !== listedKeys.size || [...listedKeys].some((k) => !gainedKeys.has(k)))
    return null;
  const subject = index.knowledge_ids.join(',');
  const chunks = gained.reduce((sum, v) => sum + v.chunks, 0);
  const measurements: Measurement[] = [
    // The evidence says the scores were absent: the claim rests on the feed check and the store.
    { claim_kind: 'retrieval_score_shift', subject, metric: 'retrieval_scores_present', observed: 0, baseline: 1 },
    ...listed.map((u) => ({
      claim_kind: 'chunk_pollution' as const,
      subject: `${u.knowledge_id}@${u.online_version}`,
      metric: 'indexed_version_published_by_feed',
      observed: 0,
      baseline: 1,
    })),
    { claim_kind: 'chunk_pollution', subject, metric: 'index_chunks_of_unpublished_versions', observed: chunks, baseline: 0 },
    { claim_kind: 'chunk_pollution', subject, metric: 'index_validity_windows_closed', observed: index.windows_closed, baseline: 0 },
    { claim_kind: 'chunk_pollution', subject, metric: 'index_vectors_moved', observed: index.vectors_moved, baseline: 0 },
    { claim_kind: 'chunk_pollution', subject, metric: 'index_points_missing', observed: index.missing, baseline: 0 },
  ];
  return {
    cause: 'unpublished_knowledge',
    component: CAUSES.unpublished_knowledge.component,
    score: SCORELESS_UNPUBLISHED_SCORE,
    measurements,
    knowledge_ids: [...new Set(listed.map((u) => u.knowledge_id))].sort(),
  };
}

/** Every count of the index diff, the knowledge moving on included: generation is named only on an untouched index. */
function indexUntouched(index: IndexDiff): boolean {
  return (
    index.missing +
      index.added_unexpected +
      index.added_after_pin +
      index.relabelled +
      index.payload_changed +
      index.text_changed +
      index.vectors_moved ===
      0 && (index.collections?.online_target_before ?? null) === null
  );
}

/**
 * generator_inconsistency by elimination, conservatively: both contexts non-empty and the same chunk
 * ids (nothing lost, nothing gained), the index of their knowledge read and untouched, no knowledge
 * the sentinel found unpublished, the answers' text differs, and the sentinel's comparison measured
 * the online answer worse (key facts disagreeing, or a lower FCS). A figure the sentinel did not
 * compute is left out, never read as 0.
 */
export function generationVerdict(result: ProbeResult, diff: ScorelessDiff, index: IndexDiff): DetectorVerdict | null {
  if (diff.online_context.length === 0 || diff.baseline_context.length === 0 || contextsDiffer(diff)) return null;
  if (!indexUntouched(index) || (result.comparison.unpublished_knowledge ?? []).length > 0 || diff.answers_equal) return null;
  const { answer_agreement: agreement, fcs_drop: fcsDrop } = result.comparison;
  const disagrees = agreement !== null && agreement < 1;
  const worse = fcsDrop !== null && fcsDrop > 0;
  if (!disagrees && !worse) return null;
  const subject = result.probe_id;
  const measurements: Measurement[] = [
    { claim_kind: 'retrieved_set_change', subject, metric: 'context_jaccard', observed: diff.context_jaccard, baseline: 1 },
    { claim_kind: 'chunk_pollution', subject: index.knowledge_ids.join(','), metric: 'index_changes', observed: 0, baseline: 0 },
    { claim_kind: 'answer_fact_mismatch', subject, metric: 'answer_equal_to_baseline', observed: 0, baseline: 1 },
    ...(agreement === null
      ? []
      : [{ claim_kind: 'answer_fact_mismatch' as const, subject, metric: 'answer_agreement', observed: agreement, baseline: 1 }]),
    ...(fcsDrop === null
      ? []
      : [{ claim_kind: 'answer_fact_mismatch' as const, subject, metric: 'fcs_drop', observed: fcsDrop, baseline: 0 }]),
  ];
  return {
    cause: 'generator_inconsistency',
    component: CAUSES.generator_inconsistency.component,
    score: SCORELESS_GENERATION_SCORE,
    measurements,
    // Not scoped to knowledge: the generator answers every query.
    knowledge_ids: [],
  };
}
