/**
 * One anomalous ProbeResult → what the detectors make of it: fetch both traces, diff them layer by
 * layer, run every detector, and turn the measurements into evidence-ledger drafts. Independent of
 * any incident, so it runs before the incident is locked.
 */
import type { ProbeResult } from '@rag-immune/contracts';
import type { KnowledgeFreshness, RagClient } from '@rag-immune/rag-contract';
import { DETECTORS, type ClaimKind, type DetectorVerdict } from './detectors/index.ts';
import type { EvidenceDraft, EvidenceRecord } from './ledger/evidence-record.ts';
import type { IndexDiff } from './index-diff/index-diff.ts';
import { diffDetail, idsToDiff, weighByIndexDiff, type IndexDiffer } from './index-diff/index-evidence.ts';
import { diffTraces, type TraceDiff } from './trace-diff/trace-diff.ts';
import { fetchTracePair } from './trace-diff/trace-fetcher.ts';
import { diffScoreless, type ScorelessDiff } from './trace-diff/scoreless.ts';
import { nameScorelessCause, scorelessIdsToDiff } from './trace-diff/scoreless-causes.ts';
import { EndpointTraceSource, type TraceSource } from './trace-diff/trace-sources.ts';
import type { Cause, Layer, ProbeAnalysis } from './verdict/verdict.ts';

export interface PreparedAnalysis {
  result: ProbeResult;
  status: ProbeAnalysis['trace_status'];
  problem: string | null;
  diff: TraceDiff | null;
  verdicts: DetectorVerdict[];
  layer: Layer;
  /** Where each side's trace came from, and what its spans did not say (intake traces), for the ledger. */
  provenance?: { source: { online: string; baseline: string }; gaps: { online: string[]; baseline: string[] } };
  /** What changed in the online index against the baseline's for the knowledge the data causes name (null: not read). */
  indexDiff?: IndexDiff | null;
  /** An intake trace that is not this call's (its query or answer differs): refused as evidence, counted. */
  traceMismatch?: { side: 'online' | 'baseline'; field: 'query' | 'answer' };
  /**
   * Set when the traces lacked only retrieval scores and a cause was named from the index diff, the
   * contexts and the answers instead (status ok, diff null): the diff the verdict rests on (scoreless.ts).
   */
  scoreless?: ScorelessDiff;
}

const LAYER_CLAIM: Record<Layer, ClaimKind> = {
  query: 'query_encoding_anomaly',
  retrieval: 'retrieved_set_change',
  rerank: 'rerank_score_shift',
  context: 'retrieved_set_change',
  answer: 'answer_fact_mismatch',
  none: 'unknown',
};
const LAYERS: Layer[] = ['none', 'query', 'retrieval', 'rerank', 'context', 'answer'];

export function firstDivergingLayer(diff: TraceDiff): Layer {
  if (!diff.query.rewritten_equal) return 'query';
  if (diff.candidates.jaccard < 1 || (diff.candidates.shared_score_stable_fraction ?? 1) < 1) return 'retrieval';
  if (diff.rerank.order_changed) return 'rerank';
  if (!diff.context.identical) return 'context';
  if (!diff.answer.equal_to_baseline) return 'answer';
  return 'none';
}

export function analyseTraces(
  result: ProbeResult,
  diff: TraceDiff,
  freshness: ReadonlyMap<string, KnowledgeFreshness> = new Map(),
): PreparedAnalysis {
  return {
    result,
    status: 'ok',
    problem: null,
    diff,
    verdicts: DETECTORS.map((detector) => detector.detect({ result, diff, freshness })),
    layer: firstDivergingLayer(diff),
  };
}

