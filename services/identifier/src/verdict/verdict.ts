/**
 * From the per-probe analyses of an incident to one verdict, with abstention: a cause with a
 * calibrated confidence; `unknown` (no cause is supported well enough) with typed open questions;
 * or inconclusive (too little evidence yet: wait for the next round).
 */
import type { OpenQuestion, RagComponent, RootCause } from '@rag-immune/contracts';
import { DETECTORS } from '../detectors/index.ts';
import { indexChanged, type IndexDiff } from '../index-diff/index-diff.ts';
import { contradicts, explainedBy, unexplainedChanges } from '../index-diff/index-evidence.ts';
import { calibratedConfidence, type Calibration, type VerdictFeatures } from './calibration.ts';

export type Cause = Exclude<RootCause, 'unknown'>;
export type Layer = 'query' | 'retrieval' | 'rerank' | 'context' | 'answer' | 'none';

/** What the identifier kept of one anomalous ProbeResult (persisted with the incident). */
export interface ProbeAnalysis {
  probe_event_id: string;
  probe_id: string;
  probe_version: number;
  query: string;
  occurred_at: number;
  /** trace_incomplete: the RAG's spans were found but lack a piece the diff needs (scores, versioned metadata…). */
  trace_status: 'ok' | 'trace_unavailable' | 'trace_incomplete' | 'baseline_unavailable';
  /** Ledger id of the record saying why the trace was unavailable. */
  trace_evidence_id: string | null;
  /** Detector score per cause (empty when no trace). */
  scores: Partial<Record<Cause, number>>;
  /** Ledger ids of each detector's measurements. */
  evidence_ids: Partial<Record<Cause, string[]>>;
  knowledge_ids: Partial<Record<Cause, string[]>>;
  /** The first layer where online and baseline traces part. */
  first_diverging_layer: Layer;
  /** Ledger id of the first-divergence record. */
  divergence_evidence_id: string | null;
  /** What the index diff showed for this probe's implicated knowledge, and its ledger record (absent: none read). */
  index_diff?: { evidence_id: string | null; diff: IndexDiff } | null;
}

export interface VerdictPolicy {
  /** A cause is named only at or above this calibrated confidence. */
  acceptConfidence: number;
  /** Fewer analysed ProbeResults than this is inconclusive… */
  minResults: number;
  /** …until the first anomaly is this old; then the identifier reports what it has. */
  maxWaitMs: number;
}

export const DEFAULT_POLICY: VerdictPolicy = { acceptConfidence: 0.7, minResults: 2, maxWaitMs: 60_000 };

export interface Verdict {
  outcome: 'cause' | 'unknown' | 'inconclusive';
  root_cause: RootCause;
  component: RagComponent;
  confidence: number;
  features: VerdictFeatures;
  /** The best-fitting cause even when not named (for the record and calibration). */
  best_cause: Cause | null;
  open_questions: OpenQuestion[];
  knowledge_ids: string[];
}

const LAYER_COMPONENT: Record<Layer, RagComponent> = {
  query: 'tokenizer',
  retrieval: 'retriever',
  rerank: 'reranker',
  context: 'generator',
  answer: 'generator',
  none: 'unknown',
};

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Aggregated detector scores over the analysed probes, best first. */
/** `exclude` leaves one detector out (calibration: what a cause without a detector looks like). */
export function rankCauses(analyses: readonly ProbeAnalysis[], exclude?: Cause): { cause: Cause; score: number }[] {
  const traced = analyses.filter((a) => a.trace_status === 'ok');
  return DETECTORS.filter((d) => d.cause !== exclude)
    .map((detector) => ({ cause: detector.cause, score: mean(traced.map((a) => a.scores[detector.cause] ?? 0)) }))
    .sort((a, b) => b.score - a.score);
}

export function verdictFeatures(analyses: readonly ProbeAnalysis[], exclude?: Cause): VerdictFeatures {
  const ranked = rankCauses(analyses, exclude);
  const traced = analyses.filter((a) => a.trace_status === 'ok').length;
  return { top: ranked[0]?.score ?? 0, margin: (ranked[0]?.score ?? 0) - (ranked[1]?.score ?? 0), support: Math.min(traced, 4) / 4 };
}

