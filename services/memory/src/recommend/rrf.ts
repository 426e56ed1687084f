/**
 * Reciprocal rank fusion (Cormack et al. 2009; seed 004 §5.2): each list adds 1/(k + rank) for
 * every id it holds (rank from 1). Ranks, not raw scores, are fused, so BM25's unbounded scores and
 * cosine similarities need no common scale. Ties break by the id so the order is deterministic.
 */
export function reciprocalRankFusion(lists: readonly (readonly string[])[], k = 60): { id: string; score: number }[] {
  if (!(k > 0)) throw new RangeError(`rrf k must be positive, got ${k}`);
  const scores = new Map<string, number>();
  for (const list of lists) {
    const seen = new Set<string>();
    list.forEach((id, index) => {
      if (seen.has(id)) return; // an id counts once per list, at its best rank
      seen.add(id);
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1));
    });
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}
