/**
 * Whether damaged retrieval scores account for a probe's knowledge-freshness lag. The sentinel's
 * freshness (kf_as_of) is a relevance-weighted mean of the retrieved documents' update times, so a
 * chunk whose vector was zeroed stops counting even while it stays in the context: the freshness
 * moves although no knowledge is older. The test is a counterfactual on the probe's own documents:
 * give the damaged chunks their baseline retrieval scores back and see how much of the lag is left.
 */
import type { ProbeResult } from '@rag-immune/contracts';
import { knowledgeFreshness } from '@rag-immune/probing';

const DAY_MS = 86_400_000;

/** The damage must account for at least this share of the lag to explain it. */
const EXPLAINED_SHARE = 0.5;

export interface DamagedChunk {
  chunk_id: string;
  baseline_score: number;
}

export interface FreshnessLagAttribution {
  /** Baseline minus online freshness in days, both recomputed from the probe's documents. */
  lag_days: number;
  /** The same lag with the damaged chunks' baseline scores put back. */
  lag_days_restored: number;
  explained: boolean;
}

type RetrievedDocument = ProbeResult['online']['retrieved_documents'][number];

const asFreshnessDocuments = (documents: readonly RetrievedDocument[]) =>
  documents.map((d) => ({
    source: d.source ?? '',
    source_trust: d.source_trust,
    retrieval_score: d.retrieval_score,
    updated_at: d.updated_at,
  }));

/**
 * Null when the probe carries no usable freshness on either side or the online side is not older.
 * Trust is what the RAG reports for each document on both sides (the sentinel's own trust map is not
 * known here); both lags use it, so they compare like with like.
 */
export function attributeFreshnessLag(result: ProbeResult, damaged: readonly DamagedChunk[]): FreshnessLagAttribution | null {
  const asOf = (documents: readonly RetrievedDocument[]) => knowledgeFreshness(asFreshnessDocuments(documents), 0, {}).kf_as_of;
  const baseline = asOf(result.baseline.retrieved_documents);
  const online = asOf(result.online.retrieved_documents);
  if (baseline === null || online === null || baseline <= online) return null;
  const restoredScore = new Map(damaged.map((c) => [c.chunk_id, c.baseline_score]));
  const onlineIds = new Set(result.online.retrieved_documents.map((d) => d.chunk_id));
  const restored = asOf([
    ...result.online.retrieved_documents.map((d) =>
      restoredScore.has(d.chunk_id) ? { ...d, retrieval_score: restoredScore.get(d.chunk_id)! } : d,
    ),
    // A damaged chunk retrieval lost altogether comes back as the baseline retrieved it.
    ...result.baseline.retrieved_documents.filter((d) => restoredScore.has(d.chunk_id) && !onlineIds.has(d.chunk_id)),
  ]);
  const lag = (baseline - online) / DAY_MS;
  const lagRestored = restored === null ? lag : (baseline - restored) / DAY_MS;
  return { lag_days: lag, lag_days_restored: lagRestored, explained: lagRestored <= (1 - EXPLAINED_SHARE) * lag };
}
