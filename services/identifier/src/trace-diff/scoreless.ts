/**
 * A trace pair that lacks only retrieval scores (issue 42: Flowise's OpenInference spans carry the
 * retrieved chunks' text and metadata, ids and versions included, but no score). No contract Trace
 * is made and the layer-by-layer diff cannot run: the score-based detectors have nothing to read,
 * and a missing score is never read as 0. What is left is the set diff of the two contexts (which
 * baseline chunks online lost, which it gained), and the index diff of their knowledge against the
 * pinned baseline copy can judge that: the same points, text and payload with vectors moved (or
 * points gone) is damage in the stored vectors, not the query side. The other causes the score-less
 * path can name (unpublished knowledge, the generator) are judged in scoreless-causes.ts.
 */
import type { Trace } from '@rag-immune/rag-contract';
import type { ObservedCall, TraceGap } from '@rag-immune/traces';
import type { DetectorVerdict, Measurement } from '../detectors/index.ts';
import type { IndexDiff } from '../index-diff/index-diff.ts';
import { MAX_DIFF_IDS } from '../index-diff/index-evidence.ts';

/** A context chunk as both kinds of trace name it. */
export interface ContextChunkRef {
  chunk_id: string;
  knowledge_id: string;
  version: string;
}

/** One side of a score-less pair: what reached the generator, by id, and the gaps its spans left. */
export interface ScorelessSide {
  context: ContextChunkRef[];
  query: string;
  answer: string;
  gaps: TraceGap[];
}

export interface ScorelessDiff {
  online_context: string[];
  baseline_context: string[];
  /** Baseline context chunks the online context no longer holds. */
  lost: ContextChunkRef[];
  /** Online context chunks the baseline's does not hold. */
  gained: ContextChunkRef[];
  context_jaccard: number;
  /** Whether both answers are the same text (whitespace-normalised, as the sentinel's answer_hash is). */
  answers_equal: boolean;
  /** The knowledge to diff in the index: lost and gained first, then the rest of both contexts. */
  knowledge_ids: string[];
}

/** A context document's gap that names nothing but its missing retrieval score (assemble-trace.ts wording). */
const CONTEXT_SCORE_ONLY = /^context document \S+ lacks retrieval_score$/;

/**
 * Whether the spans' blocking gaps are scores and nothing else: every retrieved document lacks only
 * its score, every context document only its retrieval_score. Any other blocking gap (no query, no
 * ids, no versions, dropped attributes...) keeps the trace incomplete.
 */
export function onlyScoresMissing(gaps: readonly TraceGap[], blocking: ReadonlySet<string>): boolean {
  const blockers = gaps.filter((g) => blocking.has(g.piece));
  return (
    blockers.length > 0 &&
    blockers.every((g) => g.piece === 'candidate_scores' || (g.piece === 'document_metadata' && CONTEXT_SCORE_ONLY.test(g.detail)))
  );
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** The observed call's context by id; null when a document lacks its chunk id, knowledge id or version. */
export function scorelessSide(observed: ObservedCall | undefined, gaps: readonly TraceGap[]): ScorelessSide | null {
  if (observed?.query === undefined || observed.answer === undefined || observed.context.length === 0) return null;
  const context: ContextChunkRef[] = [];
  for (const doc of observed.context) {
    const chunkId = text(doc.metadata.chunk_id) ?? doc.id;
    const knowledgeId = text(doc.metadata.knowledge_id);
    const version = text(doc.metadata.version);
    if (chunkId === undefined || knowledgeId === undefined || version === undefined) return null;
    context.push({ chunk_id: chunkId, knowledge_id: knowledgeId, version });
  }
  return { context, query: observed.query, answer: observed.answer, gaps: [...gaps] };
}

/** A whole contract Trace as one side of a score-less pair (the other side lacked the scores). */
export function sideOfTrace(trace: Trace, gaps: readonly TraceGap[]): ScorelessSide {
  return {
    context: trace.context.map((c) => ({ chunk_id: c.chunk_id, knowledge_id: c.knowledge_id, version: c.version })),
    query: trace.query,
    answer: trace.answer,
    gaps: [...gaps],
  };
}

const normalised = (answer: string) => answer.trim().replace(/\s+/g, ' ');

export function diffScoreless(online: ScorelessSide, baseline: ScorelessSide): ScorelessDiff {
  const onlineIds = new Set(online.context.map((c) => c.chunk_id));
  const baselineIds = new Set(baseline.context.map((c) => c.chunk_id));
  const lost = baseline.context.filter((c) => !onlineIds.has(c.chunk_id));
  const gained = online.context.filter((c) => !baselineIds.has(c.chunk_id));
  const shared = [...onlineIds].filter((id) => baselineIds.has(id)).length;
  const union = onlineIds.size + baselineIds.size - shared;
  const knowledge = [...lost, ...gained, ...baseline.context, ...online.context].map((c) => c.knowledge_id);
  return {
    online_context: [...onlineIds],
    baseline_context: [...baselineIds],
    lost,
    gained,
    context_jaccard: union === 0 ? 1 : shared / union,
    answers_equal: normalised(online.answer) === normalised(baseline.answer),
    knowledge_ids: [...new Set(knowledge)].slice(0, MAX_DIFF_IDS),
  };
}

/**
 * The fit given to vector_index_corruption from the index diff alone. Below what the detector's
 * score evidence reaches, so the calibrated confidence is lower than with scores (about 0.84 on four
 * probes with the fitted calibration, against the acceptance threshold of 0.7), and never more.
 */
export const SCORELESS_CORRUPTION_SCORE = 0.75;

/**
 * The data cause the index diff names for a score-less pair, or null. Only the corruption signature
 * alone counts (vectors moved or points gone, with no relabelling, payload, text or unexpected
 * chunk change beside it: those are other causes' signatures, which need the trace diff to tell
 * apart), and only when the contexts differ (the context is what the probe's answer rested on).
 */
export function scorelessVerdict(diff: ScorelessDiff, index: IndexDiff): DetectorVerdict | null {
  if (diff.lost.length === 0 && diff.gained.length === 0) return null;
  const damaged = index.vectors_moved + index.missing;
  const other = index.relabelled + index.payload_changed + index.text_changed + index.added_unexpected;
  if (damaged === 0 || other > 0) return null;
  const subject = index.knowledge_ids.join(',');
  const changed = [...new Set([...diff.lost, ...diff.gained].map((c) => c.knowledge_id))].filter((id) => index.knowledge_ids.includes(id));
  const measurements: Measurement[] = [
    // The evidence says the scores were absent: the claim rests on the store, not on retrieval scores.
    { claim_kind: 'retrieval_score_shift', subject, metric: 'retrieval_scores_present', observed: 0, baseline: 1 },
    { claim_kind: 'retrieved_set_change', subject, metric: 'context_jaccard', observed: diff.context_jaccard, baseline: 1 },
    { claim_kind: 'chunk_pollution', subject, metric: 'index_vectors_moved', observed: index.vectors_moved, baseline: 0 },
    { claim_kind: 'chunk_pollution', subject, metric: 'index_points_missing', observed: index.missing, baseline: 0 },
  ];
  return {
    cause: 'vector_index_corruption',
    component: 'vector_index',
    score: SCORELESS_CORRUPTION_SCORE,
    measurements,
    knowledge_ids: changed.length > 0 ? changed : [...index.knowledge_ids],
  };
}
