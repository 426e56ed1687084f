/**
 * The unpublished-knowledge detector (issue 30, item 2) on a recorded clean run made to look like a
 * bad ingest: the online side serves a new version of the cited knowledge that its feed never
 * published, as the sentinel's feed check recorded it in the ProbeResult.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeResult } from '@rag-immune/contracts';
import type { Trace } from '@rag-immune/rag-contract';
import {
  analyseTraces,
  evidenceDrafts,
  decideVerdict,
  DEFAULT_POLICY,
  diffTraces,
  DETECTORS,
  loadCalibration,
  rankCauses,
  toProbeAnalysis,
} from '../../../src/testing.ts';
import { loadRecordedRuns } from '../../fixtures/recorded-runs.ts';

const clean = loadRecordedRuns().filter(
  (r) => r.kind === 'clean' && r.baseline_trace && r.online_trace && r.baseline_trace.citations.length > 0,
);

/** The online trace serves `version` of the cited knowledge, valid since after the baseline's pin (a leaked record). */
function withUnpublishedVersion(trace: Trace, version: string): { trace: Trace; knowledgeId: string; validFrom: number } {
  const cited = trace.citations[0]!;
  const validFrom = Date.parse(trace.as_of) + 3_600_000;
  const relabel = <T extends { chunk_id: string; knowledge_id: string; version: string }>(c: T): T =>
    c.chunk_id === cited.chunk_id ? { ...c, chunk_id: `${c.chunk_id}+leak`, version } : c;
  return {
    knowledgeId: cited.knowledge_id,
    validFrom,
    trace: {
      ...trace,
      candidates: trace.candidates.map(relabel),
      reranked: trace.reranked.map(relabel),
      context: trace.context.map((c) =>
        c.chunk_id === cited.chunk_id
          ? { ...relabel(c), valid_from: new Date(validFrom).toISOString(), updated_at: new Date(validFrom).toISOString() }
          : c,
      ),
      citations: trace.citations.map(relabel),
    },
  };
}

function faulted(run: (typeof clean)[number]) {
  const { trace, knowledgeId, validFrom } = withUnpublishedVersion(run.online_trace!, '99.0-test1');
  const result: ProbeResult = {
    ...run.result,
    anomaly: true,
    anomaly_signals: ['unpublished_knowledge'],
    comparison: {
      ...run.result.comparison,
      feed_check: 'ahead_of_feed',
      unpublished_knowledge: [
        {
          knowledge_id: knowledgeId,
          online_version: '99.0-test1',
          online_valid_from: validFrom,
          feed_version: '1.0-1',
          feed_valid_from: validFrom - 86_400_000,
        },
      ],
    },
  };
  return { result, diff: diffTraces(trace, run.baseline_trace!), knowledgeId };
}

test('a version the feed never published is named unpublished_knowledge, scoped to its knowledge id', () => {
  assert.ok(clean.length >= 2, 'recorded clean runs with citations');
  const detector = DETECTORS.find((d) => d.cause === 'unpublished_knowledge');
  assert.ok(detector, 'a detector for unpublished_knowledge is registered');
  assert.equal(detector.component, 'vector_index');
  assert.deepEqual(detector.intents, ['rebuild_index_incremental']);
  const { result, diff, knowledgeId } = faulted(clean[0]!);
  const verdict = detector.detect({ result, diff });
  assert.ok(verdict.score >= 0.85, `score ${verdict.score}`);
  assert.deepEqual(verdict.knowledge_ids, [knowledgeId]);
  assert.deepEqual(
    verdict.measurements.map((m) => `${m.claim_kind}:${m.metric}=${m.observed}`),
    ['chunk_pollution:indexed_version_published_by_feed=0', 'knowledge_staleness:indexed_ahead_of_feed_days=1'],
  );
});

test('over several probes it ranks first by a clear margin and the calibrated verdict names it', () => {
  const analyses = clean.slice(0, 3).map((run) => {
    const { result, diff } = faulted(run);
    return toProbeAnalysis(analyseTraces(result, diff), []);
  });
  const ranked = rankCauses(analyses);
  assert.equal(ranked[0]!.cause, 'unpublished_knowledge', JSON.stringify(ranked));
  assert.ok(ranked[0]!.score - ranked[1]!.score > 0.3, JSON.stringify(ranked));
  const verdict = decideVerdict(analyses, loadCalibration(), DEFAULT_POLICY, 0);
  assert.equal(verdict.root_cause, 'unpublished_knowledge');
  assert.equal(verdict.component, 'vector_index');
  assert.ok(verdict.knowledge_ids.length > 0);
});

test('no feed check in the ProbeResult (a RAG without the lookup, or an older sentinel): the detector stays silent', () => {
  const detector = DETECTORS.find((d) => d.cause === 'unpublished_knowledge')!;
  const { result, diff } = faulted(clean[0]!);
  const unchecked: ProbeResult = {
    ...result,
    comparison: { ...result.comparison, feed_check: 'lookup_not_served', unpublished_knowledge: [] },
  };
  assert.equal(detector.detect({ result: unchecked, diff }).score, 0);
  // A version under an id whose chunks carry other documents' ids is a relabel (wrong attribution), not this.
  const relabelled: ProbeResult = {
    ...result,
    comparison: {
      ...result.comparison,
      attribution: {
        expected_sources: [],
        online_cited: [],
        baseline_cited: [],
        relabelled_chunks: ['x'],
        relabelled_knowledge_ids: result.comparison.unpublished_knowledge.map((u) => u.knowledge_id),
      },
    },
  };
  assert.equal(detector.detect({ result: relabelled, diff }).score, 0);
});

test('the first-divergence evidence record says whether the newer knowledge could be checked against its feed', () => {
  const { result, diff } = faulted(clean[0]!);
  const detailOf = (r: ProbeResult) => evidenceDrafts(analyseTraces(r, diff)).find((d) => d.metric === 'first_diverging_layer')!.detail;
  assert.equal(detailOf(result).feed_check, 'ahead_of_feed');
  const unchecked: ProbeResult = {
    ...result,
    comparison: { ...result.comparison, feed_check: 'lookup_not_served', unpublished_knowledge: [] },
  };
  assert.equal(detailOf(unchecked).feed_check, 'lookup_not_served');
});