export function decideVerdict(
  analyses: readonly ProbeAnalysis[],
  calibration: Calibration,
  policy: VerdictPolicy,
  waitedMs: number,
): Verdict {
  const traced = analyses.filter((a) => a.trace_status === 'ok');
  const ranked = rankCauses(analyses);
  const features = verdictFeatures(analyses);
  const best = traced.length > 0 ? ranked[0]!.cause : null;
  const confidence = traced.length > 0 ? calibratedConfidence(calibration, features) : 0;
  const detector = DETECTORS.find((d) => d.cause === best);
  const mayWait = waitedMs < policy.maxWaitMs;
  const contradicted = best !== null && indexContradicts(traced, best);

  if (best !== null && !contradicted && confidence >= policy.acceptConfidence && (traced.length >= policy.minResults || !mayWait)) {
    return {
      outcome: 'cause',
      root_cause: best,
      component: detector!.component,
      confidence,
      features,
      best_cause: best,
      open_questions: [],
      knowledge_ids: [...new Set(traced.flatMap((a) => a.knowledge_ids[best] ?? []))].sort(),
    };
  }
  if (traced.length < policy.minResults && mayWait) {
    return {
      outcome: 'inconclusive',
      root_cause: 'unknown',
      component: 'unknown',
      confidence,
      features,
      best_cause: best,
      open_questions: [],
      knowledge_ids: [],
    };
  }

  // Abstain: say which layer the evidence points at, and what is open.
  const questions: OpenQuestion[] = [];
  for (const analysis of analyses)
    if (analysis.trace_status !== 'ok')
      questions.push({
        kind: analysis.trace_status,
        subject: analysis.probe_id,
        evidence_ids: analysis.trace_evidence_id ? [analysis.trace_evidence_id] : [],
      });
  if (traced.length > 0) {
    const close = ranked.filter((r) => r.score > 0.3 && ranked[0]!.score - r.score < 0.15);
    if (close.length >= 2)
      questions.push({
        kind: 'conflicting_evidence',
        subject: close.map((r) => r.cause).join(','),
        evidence_ids: [...new Set(traced.flatMap((a) => close.flatMap((r) => a.evidence_ids[r.cause] ?? [])))],
      });
    else
      questions.push({
        kind: 'insufficient_evidence',
        subject: best === null ? 'no detector' : `best fit ${best} (${features.top.toFixed(2)})`,
        evidence_ids: traced.flatMap((a) => (a.divergence_evidence_id ? [a.divergence_evidence_id] : [])),
      });
  }
  const unexplained = unexplainedIndexChanges(traced);
  if (unexplained !== null) questions.push(unexplained);
  const layers = traced.map((a) => a.first_diverging_layer).filter((l) => l !== 'none');
  const layer = layers.length > 0 && layers.every((l) => l === layers[0]) ? layers[0]! : 'none';
  return {
    outcome: 'unknown',
    root_cause: 'unknown',
    // The store changed in a way no cause explains: that is where the on-call engineer looks.
    component: contradicted ? 'vector_index' : LAYER_COMPONENT[layer],
    // The probability that "unknown" is the right answer: no named cause is right.
    confidence: traced.length === 0 ? 0.5 : 1 - confidence,
    features,
    best_cause: best,
    open_questions: questions,
    knowledge_ids: [],
  };
}

const changedDiffs = (analyses: readonly ProbeAnalysis[]) =>
  analyses.flatMap((a) => (a.index_diff && indexChanged(a.index_diff.diff) ? [a.index_diff] : []));

/**
 * Whether the incident's index diffs forbid naming `cause`: the store changed, none of the diffs shows
 * the cause's signature, and some show a change no catalogue cause explains. The query path alone
 * would borrow the nearest signature (a corrupt index); the report abstains with the diff instead.
 */
export function indexContradicts(analyses: readonly ProbeAnalysis[], cause: Cause): boolean {
  const diffs = changedDiffs(analyses).map((d) => d.diff);
  if (diffs.length === 0 || diffs.some((d) => explainedBy(d).includes(cause))) return false;
  return diffs.some((d) => contradicts(d, cause));
}

/** The open question an abstention carries when the index changed in a way no catalogue cause explains. */
function unexplainedIndexChanges(analyses: readonly ProbeAnalysis[]): OpenQuestion | null {
  const diffs = changedDiffs(analyses).filter((d) => unexplainedChanges(d.diff).length > 0);
  if (diffs.length === 0) return null;
  const kinds = [...new Set(diffs.flatMap((d) => unexplainedChanges(d.diff)))].sort();
  const ids = [...new Set(diffs.flatMap((d) => d.diff.knowledge_ids))].sort();
  return {
    kind: 'index_change_unexplained',
    subject: `${kinds.join(',')} in ${ids.slice(0, 8).join(',')}`,
    evidence_ids: [...new Set(diffs.flatMap((d) => (d.evidence_id ? [d.evidence_id] : [])))],
  };
}

/** Two verdicts say the same thing when they name the same cause and component. */
export function sameVerdict(a: Pick<Verdict, 'root_cause' | 'component'> | null, b: Pick<Verdict, 'root_cause' | 'component'>): boolean {
  return a !== null && a.root_cause === b.root_cause && a.component === b.component;
}

/**
 * Whether a recomputed verdict becomes a new report revision, given the last one reported (null: none yet)
 * and whether it now implicates knowledge the last report did not name. Anomalies that no detector explains
 * (a probe caught while the fault is undone or repaired, a latency blip) lower the mean fit, but they do not
 * refute the evidence a named cause was reported on: "unknown" never replaces a named cause. It would page a
 * human for an incident the effector is already repairing, or has repaired and verified.
 */
export function revisesReport(
  previous: Pick<Verdict, 'root_cause' | 'component'> | null,
  verdict: Pick<Verdict, 'outcome' | 'root_cause' | 'component'>,
  scopeGrew: boolean,
): boolean {
  if (previous === null) return true;
  if (weakensReportedCause(previous, verdict)) return false;
  return !sameVerdict(previous, verdict) || scopeGrew;
}

/** The recomputed verdict abstains although a named cause was reported (see revisesReport). */
export function weakensReportedCause(previous: Pick<Verdict, 'root_cause'> | null, verdict: Pick<Verdict, 'outcome'>): boolean {
  return previous !== null && previous.root_cause !== 'unknown' && verdict.outcome === 'unknown';
}