export async function prepareAnalysis(
  result: ProbeResult,
  clients: { online: RagClient; baseline: RagClient },
  traceTimeoutMs: number,
  sources: { online: TraceSource; baseline: TraceSource } = {
    online: new EndpointTraceSource(clients.online),
    baseline: new EndpointTraceSource(clients.baseline),
  },
  indexDiffer?: IndexDiffer,
): Promise<PreparedAnalysis> {
  const fetched = await fetchTracePair(sources, result, traceTimeoutMs);
  if (!fetched.ok) {
    const status =
      fetched.side === 'baseline' && result.baseline.call_status !== 'ok'
        ? 'baseline_unavailable'
        : fetched.incomplete
          ? 'trace_incomplete'
          : 'trace_unavailable';
    const incomplete: PreparedAnalysis = {
      result,
      status,
      problem: `${fetched.side}: ${fetched.reason}`,
      diff: null,
      verdicts: [],
      layer: 'none',
      ...(fetched.mismatch ? { traceMismatch: { side: fetched.side, field: fetched.mismatch } } : {}),
    };
    if (status !== 'trace_incomplete' || fetched.scoreless === undefined || indexDiffer === undefined) return incomplete;
    // Only the scores are missing: the index diff of the contexts' knowledge (and of what the
    // sentinel found unpublished), with the contexts' and answers' diff, may still name a cause
    // (scoreless-causes.ts). Nothing else is inferred; without one the analysis stays trace_incomplete.
    const { online, baseline, source } = fetched.scoreless;
    const scoreless = diffScoreless(online, baseline);
    const ids = scorelessIdsToDiff(result, scoreless);
    const indexDiff = ids.length === 0 ? null : await indexDiffer.diff(ids);
    const named = indexDiff === null ? null : nameScorelessCause(result, scoreless, indexDiff);
    if (indexDiff === null || named === null) return incomplete;
    const gapsOf = (gaps: readonly { piece: string }[]) => [...new Set(gaps.map((g) => g.piece))];
    return {
      result,
      status: 'ok',
      problem: null,
      diff: null,
      verdicts: [named.verdict],
      layer: named.layer,
      indexDiff,
      scoreless,
      provenance: { source, gaps: { online: gapsOf(online.gaps), baseline: gapsOf(baseline.gaps) } },
    };
  }
  const diff = diffTraces(fetched.online, fetched.baseline);
  const analysis = analyseTraces(result, diff, await lookUpFreshness(clients.online, diff, traceTimeoutMs));
  const gapsOf = (gaps: readonly { piece: string }[]) => gaps.map((g) => g.piece);
  const ids = indexDiffer === undefined ? [] : idsToDiff(analysis.verdicts);
  const indexDiff = ids.length === 0 ? undefined : await indexDiffer!.diff(ids);
  return {
    ...analysis,
    ...(indexDiff === undefined ? {} : { verdicts: weighByIndexDiff(analysis.verdicts, indexDiff), indexDiff }),
    provenance: { source: fetched.source, gaps: { online: gapsOf(fetched.gaps.online), baseline: gapsOf(fetched.gaps.baseline) } },
  };
}

/** At most this many ids are looked up per probe: the claims need a few, not the whole context. */
const MAX_FRESHNESS_LOOKUPS = 4;

/**
 * The online RAG's freshness of the ids it serves older than the baseline (GET /knowledge/{id}).
 * Optional in the contract: a 404, a timeout or a bad body leaves the id out, never fails the analysis.
 */
async function lookUpFreshness(online: RagClient, diff: TraceDiff, timeoutMs: number): Promise<Map<string, KnowledgeFreshness>> {
  const ids = [...new Set(diff.versions.older_in_online.map((change) => change.knowledge_id))].slice(0, MAX_FRESHNESS_LOOKUPS);
  const found = await Promise.all(
    ids.map(async (id) => {
      try {
        return await online.knowledgeFreshness(id, { timeoutMs });
      } catch {
        return null;
      }
    }),
  );
  return new Map(found.flatMap((f) => (f === null ? [] : [[f.knowledge_id, f] as const])));
}

/** The ledger drafts of one analysis: a divergence (or unavailability) record, then every detector measurement. */
export function evidenceDrafts(prepared: PreparedAnalysis): EvidenceDraft[] {
  const { result } = prepared;
  const base = { probe_event_id: result.event_id, probe_id: result.probe_id, occurred_at: result.occurred_at };
  if (prepared.scoreless !== undefined) return scorelessDrafts(prepared, prepared.scoreless, base);
  if (prepared.diff === null)
    return [
      {
        ...base,
        // An incomplete intake trace is recorded the same way; the analysis status tells them apart.
        kind: 'trace_unavailable',
        detector: null,
        claim_kind: null,
        subject: result.probe_id,
        metric: 'trace_available',
        observed: 0,
        baseline: 1,
        detail: {
          problem: prepared.problem,
          online_trace_id: result.online.trace_id,
          baseline_trace_id: result.baseline.trace_id,
          online_traceparent: result.online.traceparent,
          baseline_traceparent: result.baseline.traceparent,
        },
      },
    ];
  const diff = prepared.diff;
  const drafts: EvidenceDraft[] = [
    divergingLayerDraft(prepared, base, {
      rewritten_equal: diff.query.rewritten_equal,
      candidate_jaccard: diff.candidates.jaccard,
      shared_score_stable_fraction: diff.candidates.shared_score_stable_fraction,
      rerank_order_changed: diff.rerank.order_changed,
      context_jaccard: diff.context.jaccard,
      answer_equal_to_baseline: diff.answer.equal_to_baseline,
      online_unsupported_facts: diff.answer.online_unsupported,
      models_changed: diff.models.changed,
      // Whether the newer online knowledge could be checked against its feed (null: nothing newer).
      feed_check: result.comparison.feed_check ?? null,
    }),
  ];
  drafts.push(...indexDiffDrafts(prepared, base), ...verdictDrafts(prepared, base));
  return drafts;
}

type DraftBase = Pick<EvidenceDraft, 'probe_event_id' | 'probe_id' | 'occurred_at'>;

