/**
 * Issue 27: the sampled mode of the probe run, through the ProbeRunner with fake RAG and FCS ports.
 * Each side is queried k times; fcs_drop and ic_drop fire only when the online samples are lower
 * than the baseline's beyond the baseline's own spread; answers are compared by their most frequent
 * key facts, not at all when the baseline's samples disagree with each other.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { RagHttpError, type QueryResponse } from '@rag-immune/rag-contract';
import { ProbeRunner, defaultThresholds, type GoldenProbe, type RagPort } from '../../src/index.ts';

const probe: GoldenProbe = {
  id: 'libxml2-version',
  version: 1,
  query: 'What is the latest version of libxml2?',
  expected_sources: [],
  business_value: 1,
  cluster: 'head',
  created_at: '2024-01-01T00:00:00Z',
  retired_at: null,
};

const chunk = {
  doc_id: 'changelog/libxml2',
  chunk_id: 'changelog/libxml2@2.9.14#0',
  knowledge_id: 'changelog/libxml2',
  version: '2.9.14',
  source: 'debian-changelog',
  source_trust: 0.9,
  updated_at: '2024-01-10T00:00:00.000Z',
  valid_from: '2024-01-10T00:00:00.000Z',
  valid_until: null,
  retrieval_score: 0.8,
  text: 'Package: libxml2 | Version: 2.9.14 | Released: 2024-01-10',
};

const response = (answer: string): QueryResponse => ({
  trace_id: 't',
  answer,
  citations: [],
  chunks: [chunk],
  models: { embedder: 'e', reranker: 'r', generator: 'g' },
  timings: { total_ms: 3 },
  as_of: '2024-06-01T00:00:00.000Z',
});

/** A RAG that gives the listed answers in turn (cycling) and counts its calls. */
function rag(answers: string[]): RagPort & { calls: number } {
  const port = {
    calls: 0,
    query: async () => response(answers[port.calls++ % answers.length]!),
  };
  return port;
}

/** Answers that state the same key facts and differ only in a lower-case word, each with its own FCS. */
const takes = (side: string, version: string, scores: number[]) =>
  scores.map((score, i) => ({ answer: `The latest version of libxml2 is ${version}, ${side} take ${'abcdefghij'[i]}.`, score }));

