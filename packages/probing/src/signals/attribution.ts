/**
 * Wrong attribution (issue 30, item 3). When chunk metadata names the wrong document (ids swapped
 * between two documents in the index), the answer text can stay right while its citations point at
 * another source: FCS, IC and answer agreement all stay green. The probe knows where its answer must
 * come from (`expected_sources`) and the baseline shows where it did come from; a chunk both sides
 * retrieved under different knowledge or document ids is direct evidence of relabelled metadata.
 */
import type { AttributionCheck } from '@rag-immune/contracts';

/** What one side answered from, as the contract's response has it. */
export interface CitingSide {
  citations: readonly { chunk_id: string; doc_id: string; knowledge_id: string }[];
  chunks: readonly { chunk_id: string; doc_id: string; knowledge_id: string }[];
}

/** Which knowledge each side cites, and the chunks whose ids differ between the sides. Null when the online answer cites nothing. */
export function attributionCheck(expectedSources: readonly string[], online: CitingSide, baseline: CitingSide): AttributionCheck | null {
  if (online.citations.length === 0) return null;
  const labels = (side: CitingSide) => new Map([...side.chunks, ...side.citations].map((c) => [c.chunk_id, c]));
  const baselineLabels = labels(baseline);
  const relabelled = new Set<string>();
  const relabelledIds = new Set<string>();
  for (const [chunkId, chunk] of labels(online)) {
    const twin = baselineLabels.get(chunkId);
    if (twin === undefined || (twin.knowledge_id === chunk.knowledge_id && twin.doc_id === chunk.doc_id)) continue;
    relabelled.add(chunkId);
    relabelledIds.add(chunk.knowledge_id).add(twin.knowledge_id);
  }
  const cited = (side: CitingSide) => [...new Set(side.citations.map((c) => c.knowledge_id))].sort();
  return {
    expected_sources: [...expectedSources],
    online_cited: cited(online),
    baseline_cited: cited(baseline),
    relabelled_chunks: [...relabelled].sort(),
    relabelled_knowledge_ids: [...relabelledIds].sort(),
  };
}

/**
 * The online answer is attributed wrongly: a chunk carries another document's ids than in the
 * baseline, or the online answer cites none of the probe's expected sources while the baseline cites
 * one (the baseline's agreement keeps a probe whose expectation is out of date from firing).
 */
export function misattributed(check: AttributionCheck | null | undefined): boolean {
  if (check === null || check === undefined) return false;
  if (check.relabelled_chunks.length > 0) return true;
  const expected = new Set(check.expected_sources);
  const citesExpected = (cited: readonly string[]) => cited.some((id) => expected.has(id));
  return check.online_cited.length > 0 && !citesExpected(check.online_cited) && citesExpected(check.baseline_cited);
}
