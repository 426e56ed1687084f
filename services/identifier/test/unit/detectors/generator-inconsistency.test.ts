/**
 * The generator detector when the online RAG runs another generator build than its baseline (a prompt
 * redeployed, issue 27's prompt-regressed fault), on recorded clean runs made to look like one: the
 * same context both sides, another answer that states nothing its context lacks (no unsupported fact
 * to go on), and the online trace naming another generator build.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeResult } from '@rag-immune/contracts';
import type { Trace } from '@rag-immune/rag-contract';
import {
  analyseTraces,
  decideVerdict,
  DEFAULT_POLICY,
  diffTraces,
  DETECTORS,
  loadCalibration,
  toProbeAnalysis,
} from '../../../src/testing.ts';
import { loadRecordedRuns, type RecordedRun } from '../../fixtures/recorded-runs.ts';

const clean = loadRecordedRuns().filter(
  (r) => r.kind === 'clean' && r.baseline_trace && r.online_trace && r.online_trace.context.length > 0,
);
const detector = DETECTORS.find((d) => d.cause === 'generator_inconsistency')!;

/** The online side answering otherwise (no fact at all, so none unsupported), optionally on another build. */
function faulted(run: RecordedRun, options: { build?: string; contextChanged?: boolean }) {
  const baseline = run.baseline_trace!;
  const online: Trace = {
    ...run.online_trace!,
    answer: 'the answer is in the context.',
    models: { ...run.online_trace!.models, ...(options.build ? { generator: options.build } : {}) },
    ...(options.contextChanged ? { context: run.online_trace!.context.slice(1) } : {}),
  };
  const result: ProbeResult = { ...run.result, anomaly: true, anomaly_signals: ['fcs_drop'] };
  return { result, diff: diffTraces(online, baseline) };
}

test('same context, another answer, another generator build: the generator, with the build change as a claim', () => {
  assert.ok(clean.length >= 2, 'recorded clean runs');
  const { result, diff } = faulted(clean[0]!, { build: 'extractive-v9+instruct-v2' });
  assert.deepEqual(diff.models.changed, ['generator']);
  assert.equal(diff.context.identical, true);
  assert.deepEqual(diff.answer.online_unsupported, []);
  const verdict = detector.detect({ result, diff });
  assert.ok(Math.abs(verdict.score - 0.7) < 1e-9, String(verdict.score));
  const claim = verdict.measurements.find((m) => m.claim_kind === 'component_version_change');
  assert.ok(claim, 'a component_version_change measurement');
  assert.equal(claim.subject, `generator:${clean[0]!.baseline_trace!.models.generator}->extractive-v9+instruct-v2`);
});

test('another answer on the same build (a sampled answer) is not enough; nor is a build change when the context moved', () => {
  const same = faulted(clean[0]!, {});
  assert.deepEqual(same.diff.models.changed, []);
  assert.ok(Math.abs(detector.detect(same).score - 0.2) < 1e-9);
  const moved = faulted(clean[0]!, { build: 'extractive-v9+instruct-v2', contextChanged: true });
  assert.equal(moved.diff.context.identical, false);
  assert.equal(detector.detect(moved).score, 0);
});

test('over several probes the calibrated verdict names generator_inconsistency only with the build change', () => {
  const analyses = (build?: string) =>
    clean.slice(0, 3).map((run) => {
      const { result, diff } = faulted(run, build ? { build } : {});
      return toProbeAnalysis(analyseTraces(result, diff), []);
    });
  const named = decideVerdict(analyses('extractive-v9+instruct-v2'), loadCalibration(), DEFAULT_POLICY, 0);
  assert.equal(named.root_cause, 'generator_inconsistency', JSON.stringify(named.features));
  assert.equal(named.component, 'generator');
  assert.ok(named.confidence >= DEFAULT_POLICY.acceptConfidence);
  const unnamed = decideVerdict(analyses(), loadCalibration(), DEFAULT_POLICY, 0);
  assert.equal(unnamed.root_cause, 'unknown', JSON.stringify(unnamed.features));
});