function runner(online: RagPort, baseline: RagPort, fcsByAnswer: Map<string, number>, samplesPerProbe?: number): ProbeRunner {
  return new ProbeRunner({
    online,
    baseline,
    fcs: {
      score: async ({ answer }) => ({ status: 'scored', score: fcsByAnswer.get(answer) ?? 0.9, truncated: false, evidence_snippets: [] }),
    },
    tracer: trace.getTracer('test'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 1000,
    callAttempts: 1,
    version: 'test',
    ...(samplesPerProbe === undefined ? {} : { samplesPerProbe }),
  });
}

function sides(online: { answer: string; score: number }[], baseline: { answer: string; score: number }[]) {
  const fcs = new Map([...online, ...baseline].map((t) => [t.answer, t.score]));
  return { online: rag(online.map((t) => t.answer)), baseline: rag(baseline.map((t) => t.answer)), fcs };
}

test('one sample a side (the default): the comparison records no sampling', async () => {
  const s = sides(takes('online', '2.9.14', [0.9]), takes('baseline', '2.9.14', [0.9]));
  const result = await runner(s.online, s.baseline, s.fcs).run(probe);
  assert.deepEqual([s.online.calls, s.baseline.calls], [1, 1]);
  assert.deepEqual(
    [result.comparison.samples, result.comparison.fcs_sample_test_p, result.comparison.ic_sample_test_p],
    [null, null, null],
  );
  const c = result.comparison;
  assert.deepEqual([c.online_fcs_median, c.baseline_fcs_median, c.online_ic_median, c.baseline_ic_median], [null, null, null, null]);
});

test('a deterministic RAG: equal samples never fire, a consistent FCS drop does', async () => {
  const same = sides(takes('online', '2.9.14', [0.9]), takes('baseline', '2.9.14', [0.9]));
  const quiet = await runner(same.online, same.baseline, same.fcs, 5).run(probe);
  assert.deepEqual([same.online.calls, same.baseline.calls], [5, 5]);
  assert.equal(quiet.anomaly, false, quiet.anomaly_signals.join(','));
  assert.deepEqual([quiet.comparison.samples, quiet.comparison.fcs_sample_test_p, quiet.comparison.fcs_drop], [5, 1, 0]);

  const worse = sides(takes('online', '2.9.14', [0.5]), takes('baseline', '2.9.14', [0.9]));
  const fired = await runner(worse.online, worse.baseline, worse.fcs, 5).run(probe);
  assert.deepEqual(fired.anomaly_signals, ['fcs_drop']);
  assert.ok(Math.abs(fired.comparison.fcs_sample_test_p! - 1 / 252) < 1e-12);
  assert.ok(Math.abs(fired.comparison.fcs_drop! - 0.4) < 1e-12);
});

test('sampling noise that fires sample against sample stays quiet against the baseline spread', async () => {
  const onlineScores = [0.1, 0.9, 0.2, 0.8, 0.3];
  const baselineScores = [0.9, 0.1, 0.85, 0.2, 0.7];
  const one = sides(takes('online', '2.9.14', onlineScores), takes('baseline', '2.9.14', baselineScores));
  // One call a side: the first pair (0.1 against 0.9) is an fcs_drop.
  assert.deepEqual((await runner(one.online, one.baseline, one.fcs).run(probe)).anomaly_signals, ['fcs_drop']);
  const five = sides(takes('online', '2.9.14', onlineScores), takes('baseline', '2.9.14', baselineScores));
  const result = await runner(five.online, five.baseline, five.fcs, 5).run(probe);
  assert.equal(result.anomaly, false, result.anomaly_signals.join(','));
  assert.ok(result.comparison.fcs_drop! > defaultThresholds.fcsDrop, 'the median drop alone would fire');
  assert.ok(result.comparison.fcs_sample_test_p! > 0.01);
  // Issue 39: the medians the drop compares travel with the result; online.signals is one sample's.
  assert.equal(result.online.signals?.fcs, 0.1);
  assert.deepEqual([result.comparison.online_fcs_median, result.comparison.baseline_fcs_median], [0.3, 0.7]);
  assert.ok(Math.abs(result.comparison.fcs_drop! - 0.4) < 1e-12);
  assert.equal(typeof result.comparison.online_ic_median, 'number');
  assert.equal(typeof result.comparison.baseline_ic_median, 'number');
});

test('answers: compared by the most frequent key facts, only when the online side lost them beyond chance', async () => {
  // The baseline says 2.9.14 on every call; the online side, from the same evidence, never does.
  // The first sample each side reports is the one stating its most frequent facts.
  const replaced = sides(
    [...takes('online', '9.9.9', [0.9, 0.9, 0.9]), ...takes('online', '1.0.0', [0.9, 0.9])],
    takes('baseline', '2.9.14', [0.9, 0.9, 0.9, 0.9, 0.9]),
  );
  const disagreement = await runner(replaced.online, replaced.baseline, replaced.fcs, 5).run(probe);
  assert.deepEqual(disagreement.anomaly_signals, ['answer_disagreement']);
  assert.ok(disagreement.comparison.answer_agreement! < 1, 'the modal facts were compared and differ');

  // Issue 27, seen on a clean loop round: both sides sample the same answers, the baseline states
  // 2.9.14 in 4 of 5, the online side in 2 of 5, so the modal facts differ. That is within chance
  // (exact p 0.26): the answers are not compared, no answer_disagreement.
  const chance = sides(
    [...takes('online', '2.9.14', [0.9]), ...takes('online', '9.9.9', [0.9, 0.9, 0.9]), ...takes('online', '2.9.14', [0.9])],
    [...takes('baseline', '9.9.9', [0.9]), ...takes('baseline', '2.9.14', [0.9, 0.9, 0.9, 0.9])],
  );
  const quiet = await runner(chance.online, chance.baseline, chance.fcs, 5).run(probe);
  assert.equal(quiet.anomaly, false, quiet.anomaly_signals.join(','));
  assert.equal(quiet.comparison.answer_agreement, null);

  // The baseline states a different version on every call: its own answers carry no fact to hold
  // the online side to, so there is no answer comparison (and no false answer_disagreement).
  const unstable = sides(takes('online', '9.9.9', [0.9, 0.9, 0.9, 0.9, 0.9]), [
    ...takes('baseline', '2.9.14', [0.9, 0.9]),
    ...takes('baseline', '1.0.0', [0.9, 0.9]),
    ...takes('baseline', '3.1.0', [0.9]),
  ]);
  const skipped = await runner(unstable.online, unstable.baseline, unstable.fcs, 5).run(probe);
  assert.equal(skipped.anomaly, false, skipped.anomaly_signals.join(','));
  assert.equal(skipped.comparison.answer_agreement, null);
});

test('a failed online call ends that side: reported as online_error after one call', async () => {
  const baseline = rag(['The latest version of libxml2 is 2.9.14.']);
  const online: RagPort & { calls: number } = {
    calls: 0,
    query: async () => {
      online.calls++;
      throw new RagHttpError(400, 'query', 'bad request');
    },
  };
  const result = await runner(online, baseline, new Map(), 5).run(probe);
  assert.equal(online.calls, 1);
  assert.equal(baseline.calls, 5);
  assert.deepEqual(result.anomaly_signals, ['online_error']);
});

test('a sample count that can never reach its alpha is refused with the reason', () => {
  const s = sides(takes('online', '2.9.14', [0.9]), takes('baseline', '2.9.14', [0.9]));
  assert.throws(() => runner(s.online, s.baseline, s.fcs, 3), /3 samples a side can never reach p < 0.01/);
  assert.throws(() => runner(s.online, s.baseline, s.fcs, 0), /integer >= 1/);
});

test('empty answers: some empty samples are sampling, an online side that stopped answering fires', async () => {
  // Seen clean on the LangChain RAG (2026-12-07): the online side's representative sample was empty.
  const empties = [
    { answer: '', score: 0 },
    { answer: ' ', score: 0 },
  ];
  const some = sides([...empties, ...takes('online', '2.9.14', [0.9, 0.9, 0.9])], takes('baseline', '2.9.14', [0.9, 0.9, 0.9, 0.9, 0.9]));
  const quiet = await runner(some.online, some.baseline, some.fcs, 5).run(probe);
  assert.equal(quiet.anomaly_signals.includes('empty_answer'), false, quiet.anomaly_signals.join(','));
  const all = sides([{ answer: '', score: 0 }], takes('baseline', '2.9.14', [0.9, 0.9, 0.9, 0.9, 0.9]));
  const fired = await runner(all.online, all.baseline, all.fcs, 5).run(probe);
  assert.ok(fired.anomaly_signals.includes('empty_answer'), fired.anomaly_signals.join(','));
});
