import { misattributed } from '@rag-immune/probing';
import type { DetectorVerdict, RootCauseDetector } from './root-cause-detector.ts';
import { bool, catalogued } from './support/detector-helpers.ts';

/**
 * Wrong attribution: the chunk metadata names the wrong document (ids swapped between documents in
 * the index), so the answer cites another source than the one it came from. The sentinel compared
 * the cited knowledge ids with the probe's expected sources and the baseline's citations, and the
 * chunk ids both sides retrieved with their knowledge and document ids (ProbeResult
 * `comparison.attribution`). A chunk that carries other ids online than in the baseline is direct
 * evidence; citations of an unexpected source while the answer still equals the baseline's are
 * strong evidence; an unexpected citation with a wrong answer is what lost retrieval looks like too
 * (the other detectors explain that better), so it counts little here.
 */
export const wrongAttributionDetector: RootCauseDetector = {
  ...catalogued('wrong_attribution'),
  readme: {
    looksAt: "the ProbeResult's attribution check (`comparison.attribution`), the answer against the baseline's",
    signature:
      "chunk metadata names the wrong document: 0.95 when a chunk both sides retrieved carries other knowledge/document ids online; 0.9 when the online answer cites none of the probe's expected sources (the baseline cites one) and still equals the baseline's answer; 0.3 when it cites elsewhere with a wrong answer (lost retrieval looks like that; the retrieval detectors explain it better). Claims `chunk_pollution` `chunk_document_ids_equal_to_baseline` = 0 per relabelled chunk, `cites_expected_source`, `answer_fact_mismatch` `answer_equal_to_baseline`. Scope: both sides of the mix-up (relabelled ids, expected and cited sources); repair: re-ingest those documents (`rebuild_index_incremental`). Misses a swap whose answers also go wrong and whose chunks the baseline does not share (an older baseline); the reranker-drift detector also scores such a run (subject matching moves with the ids: order changed on identical input), lower",
  },
  detect({ result, diff }): DetectorVerdict {
    const check = result.comparison.attribution;
    if (check === null || check === undefined || !misattributed(check))
      return { cause: this.cause, component: this.component, score: 0, measurements: [], knowledge_ids: [] };
    const expected = new Set(check.expected_sources);
    const citesExpected = check.online_cited.some((id) => expected.has(id));
    const answerHolds = diff.answer.equal_to_baseline || result.comparison.answer_agreement === 1;
    const relabelled = check.relabelled_chunks.length > 0;
    const score = relabelled ? 0.95 : answerHolds ? 0.9 : 0.3;
    // Re-ingest both sides of the mix-up: the relabelled documents, and when the citations miss, the
    // documents the answer should cite and those it cites (a probe whose own citations are right
    // names only the relabelled ones it saw in its context).
    const knowledgeIds = [
      ...new Set([...check.relabelled_knowledge_ids, ...(citesExpected ? [] : [...check.expected_sources, ...check.online_cited])]),
    ].sort();
    return {
      cause: this.cause,
      component: this.component,
      score,
      knowledge_ids: knowledgeIds,
      measurements: [
        ...check.relabelled_chunks.map((chunkId) => ({
          claim_kind: 'chunk_pollution' as const,
          subject: chunkId,
          metric: 'chunk_document_ids_equal_to_baseline',
          observed: 0,
          baseline: 1,
        })),
        {
          claim_kind: 'chunk_pollution' as const,
          subject: result.probe_id,
          metric: 'cites_expected_source',
          observed: bool(citesExpected),
          baseline: bool(check.baseline_cited.some((id) => expected.has(id))),
        },
        {
          claim_kind: 'answer_fact_mismatch' as const,
          subject: result.probe_id,
          metric: 'answer_equal_to_baseline',
          observed: bool(answerHolds),
          baseline: 1,
        },
      ],
    };
  },
};
