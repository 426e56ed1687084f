/**
 * The sentinel against the real reference RAG (online + frozen baseline, vectors in qdrant-local),
 * the real FCS model, and the real Kafka and registry for every published ProbeResult:
 * clean rounds raise no anomaly; each fault the reference RAG can inject raises an anomaly on the
 * probes it touches within one interval, with the signal that fault should move; undo clears it.
 */
import { ragClientWithHeaders, callFaultAdmin } from '@rag-immune/rag-contract';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { EventBus, busDefaults, parseBusConfig } from '@rag-immune/bus';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import type { ProbeResult } from '@rag-immune/contracts';
import {
  loadDebianKnowledge,
  loadQuestions,
  startReferenceRagPair,
  touchedByTokenizerAnomaly,
  type ReferenceRagPair,
} from '@rag-immune/reference-rag/testing';
import { Sentinel, SentinelMetrics } from '../../src/index.ts';
import { ProbeRunner, defaultThresholds, probesFromQuestions, type GoldenProbe } from '@rag-immune/probing';

const PACKAGES = 30;
/** stale_as_of of the knowledge-source failure: the online source falls back to this date. */
const STALE_AS_OF = '2024-06-01T00:00:00.000Z';
const INTERVAL_MS = 4000;
const JITTER = 0.1;
const run = randomUUID().slice(0, 8);
const logger = pino({ level: 'warn' });

let rags: ReferenceRagPair;
let onlineUrl: string;
let sentinel: Sentinel;
let bus: EventBus;
let probes: GoldenProbe[];
/** Probes whose answer changed after STALE_AS_OF: the stale source must move their KF. */
let changedSinceStale: Set<string>;
const results: { at: number; result: ProbeResult }[] = [];
/** How long each probe run took (both calls, scoring): the slack "within one interval" allows. */
const runDurations: number[] = [];

const faultApi = (method: 'POST' | 'DELETE', kind: string, body: unknown = {}) => callFaultAdmin(onlineUrl, method, kind, body);

/**
 * Waits until every probe has `runs` results finished after `since` and returns the last of each.
 * With runs = 2 the returned run certainly started after `since` (the first may have been in flight).
 */
// A polling deadline only, generous for a loaded machine (it grows with the probes' real cadence):
// the speed of detection is asserted separately.
async function nextRound(since: number, runs = 1, timeoutMs = INTERVAL_MS * (runs + 2) + 90_000): Promise<ProbeResult[]> {
  const started = Date.now();
  for (;;) {
    const deadline = started + Math.max(timeoutMs, (runs + 1) * longestCadence(Date.now()) + 30_000);
    const seen = new Map<string, ProbeResult[]>();
    for (const { at, result } of results) if (at > since) seen.set(result.probe_id, [...(seen.get(result.probe_id) ?? []), result]);
    const latest = [...seen.values()].filter((list) => list.length >= runs).map((list) => list.at(-1) as ProbeResult);
    if (latest.length === probes.length) return latest;
    if (Date.now() > deadline)
      throw new Error(`round after ${new Date(since).toISOString()} incomplete: ${latest.length}/${probes.length} probes`);
    await sleep(100);
  }
}

/** The longest time between two consecutive results of one probe before `until`. */
function longestCadence(until: number): number {
  const last = new Map<string, number>();
  let longest = 0;
  for (const { at, result } of results) {
    if (at > until) break;
    const previous = last.get(result.probe_id);
    if (previous !== undefined) longest = Math.max(longest, at - previous);
    last.set(result.probe_id, at);
  }
  return longest;
}

function selectProbes(knowledgeIds: Set<string>): GoldenProbe[] {
  // questions.jsonl holds each answer now and as of 2024-06-01 (= STALE_AS_OF).
  const questions = loadQuestions().filter((q) => knowledgeIds.has(q.knowledge_id));
  const changed = questions.filter((q) => q.kind === 'latest_version' && q.expected !== q.expected_baseline).slice(0, 4);
  const others = questions
    .filter((q) => !changed.includes(q))
    .filter((_, i) => i % 7 === 0)
    .slice(0, 12 - changed.length);
  const selected = probesFromQuestions([...changed, ...others], 'it');
  // Touched by the stale source: every probe whose own knowledge has a version published after
  // STALE_AS_OF (whatever the question asks about it), not only the latest-version questions.
  const stale = Date.parse(STALE_AS_OF);
  const newer = new Set(
    loadDebianKnowledge({ packages: PACKAGES })
      .sources.flatMap((source) => source.recordsPublishedBy(new Date()))
      .filter((record) => record.validFrom.getTime() > stale || record.updatedAt.getTime() > stale)
      .map((record) => record.knowledgeId),
  );
  changedSinceStale = new Set(selected.filter((p) => newer.has(p.expected_sources[0] ?? '')).map((p) => p.id));
  return selected;
}

