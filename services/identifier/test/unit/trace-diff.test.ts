/** The trace diff on recorded trace pairs (scripts/record-trace-pairs.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffTraces } from '../../src/testing.ts';
import { loadRecordedRuns } from '../fixtures/recorded-runs.ts';

const runs = loadRecordedRuns();

test('trace diff: a lookalike hyphen in the rewritten query is the query layer; answer facts are checked against the cited chunk', () => {
  const run = runs.find((r) => r.kind === 'tokenizer-anomaly' && r.result.anomaly)!;
  const diff = diffTraces(run.online_trace!, run.baseline_trace!);
  assert.equal(diff.query.rewritten_equal, false);
  assert.ok(diff.query.online_suspicious_chars > 0);
  assert.equal(diff.query.baseline_suspicious_chars, 0);
  const generator = runs.find((r) => r.kind === 'generator-inconsistency' && r.result.anomaly)!;
  const gdiff = diffTraces(generator.online_trace!, generator.baseline_trace!);
  assert.equal(gdiff.context.identical, true);
  assert.ok(gdiff.answer.online_unsupported.length > 0);
  assert.deepEqual(gdiff.answer.baseline_unsupported, []);
});
