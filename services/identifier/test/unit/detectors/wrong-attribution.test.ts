/**
 * The wrong-attribution detector (issue 30, item 3) on recorded clean runs made to look like a
 * metadata swap: the cited chunk's knowledge and document ids name another document online, the
 * answer text is unchanged, and the sentinel's attribution check recorded it in the ProbeResult.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeResult } from '@rag-immune/contracts';
import type { Trace } from '@rag-immune/rag-contract';
import { attributionCheck } from '@rag-immune/probing';
import {
  analyseTraces,
  decideVerdict,
  DEFAULT_POLICY,
  diffTraces,
  DETECTORS,
  loadCalibration,
  rankCauses,
  toProbeAnalysis,
} from '../../../src/testing.ts';
import { loadRecordedRuns, type RecordedRun } from '../../fixtures/recorded-runs.ts';

const clean = loadRecordedRuns().filter(
  (r) => r.kind === 'clean' && r.baseline_trace && r.online_trace && r.baseline_trace.citations.length > 0,
);
const OTHER = 'apt/some-other-package';

/** The online trace as after swapping the cited document's ids with OTHER's in the index. */
function swapped(trace: Trace): Trace {
  const cited = trace.citations[0]!.knowledge_id;
  const swap = <T extends { knowledge_id: string; doc_id?: string }>(c: T): T =>
    c.knowledge_id === cited ? { ...c, knowledge_id: OTHER, ...(c.doc_id === undefined ? {} : { doc_id: OTHER }) } : c;
  return {
    ...trace,
    candidates: trace.candidates.map(swap),
    reranked: trace.reranked.map(swap),
    context: trace.context.map(swap),
    citations: trace.citations.map(swap),
  };
}

function faulted(run: RecordedRun, options: { sameChunkIds: boolean }) {
  const online = swapped(run.online_trace!);
  const baseline = run.baseline_trace!;
  const expected = [baseline.citations[0]!.knowledge_id];
  // Without shared chunk ids (an older baseline cites another version's chunk) only the citations tell.
  const baselineSide = options.sameChunkIds
    ? { citations: baseline.citations, chunks: baseline.context }
    : { citations: baseline.citations.map((c) => ({ ...c, chunk_id: `${c.chunk_id}@older` })), chunks: [] };
  const attribution = attributionCheck(expected, { citations: online.citations, chunks: online.context }, baselineSide);
  const result: ProbeResult = {
    ...run.result,
    anomaly: true,
    anomaly_signals: ['wrong_attribution'],
    comparison: { ...run.result.comparison, answer_agreement: 1, attribution },
  };
  return { result, diff: diffTraces(online, baseline), expected };
}

test('a right answer citing a relabelled chunk is named wrong_attribution, scoped to both documents', () => {
  assert.ok(clean.length >= 2, 'recorded clean runs with citations');
  const detector = DETECTORS.find((d) => d.cause === 'wrong_attribution');
  assert.ok(detector, 'a detector for wrong_attribution is registered');
  assert.equal(detector.component, 'vector_index');
  assert.deepEqual(detector.intents, ['rebuild_index_incremental']);
  const { result, diff, expected } = faulted(clean[0]!, { sameChunkIds: true });
  const verdict = detector.detect({ result, diff });
  assert.equal(verdict.score, 0.95);
  assert.deepEqual(verdict.knowledge_ids, [...new Set([...expected, OTHER])].sort());
  assert.ok(verdict.measurements.some((m) => m.metric === 'chunk_document_ids_equal_to_baseline' && m.observed === 0));
  assert.ok(verdict.measurements.some((m) => m.metric === 'cites_expected_source' && m.observed === 0 && m.baseline === 1));
});

test('citations alone (no chunk both sides retrieved) still count when the answer equals the baseline’s', () => {
  const detector = DETECTORS.find((d) => d.cause === 'wrong_attribution')!;
  const { result, diff } = faulted(clean[0]!, { sameChunkIds: false });
  assert.deepEqual(result.comparison.attribution?.relabelled_chunks, []);
  assert.equal(detector.detect({ result, diff }).score, 0.9);
  // The answer changed too: lost retrieval looks like this, and other detectors explain it better.
  const wrongAnswer: ProbeResult = { ...result, comparison: { ...result.comparison, answer_agreement: 0.2 } };
  const diffWrong = { ...diff, answer: { ...diff.answer, equal_to_baseline: false } };
  assert.equal(detector.detect({ result: wrongAnswer, diff: diffWrong }).score, 0.3);
});

test('over several probes it ranks first by a clear margin and the calibrated verdict names it', () => {
  const analyses = clean.slice(0, 3).map((run) => {
    const { result, diff } = faulted(run, { sameChunkIds: true });
    return toProbeAnalysis(analyseTraces(result, diff), []);
  });
  const ranked = rankCauses(analyses);
  assert.equal(ranked[0]!.cause, 'wrong_attribution', JSON.stringify(ranked));
  assert.ok(ranked[0]!.score - ranked[1]!.score > 0.2, JSON.stringify(ranked));
  const verdict = decideVerdict(analyses, loadCalibration(), DEFAULT_POLICY, 0);
  assert.equal(verdict.root_cause, 'wrong_attribution');
  assert.ok(verdict.knowledge_ids.includes(OTHER));
});

test('a clean run (attribution recorded, nothing relabelled) scores 0', () => {
  const detector = DETECTORS.find((d) => d.cause === 'wrong_attribution')!;
  const run = clean[0]!;
  const baseline = run.baseline_trace!;
  const attribution = attributionCheck(
    [baseline.citations[0]!.knowledge_id],
    { citations: run.online_trace!.citations, chunks: run.online_trace!.context },
    { citations: baseline.citations, chunks: baseline.context },
  );
  const result: ProbeResult = { ...run.result, comparison: { ...run.result.comparison, attribution } };
  assert.equal(detector.detect({ result, diff: diffTraces(run.online_trace!, baseline) }).score, 0);
});

test('a probe whose own citations are right names only the relabelled documents in its context', () => {
  const detector = DETECTORS.find((d) => d.cause === 'wrong_attribution')!;
  const run = clean[0]!;
  const baseline = run.baseline_trace!;
  const cited = baseline.citations[0]!.knowledge_id;
  const uncited = baseline.context.find((c) => c.knowledge_id !== cited);
  assert.ok(uncited, 'the recorded baseline context holds another document');
  const relabel = <T extends { knowledge_id: string; doc_id?: string }>(c: T): T =>
    c.knowledge_id === uncited.knowledge_id ? { ...c, knowledge_id: OTHER, ...(c.doc_id === undefined ? {} : { doc_id: OTHER }) } : c;
  const online = { ...run.online_trace!, context: run.online_trace!.context.map(relabel) };
  const attribution = attributionCheck(
    [cited],
    { citations: online.citations, chunks: online.context },
    { citations: baseline.citations, chunks: baseline.context },
  );
  const result: ProbeResult = { ...run.result, comparison: { ...run.result.comparison, attribution } };
  const verdict = detector.detect({ result, diff: diffTraces(online, baseline) });
  assert.ok(verdict.score > 0);
  assert.deepEqual(verdict.knowledge_ids, [OTHER, uncited.knowledge_id].sort());
});