before(async () => {
  // The baseline is the known-good snapshot of today's knowledge; the online RAG starts identical.
  rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages: PACKAGES,
    label: 'it-sentinel',
    logger,
  });
  onlineUrl = rags.onlineUrl;
  const baselineUrl = rags.baselineUrl;
  probes = selectProbes(rags.knowledgeIds);

  bus = new EventBus(
    parseBusConfig({
      ...busDefaults('development'),
      clientId: `sentinel-e2e-${run}`,
      brokers: endpoints.kafkaBrokers,
      schemaRegistryUrl: endpoints.schemaRegistryUrl,
    }),
  );
  await bus.start(['probes']);
  const publisher = await bus.publisher();
  const fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1 });
  const runner = new ProbeRunner({
    online: ragClientWithHeaders(onlineUrl, { 'user-agent': 'rag-immune-sentinel/test' }, 30_000),
    baseline: ragClientWithHeaders(baselineUrl, { 'user-agent': 'rag-immune-sentinel/test' }, 30_000),
    fcs,
    tracer: trace.getTracer('sentinel-e2e'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 30_000,
    callAttempts: 2,
    version: 'test',
  });
  // Timed, so detection can be held to one interval plus the longest run actually seen.
  const timedRunner = {
    run: async (probe: GoldenProbe) => {
      const started = Date.now();
      try {
        return await runner.run(probe);
      } finally {
        runDurations.push(Date.now() - started);
      }
    },
  } as ProbeRunner;
  sentinel = new Sentinel(
    probes,
    timedRunner,
    {
      publish: async (result) => {
        await publisher.publish('probes', result);
        results.push({ at: Date.now(), result });
      },
    },
    new SentinelMetrics(),
    { intervalMs: INTERVAL_MS, jitter: JITTER, maxConcurrent: 4 },
    logger,
  );
  sentinel.start();
});

after(async () => {
  await sentinel?.stop();
  await bus?.stop();
  await rags?.close();
});

test('three clean rounds raise no anomaly', async () => {
  assert.ok(probes.length >= 8, `probes selected: ${probes.length}`);
  let since = Date.now() - INTERVAL_MS * 2;
  const anomalies: ProbeResult[] = [];
  for (let round = 0; round < 3; round += 1) {
    const roundResults = await nextRound(since);
    anomalies.push(...roundResults.filter((r) => r.anomaly));
    since = Math.max(...roundResults.map((r) => r.occurred_at));
  }
  assert.deepEqual(
    anomalies.map((r) => `${r.probe_id}: ${r.anomaly_signals.join(',')} ${JSON.stringify(r.comparison)}`),
    [],
  );
  const scored = results.filter(({ result }) => result.online.signals?.fcs_status === 'scored').length;
  assert.ok(scored > 0, 'FCS scored the online answers');
});

interface FaultCase {
  kind: string;
  body: (probeIds: string[]) => Record<string, unknown>;
  touches: (probe: GoldenProbe, affected: Set<string> | null) => boolean;
  /** Signals this fault must move on at least one touched probe (any of them). */
  expect: string[];
}

const firstHalf = (ids: string[]) => ids.slice(0, Math.ceil(ids.length / 2));
const scopedTo = (probe: GoldenProbe, affected: Set<string> | null) => affected?.has(probe.expected_sources[0] ?? '') ?? true;
const FAULTS: FaultCase[] = [
  {
    kind: 'generator-inconsistency',
    body: (ids) => ({ scope: { knowledge_ids: firstHalf(ids) } }),
    touches: scopedTo,
    // A swapped fact is often one another retrieved passage does contain: FCS may stay high, and the
    // answer comparison (same evidence, a replaced fact) is then what sees it.
    expect: ['fcs_drop', 'answer_disagreement'],
  },
  {
    kind: 'knowledge-source-failure',
    body: (ids) => ({ mode: 'stale', stale_as_of: STALE_AS_OF, scope: { knowledge_ids: ids } }),
    touches: (probe, affected) => scopedTo(probe, affected) && changedSinceStale.has(probe.id),
    expect: ['kf_stale'],
  },
  {
    kind: 'vector-index-corruption',
    body: (ids) => ({ mode: 'zero', scope: { knowledge_ids: firstHalf(ids) } }),
    touches: scopedTo,
    expect: ['fcs_drop', 'ic_drop'],
  },
  { kind: 'reranker-drift', body: () => ({}), touches: () => true, expect: ['fcs_drop', 'ic_drop'] },
  {
    kind: 'parser-bug',
    body: (ids) => ({ mode: 'merge-sections', scope: { knowledge_ids: firstHalf(ids) } }),
    touches: scopedTo,
    // Merged sections make answers that the (wrongly merged) online evidence does state, so their
    // own-evidence FCS barely moves: a drop of 0.153 on one of seven probes with FCS v2.0, 0.147 with
    // v2.2, against the 0.15 threshold. The answer comparison sees every touched probe.
    expect: ['fcs_drop', 'ic_drop', 'answer_disagreement'],
  },
  {
    kind: 'tokenizer-anomaly',
    body: () => ({}),
    touches: (probe) => touchedByTokenizerAnomaly(probe.query),
    expect: ['fcs_drop', 'ic_drop'],
  },
];

