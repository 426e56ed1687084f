/** The parser-bug detector on recorded trace pairs (scripts/record-trace-pairs.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Trace } from '@rag-immune/rag-contract';
import { diffTraces, DETECTORS } from '../../../src/testing.ts';
import { loadRecordedRuns, type RecordedRun } from '../../fixtures/recorded-runs.ts';

const runs = loadRecordedRuns().filter((r) => r.online_trace && r.baseline_trace);
const detector = DETECTORS.find((d) => d.cause === 'parser_bug')!;
const diffOf = (run: RecordedRun, online: Partial<Trace> = {}) => diffTraces({ ...run.online_trace!, ...online }, run.baseline_trace!);
const reparsed = runs.filter((r) => r.kind === 'parser-bug' && diffOf(r).chunks.text_changed.length > 0);

test('the same chunk carrying other text online: a parser bug, scoped to the knowledge of the changed chunks', () => {
  assert.ok(reparsed.length > 0, 'recorded parser-bug runs whose context chunk text changed');
  for (const run of reparsed) {
    const diff = diffOf(run);
    const v = detector.detect({ result: run.result, diff });
    assert.equal(v.score, 0.95);
    assert.deepEqual(v.knowledge_ids, [...new Set(diff.chunks.text_changed.map((c) => c.knowledge_id))]);
    assert.deepEqual(
      v.measurements.map((m) => [m.claim_kind, m.subject, m.metric, m.observed, m.baseline]),
      diff.chunks.text_changed.map((c) => ['chunk_pollution', c.chunk_id, 'chunk_text_sha256_equal', 0, 1]),
    );
  }
});

test('changed chunk text under another query text counts less (the query layer may explain the retrieval)', () => {
  const run = reparsed[0]!;
  const v = detector.detect({ result: run.result, diff: diffOf(run, { rewritten_query: `${run.online_trace!.rewritten_query} again` }) });
  assert.equal(v.score, 0.6);
});

test('no chunk text changed (clean runs, other faults, a parser-bug probe that never saw a re-parsed chunk): no parser bug', () => {
  const others = runs.filter((r) => diffOf(r).chunks.text_changed.length === 0);
  assert.ok(others.some((r) => r.kind === 'clean') && others.some((r) => r.kind === 'reranker-drift'));
  for (const run of others) {
    const v = detector.detect({ result: run.result, diff: diffOf(run) });
    assert.equal(v.score, 0, `${run.kind}: ${run.probe.query}`);
    assert.deepEqual(v.knowledge_ids, []);
  }
});
