/**
 * Issue 27: the verification of a repair on a RAG whose LLM samples. Both sides answer from the same
 * spread (a good and a bad take in turn, in another order on each side), as after a repair that
 * healed. One sample a side compares the online side's bad take with the baseline's good one and
 * calls the repair a failure (it would be undone); with EFFECTOR_VERIFY_SAMPLES_PER_PROBE the
 * verification runs the sentinel's sampled test and sees no drop beyond the baseline's own spread.
 * A setting whose test could never fire is refused at start, naming the variable. Issue 39: the
 * verification's FCS is the median over a probe's online samples, not its representative sample's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import { exampleRootCauseReport } from '@rag-immune/contracts';
import { ProbeRunner, defaultThresholds, type RagPort } from '@rag-immune/probing';
import type { QueryResponse } from '@rag-immune/rag-contract';
import { RecoveryVerifier, effectorConfigFromEnv, verificationSampling } from '../../src/index.ts';

const base = {
  EFFECTOR_ONLINE_RAG_URL: 'http://127.0.0.1:1',
  EFFECTOR_BASELINE_RAG_URL: 'http://127.0.0.1:2',
  EFFECTOR_QDRANT_COLLECTION: 'c',
  EFFECTOR_API_TOKEN: 'effector-token-0123456789',
};

const GOOD = 'The latest version of openssl is 3.0.17-1.';
const BAD = 'Section: utils | Priority: optional';

/** One changelog chunk, the same on both sides: only the generated answer differs. */
const chunk = {
  knowledge_id: 'changelog/openssl',
  doc_id: 'changelog/openssl',
  chunk_id: 'changelog/openssl@3.0.17-1#0',
  version: '3.0.17-1',
  text: 'Package: openssl | Version: 3.0.17-1',
  source: 'debian-changelog',
  source_trust: 0.9,
  retrieval_score: 0.8,
  valid_from: '2024-01-10T00:00:00.000Z',
  updated_at: '2024-01-10T00:00:00.000Z',
  valid_until: null,
};
const response = (answer: string): QueryResponse => ({
  answer,
  chunks: [chunk],
  citations: [],
  trace_id: 't',
  as_of: '2024-06-01T00:00:00.000Z',
  models: { embedder: 'e', reranker: 'r', generator: 'g' },
  timings: { total_ms: 3 },
});

/** A sampling RAG: the listed takes in turn. */
const sampling = (takes: string[]): RagPort => {
  let call = 0;
  return { query: async () => response(takes[call++ % takes.length]!) };
};

/** Takes that state GOOD's facts in other words, scored lower by the FCS model (issue 39's median test). */
const GOOD_NEWEST = 'The newest version of openssl is 3.0.17-1.';
const GOOD_CURRENT = 'The current version of openssl is 3.0.17-1.';
const FCS: Record<string, number> = { [GOOD]: 0.9, [GOOD_NEWEST]: 0.6, [GOOD_CURRENT]: 0.5 };

async function verify(
  env: Record<string, string>,
  takes = {
    // The same spread on both sides, the online side starting with its bad take.
    online: [BAD, GOOD, GOOD, BAD, GOOD],
    baseline: [GOOD, BAD, GOOD, GOOD, BAD],
  },
) {
  const config = effectorConfigFromEnv({ ...base, ...env });
  const scores = {
    score: async ({ answer }: { answer: string }) => ({
      status: 'scored' as const,
      score: FCS[answer] ?? 0.1,
      truncated: false,
      evidence_snippets: [],
    }),
  };
  const runner = new ProbeRunner({
    ...verificationSampling(config),
    version: 'test',
    callTimeoutMs: 1000,
    callAttempts: 1,
    online: sampling(takes.online),
    baseline: sampling(takes.baseline),
    fcs: scores,
    thresholds: defaultThresholds,
    sourceTrust: {},
    tracer: trace.getTracer('test'),
  });
  return new RecoveryVerifier(runner, 10_000).measure(exampleRootCauseReport());
}

test('one sample a side: sampling noise alone reads as a failed repair', async () => {
  const measured = await verify({});
  assert.equal(measured.recovered, false);
  assert.ok(measured.results[0]!.anomaly_signals.includes('fcs_drop'));
});

test('EFFECTOR_VERIFY_SAMPLES_PER_PROBE=5: the sampled test sees no drop beyond the baseline’s spread, the repair is kept', async () => {
  const measured = await verify({ EFFECTOR_VERIFY_SAMPLES_PER_PROBE: '5', EFFECTOR_VERIFY_SAMPLE_ALPHA: '0.01' });
  assert.equal(measured.results[0]!.comparison.samples, 5);
  assert.deepEqual(measured.results[0]!.anomaly_signals, []);
  assert.equal(measured.recovered, true);
});

test('sampled: the verification reports the median FCS of the online samples, not the representative sample’s', async () => {
  // The modal facts (3.0.17-1, three takes of five) are first stated by GOOD (0.9): the published
  // online observation is that take alone; the median over the five takes is 0.5.
  const measured = await verify(
    { EFFECTOR_VERIFY_SAMPLES_PER_PROBE: '5', EFFECTOR_VERIFY_SAMPLE_ALPHA: '0.01' },
    { online: [GOOD, GOOD_NEWEST, GOOD_CURRENT, BAD, BAD], baseline: [GOOD, GOOD, GOOD, GOOD, GOOD] },
  );
  const result = measured.results[0]!;
  assert.equal(result.online.signals?.fcs, 0.9);
  assert.equal(result.comparison.online_fcs_median, 0.5);
  assert.equal(result.comparison.baseline_fcs_median, 0.9);
  assert.equal(measured.fcs, 0.5);
});

test('one call a side: no medians, the verification reports that call’s FCS', async () => {
  const measured = await verify({}, { online: [GOOD_NEWEST], baseline: [GOOD] });
  const result = measured.results[0]!;
  assert.equal(result.comparison.online_fcs_median, null);
  assert.equal(result.comparison.baseline_ic_median, null);
  assert.equal(measured.fcs, 0.6);
});

test('a sampling setting whose test can never fire is refused, naming the variable', () => {
  assert.throws(
    () => effectorConfigFromEnv({ ...base, EFFECTOR_VERIFY_SAMPLES_PER_PROBE: '3', EFFECTOR_VERIFY_SAMPLE_ALPHA: '0.01' }),
    /EFFECTOR_VERIFY_SAMPLES_PER_PROBE.*never reach p < 0.01/,
  );
  assert.deepEqual(verificationSampling(effectorConfigFromEnv(base)), { samplesPerProbe: 1, sampleAlpha: 0.01 });
});