/** A score-less analysis: the contexts' set diff (scores recorded as absent), the index diff, the verdict's measurements. */
function scorelessDrafts(prepared: PreparedAnalysis, scoreless: ScorelessDiff, base: DraftBase): EvidenceDraft[] {
  return [
    divergingLayerDraft(prepared, base, {
      // No span carried a retrieval score: the retrieval and rerank layers could not be compared.
      retrieval_scores: 'absent',
      context_jaccard: scoreless.context_jaccard,
      lost_context_chunks: scoreless.lost.map((c) => c.chunk_id),
      gained_context_chunks: scoreless.gained.map((c) => c.chunk_id),
      // The answers' text as the traces carry it, and the sentinel's own comparison (null: not computed).
      answer_equal_to_baseline: scoreless.answers_equal,
      answer_agreement: prepared.result.comparison.answer_agreement,
      fcs_drop: prepared.result.comparison.fcs_drop,
      feed_check: prepared.result.comparison.feed_check ?? null,
      unpublished_knowledge: (prepared.result.comparison.unpublished_knowledge ?? []).map((u) => `${u.knowledge_id}@${u.online_version}`),
    }),
    ...indexDiffDrafts(prepared, base),
    ...verdictDrafts(prepared, base),
  ];
}

/** The analysis's first record: which layer diverged first, with the traces it was read from and the path's own figures. */
function divergingLayerDraft(prepared: PreparedAnalysis, base: DraftBase, figures: Record<string, unknown>): EvidenceDraft {
  const { result } = prepared;
  return {
    ...base,
    kind: 'measurement',
    detector: null,
    claim_kind: LAYER_CLAIM[prepared.layer],
    subject: result.probe_id,
    metric: 'first_diverging_layer',
    observed: LAYERS.indexOf(prepared.layer),
    baseline: 0,
    detail: {
      layer: prepared.layer,
      online_trace_id: result.online.trace_id,
      baseline_trace_id: result.baseline.trace_id,
      ...figures,
      ...(prepared.provenance ? { trace_source: prepared.provenance.source, trace_gaps: prepared.provenance.gaps } : {}),
    },
  };
}

function indexDiffDrafts(prepared: PreparedAnalysis, base: DraftBase): EvidenceDraft[] {
  const drafts: EvidenceDraft[] = [];
  if (prepared.indexDiff) {
    const changed = diffDetail(prepared.indexDiff);
    drafts.push({
      ...base,
      kind: 'measurement',
      detector: null,
      claim_kind: 'chunk_pollution',
      subject: prepared.indexDiff.knowledge_ids.join(','),
      metric: 'index_changed',
      observed: changed.changed ? 1 : 0,
      baseline: 0,
      detail: changed,
    });
  }
  return drafts;
}

function verdictDrafts(prepared: PreparedAnalysis, base: DraftBase): EvidenceDraft[] {
  const drafts: EvidenceDraft[] = [];
  for (const verdict of prepared.verdicts) {
    if (verdict.score <= 0) continue;
    for (const m of verdict.measurements)
      drafts.push({
        ...base,
        kind: 'measurement',
        detector: verdict.cause,
        claim_kind: m.claim_kind,
        subject: m.subject,
        metric: m.metric,
        observed: m.observed,
        baseline: m.baseline,
        detail: { detector_score: verdict.score, ...(prepared.scoreless ? { retrieval_scores: 'absent' } : {}) },
      });
  }
  return drafts;
}

/** The analysis kept with the incident, pointing at the ledger records its drafts became. */
export function toProbeAnalysis(prepared: PreparedAnalysis, records: readonly EvidenceRecord[]): ProbeAnalysis {
  const { result } = prepared;
  const scores: Partial<Record<Cause, number>> = {};
  const evidence: Partial<Record<Cause, string[]>> = {};
  const knowledge: Partial<Record<Cause, string[]>> = {};
  for (const verdict of prepared.verdicts) {
    scores[verdict.cause] = verdict.score;
    knowledge[verdict.cause] = verdict.knowledge_ids;
    evidence[verdict.cause] = records.filter((r) => r.detector === verdict.cause).map((r) => r.record_id);
  }
  const first = records.find((r) => r.detector === null);
  const indexRecord = records.find((r) => r.detector === null && r.metric === 'index_changed');
  // A score-less analysis has no trace diff but did diverge: its first record is the divergence.
  const traced = prepared.diff !== null || prepared.scoreless !== undefined;
  return {
    probe_event_id: result.event_id,
    probe_id: result.probe_id,
    probe_version: result.probe_version,
    query: result.query,
    occurred_at: result.occurred_at,
    trace_status: prepared.status,
    trace_evidence_id: traced ? null : (first?.record_id ?? null),
    scores,
    evidence_ids: evidence,
    knowledge_ids: knowledge,
    first_diverging_layer: prepared.layer,
    divergence_evidence_id: traced ? (first?.record_id ?? null) : null,
    ...(prepared.indexDiff ? { index_diff: { evidence_id: indexRecord?.record_id ?? null, diff: prepared.indexDiff } } : {}),
  };
}
