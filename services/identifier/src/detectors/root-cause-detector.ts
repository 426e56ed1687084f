/**
 * One interface for every root cause: a detector reads one probe's trace diff (and its ProbeResult)
 * and says how well the evidence fits its cause, with the measurements that fit rests on. Adding a
 * cause = one new file implementing this interface, registered in `index.ts` (like Argo Rollouts'
 * metric providers); what several detectors share is in `support/`.
 */
import type { EvidenceClaim, ProbeResult, RagComponent, RepairIntent, RootCause } from '@rag-immune/contracts';
import type { KnowledgeFreshness } from '@rag-immune/rag-contract';

export type ClaimKind = EvidenceClaim['kind'];
import type { TraceDiff } from '../trace-diff/trace-diff.ts';

/** One figure a verdict rests on; becomes one evidence-ledger record and may back a report claim. */
export interface Measurement {
  claim_kind: ClaimKind;
  /** A probe id, chunk id, knowledge id or component name. */
  subject: string;
  /** Machine name of the quantity, e.g. shared_score_stable_fraction. */
  metric: string;
  observed: number;
  baseline: number | null;
}

export interface DetectorInput {
  result: ProbeResult;
  diff: TraceDiff;
  /**
   * The online RAG's freshness lookup (GET /knowledge/{id}) for the knowledge ids it serves older
   * than the baseline, by id; empty when the RAG does not serve it or nothing was older.
   */
  freshness?: ReadonlyMap<string, KnowledgeFreshness>;
}

export interface DetectorVerdict {
  cause: Exclude<RootCause, 'unknown'>;
  component: RagComponent;
  /** How well this probe's evidence fits the cause, in [0,1]; not a probability (calibration makes one). */
  score: number;
  /** The measurements the score rests on (empty when the cause's signature is absent). */
  measurements: Measurement[];
  /** Knowledge ids this cause implicates for the probe (the scope of a repair). */
  knowledge_ids: string[];
}

export interface RootCauseDetector {
  readonly cause: Exclude<RootCause, 'unknown'>;
  readonly component: RagComponent;
  /** Repair intents for this cause, in order of preference. */
  readonly intents: RepairIntent[];
  /**
   * Its row in the detector table of services/identifier/README.md, which `npm run codegen` writes
   * from DETECTORS: what it looks at, and the signature it scores.
   */
  readonly readme?: { looksAt: string; signature: string };
  detect(input: DetectorInput): DetectorVerdict;
}
