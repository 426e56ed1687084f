/**
 * Issue 39: the pooled test through the ProbeRunner with fake RAG and FCS ports. The evidence of a
 * probe's runs accumulates; a faithful online answer carrying another fact is found by the facts
 * detector with FCS unchanged; a doubtful probe gets more calls; the ProbeResult reports the
 * e-values, statistics and RAG calls; without the option nothing changes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trace } from '@opentelemetry/api';
import type { QueryResponse } from '@rag-immune/rag-contract';
import { ProbeRunner, defaultThresholds, type GoldenProbe, type PooledTestOptions, type RagPort } from '../../src/index.ts';

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

const response = (answer: string): QueryResponse => ({
  trace_id: 't',
  answer,
  citations: [],
  chunks: [
    {
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
    },
  ],
  models: { embedder: 'e', reranker: 'r', generator: 'g' },
  timings: { total_ms: 3 },
  as_of: '2024-06-01T00:00:00.000Z',
});

/** A RAG answering `version` in sampled wording, counting its calls. */
function rag(version: string): RagPort & { calls: number } {
  const port = { calls: 0, query: async () => response(`The latest version of libxml2 is ${version}, take ${port.calls++ % 7}.`) };
  return port;
}

function runner(online: RagPort, baseline: RagPort, fcs: (answer: string) => number, pooled?: PooledTestOptions, samples = 2): ProbeRunner {
  return new ProbeRunner({
    online,
    baseline,
    fcs: { score: async ({ answer }) => ({ status: 'scored', score: fcs(answer), truncated: false, evidence_snippets: [] }) },
    tracer: trace.getTracer('test'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 1000,
    callAttempts: 1,
    version: 'test',
    samplesPerProbe: samples,
    ...(pooled ? { pooled } : {}),
  });
}

test('clean runs stay quiet at the base count, and each result reports the pooled test', async () => {
  const online = rag('2.9.14');
  const baseline = rag('2.9.14');
  const r = runner(online, baseline, () => 0.9, { alpha: 0.01, maxSamples: 5 });
  for (let run = 0; run < 8; run++) {
    const result = await r.run(probe);
    assert.equal(result.anomaly, false, result.anomaly_signals.join(','));
    assert.equal(result.comparison.samples, 2);
    const pooled = result.comparison.pooled_test!;
    assert.deepEqual([pooled.level, pooled.threshold, pooled.rag_calls], [0.01, 300, 4]);
    assert.equal(pooled.facts_p, 1);
  }
  assert.deepEqual([online.calls, baseline.calls], [16, 16]);
});

test('a faithful online answer carrying another fact: FCS unchanged, found by the facts detector, more calls while in doubt', async () => {
  const online = rag('2.9.15');
  const baseline = rag('2.9.14');
  const r = runner(online, baseline, () => 0.9, { alpha: 0.01, maxSamples: 5, leanFraction: 0.001 });
  const results = [];
  for (let run = 0; run < 8 && !results.at(-1)?.anomaly; run++) results.push(await r.run(probe));
  const fired = results.at(-1)!;
  assert.deepEqual(fired.anomaly_signals, ['answer_disagreement']);
  assert.ok(results.length <= 4, `fired after ${results.length} runs`);
  assert.equal(fired.comparison.fcs_drop, 0);
  const pooled = fired.comparison.pooled_test!;
  assert.ok(pooled.facts_statistic >= pooled.threshold && pooled.fcs_statistic < pooled.threshold);
  // The first run at the base count; once the evidence leaned, the larger count.
  assert.equal(results[0]!.comparison.samples, 2);
  assert.equal(fired.comparison.samples, 5);
  assert.equal(pooled.rag_calls, 10);
  // The detector restarted after its alarm: the next run starts from fresh evidence.
  const next = await r.run(probe);
  assert.ok(next.comparison.pooled_test!.facts_statistic < pooled.threshold);
});

test('an FCS drop fires once the pooled evidence reaches the threshold, not on one run', async () => {
  // The scorer tells the sides apart by their wording: the online answers score 0.3, the baseline's 0.9.
  const low = { calls: 0, query: async () => response(`Online: libxml2 is at 2.9.14 now, take ${low.calls++ % 7}.`) };
  const r = runner(low, rag('2.9.14'), (answer) => (answer.startsWith('Online') ? 0.3 : 0.9), { alpha: 0.01 });
  const first = await r.run(probe);
  assert.equal(first.anomaly_signals.includes('fcs_drop'), false, 'one run of 2 a side is not enough');
  let runs = 1;
  let fired = first;
  while (!fired.anomaly_signals.includes('fcs_drop') && runs < 12) {
    fired = await r.run(probe);
    runs += 1;
  }
  assert.ok(fired.anomaly_signals.includes('fcs_drop'), `no fcs_drop in ${runs} runs`);
  assert.ok(runs >= 2 && fired.comparison.pooled_test!.fcs_statistic >= 300);
});

test('without the option a sampled run is judged on its own, as before: no pooled_test', async () => {
  const result = await runner(rag('2.9.15'), rag('2.9.14'), () => 0.9, undefined, 5).run(probe);
  assert.equal(result.comparison.pooled_test, null);
  assert.throws(
    () =>
      new ProbeRunner({
        online: rag('1'),
        baseline: rag('1'),
        fcs: { score: async () => ({ status: 'scored', score: 1, truncated: false, evidence_snippets: [] }) },
        tracer: trace.getTracer('test'),
        thresholds: defaultThresholds,
        sourceTrust: {},
        callTimeoutMs: 1000,
        callAttempts: 1,
        version: 'test',
        samplesPerProbe: 1,
        pooled: { alpha: 0.01 },
      }),
    /the pooled test needs at least 2 samples a side/,
  );
});

test('a failed online call: the run reports online_error as before and the pooled evidence is left as it was', async () => {
  const good = rag('2.9.15');
  let failing = false;
  const online: RagPort = {
    query: async (...args) => {
      if (failing) throw new Error('connection refused');
      return good.query(...args);
    },
  };
  const r = runner(online, rag('2.9.14'), () => 0.9, { alpha: 0.01 });
  const before = (await r.run(probe)).comparison.pooled_test!;
  assert.ok(before.facts_statistic > 1, String(before.facts_statistic));
  failing = true;
  const result = await r.run(probe);
  assert.ok(result.anomaly_signals.includes('online_error'));
  const pooled = result.comparison.pooled_test!;
  assert.deepEqual(
    [pooled.fcs_e, pooled.ic_e, pooled.facts_e, pooled.rag_calls],
    [null, null, null, 3], // one failed online call ends that side's sampling; the baseline's two
  );
  assert.deepEqual([pooled.fcs_statistic, pooled.facts_statistic], [before.fcs_statistic, before.facts_statistic]);
});

test('across probes: two probes on one knowledge id reach an FCS drop in fewer rounds pooled, and the result names the pool and its probes', async () => {
  const onKnowledge = (id: string): GoldenProbe => ({ ...probe, id, expected_sources: ['changelog/libxml2'] });
  const probes = [onKnowledge('libxml2-version'), onKnowledge('libxml2-released')];
  /** Rounds (each probe once a round) until a run raises fcs_drop, and that run's result. */
  async function roundsToDrop(pooled: PooledTestOptions) {
    const low = { calls: 0, query: async () => response(`Online: libxml2 is at 2.9.14 now, take ${low.calls++ % 7}.`) };
    const r = runner(low, rag('2.9.14'), (answer) => (answer.startsWith('Online') ? 0.3 : 0.9), pooled);
    for (let round = 1; round <= 12; round++)
      for (const p of probes) {
        const result = await r.run(p);
        if (result.anomaly_signals.includes('fcs_drop')) return { round, result };
      }
    return { round: 13, result: undefined };
  }
  const alone = await roundsToDrop({ alpha: 0.01 });
  const pooled = await roundsToDrop({ alpha: 0.01, acrossProbes: { alpha: 0.01 } });
  assert.ok(pooled.round < alone.round, `pooled round ${pooled.round}, per probe ${alone.round}`);
  assert.deepEqual(alone.result!.comparison.pooled_test!.knowledge_pools, []);
  const [pool] = pooled.result!.comparison.pooled_test!.knowledge_pools;
  assert.equal(pool!.knowledge_id, 'changelog/libxml2');
  assert.deepEqual(pool!.probe_ids, ['libxml2-version', 'libxml2-released']);
  assert.deepEqual(pool!.alarmed, ['fcs']);
  assert.ok(pool!.fcs_statistic >= pool!.threshold && pool!.threshold === 300);
  // The probe's own detector had not reached its threshold: the pool raised the signal.
  assert.ok(pooled.result!.comparison.pooled_test!.fcs_statistic < 300);
});

test('across probes, clean runs of two probes on one knowledge id stay quiet', async () => {
  const onKnowledge = (id: string): GoldenProbe => ({ ...probe, id, expected_sources: ['changelog/libxml2'] });
  const r = runner(rag('2.9.14'), rag('2.9.14'), () => 0.9, { alpha: 0.01, acrossProbes: { alpha: 0.01 } });
  for (let round = 0; round < 6; round++)
    for (const id of ['libxml2-version', 'libxml2-released']) {
      const result = await r.run(onKnowledge(id));
      assert.equal(result.anomaly, false, result.anomaly_signals.join(','));
      assert.equal(result.comparison.pooled_test!.knowledge_pools[0]!.alarmed.length, 0);
    }
});

test('across probes with adaptive sampling: a probe whose knowledge leans from another probe runs takes the larger count at once', async () => {
  const onKnowledge = (id: string): GoldenProbe => ({ ...probe, id, expected_sources: ['changelog/libxml2'] });
  const firstRunOfB = async (pooled: PooledTestOptions) => {
    const low = { calls: 0, query: async () => response(`Online: libxml2 is at 2.9.14 now, take ${low.calls++ % 7}.`) };
    const r = runner(low, rag('2.9.14'), (answer) => (answer.startsWith('Online') ? 0.3 : 0.9), pooled);
    await r.run(onKnowledge('libxml2-version')); // leans: one run of lower online scores
    return (await r.run(onKnowledge('libxml2-released'))).comparison.samples;
  };
  assert.equal(await firstRunOfB({ alpha: 0.01, maxSamples: 5, leanFraction: 0.001 }), 2);
  assert.equal(await firstRunOfB({ alpha: 0.01, maxSamples: 5, leanFraction: 0.001, acrossProbes: { alpha: 0.01 } }), 5);
});
