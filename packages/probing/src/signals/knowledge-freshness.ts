/**
 * Knowledge freshness (KF), design document section 3.3:
 *   KF = Σ(w_i · t_i) / Σ(w_i),  w_i = source_trust_i × relevance_i
 * over the retrieved documents, t_i being each document's update time. Trust comes from the
 * sentinel's configuration per source (falling back to what the RAG reports, then to a default),
 * relevance is the retriever's similarity clamped to [0, 1]. The result is a date (kf_as_of) and
 * an age in days at the moment the answer was given (the RAG's own as-of time, so a baseline
 * frozen in the past is judged at its pinned time, not against today).
 */

export interface FreshnessDocument {
  source: string;
  source_trust?: number | null;
  retrieval_score?: number | null;
  updated_at: number | null;
}

export interface KnowledgeFreshness {
  kf_as_of: number | null;
  kf_age_days: number | null;
  weight: number;
}

const DAY_MS = 86_400_000;

export function knowledgeFreshness(
  documents: readonly FreshnessDocument[],
  answeredAt: number,
  sourceTrust: Readonly<Record<string, number>>,
  defaultTrust = 0.5,
): KnowledgeFreshness {
  let weighted = 0;
  let total = 0;
  for (const doc of documents) {
    if (doc.updated_at === null) continue;
    const trust = sourceTrust[doc.source] ?? doc.source_trust ?? defaultTrust;
    const relevance = Math.min(1, Math.max(0, doc.retrieval_score ?? 0));
    const w = trust * relevance;
    weighted += w * doc.updated_at;
    total += w;
  }
  if (total === 0) return { kf_as_of: null, kf_age_days: null, weight: 0 };
  const kfAsOf = Math.round(weighted / total);
  return { kf_as_of: kfAsOf, kf_age_days: (answeredAt - kfAsOf) / DAY_MS, weight: total };
}