for (const fault of FAULTS) {
  test(`${fault.kind}: an anomaly on the probes it touches within one interval, with ${fault.expect.join(' or ')}; undo clears it`, async () => {
    const ids = [...new Set(probes.map((p) => p.expected_sources[0] as string))];
    const injected = await faultApi('POST', fault.kind, fault.body(ids));
    const injectedAt = Date.now();
    let detectedAt: number | undefined;
    try {
      const affected = injected.fault?.affected_knowledge_ids ? new Set(injected.fault.affected_knowledge_ids) : null;
      const touched = new Set(probes.filter((p) => fault.touches(p, affected)).map((p) => p.id));
      assert.ok(touched.size > 0, 'the fault touches some probes');
      // Polling gives up well after the bound below; the bound itself is what is asserted.
      const pollUntil = injectedAt + Math.max(INTERVAL_MS * (1 + JITTER), 2 * longestCadence(injectedAt)) + 30_000;
      let hits: ProbeResult[] = [];
      while (Date.now() < pollUntil) {
        hits = results
          .filter(({ at, result }) => at > injectedAt && result.occurred_at > injectedAt && result.anomaly && touched.has(result.probe_id))
          .map(({ result }) => result)
          .filter((r) => r.anomaly_signals.some((s) => fault.expect.includes(s)));
        if (hits.length > 0) break;
        await sleep(100);
      }
      assert.ok(hits.length > 0, `no ${fault.expect.join('/')} anomaly on ${[...touched].join(', ')}`);
      detectedAt = Math.min(...results.filter(({ result }) => hits.includes(result)).map(({ at }) => at));
      const detection = detectedAt - injectedAt;
      // Within one interval: every probe starts a run within one interval (with jitter) of the
      // injection, and that run ends within the longest probe run seen in this test. When the
      // machine is too loaded for a round to fit in the interval, the probes' real cadence (the
      // longest gap between two results of one probe so far) is the interval that holds.
      const longestRun = Math.max(...runDurations);
      const bound = Math.max(INTERVAL_MS * (1 + JITTER) + longestRun, longestCadence(injectedAt));
      assert.ok(
        detection <= bound,
        `detection took ${detection} ms > ${bound} ms (interval ${INTERVAL_MS} ms, longest run ${longestRun} ms)`,
      );
      // One whole round under the fault: how many touched probes it shows on; untouched ones must stay clean.
      const round = await nextRound(injectedAt, 2);
      const touchedAnomalies = round.filter((r) => touched.has(r.probe_id) && r.anomaly);
      const untouchedAnomalies = round.filter((r) => !touched.has(r.probe_id) && r.anomaly);
      const moved = [...new Set(touchedAnomalies.flatMap((r) => r.anomaly_signals))].join(',');
      console.log(
        `${fault.kind}: first detected in ${detection} ms (bound ${bound} ms); a full round later ${touchedAnomalies.length}/${touched.size} touched probes anomalous ` +
          `(signals ${moved}), ${untouchedAnomalies.length}/${probes.length - touched.size} untouched`,
      );
      assert.deepEqual(
        untouchedAnomalies.map((r) => `${r.probe_id}: ${r.anomaly_signals.join(',')} ${JSON.stringify(r.comparison)}`),
        [],
        'probes the fault does not touch raise nothing',
      );
    } finally {
      await faultApi('DELETE', fault.kind);
    }
    // After the undo, a whole round is clean again.
    const undoneAt = Date.now();
    const after = await nextRound(undoneAt, 2);
    assert.deepEqual(
      after.filter((r) => r.anomaly).map((r) => `${r.probe_id}: ${r.anomaly_signals.join(',')}`),
      [],
    );
  });
}
