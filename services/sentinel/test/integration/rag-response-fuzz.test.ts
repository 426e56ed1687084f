/**
 * Issue 12: the RAG health contract allows an empty answer, and the FCS scorer throws on one, so the
 * sentinel used to lose that probe's result. Every response here is one the contract accepts but no
 * well-behaved RAG sends (empty or whitespace answers, no chunks, empty or 20 kB chunk text, absurd
 * scores, epoch and far-future times, duplicate chunk ids): each run must still give a ProbeResult
 * with a typed FCS status, valid against the Avro contract and published through the real Kafka and
 * registry. A scorer that fails is a typed `scorer_error`, never a lost run.
 */
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import avro from 'avsc';
import { trace } from '@opentelemetry/api';
import { EventBus, busDefaults, parseBusConfig } from '@rag-immune/bus';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { loadTopicSchema, type ProbeResult } from '@rag-immune/contracts';
import { endpoints } from '@rag-immune/test-kit/stack';
import { ProbeRunner, defaultThresholds, type FactConsistencyPort, type GoldenProbe } from '@rag-immune/probing';
import { malformedButValidResponse, seededRandom, startContractRag } from '../fixtures/contract-rag-server.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 1234);
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const bus = new EventBus(
  parseBusConfig({
    ...busDefaults('development'),
    clientId: 'sentinel-fuzz-it',
    brokers: endpoints.kafkaBrokers,
    schemaRegistryUrl: endpoints.schemaRegistryUrl,
    topicPrefix: `it-fuzz-${randomUUID().slice(0, 8)}.`,
  }),
);
const probeType = avro.Type.forSchema(loadTopicSchema('probes') as avro.Schema);
const probe: GoldenProbe = {
  id: 'fuzz-acl-version',
  version: 1,
  query: 'What is the latest version of acl?',
  expected_sources: ['changelog/acl'],
  business_value: 1,
  cluster: 'head',
  created_at: '2026-11-01T00:00:00Z',
  retired_at: null,
};
let online: Awaited<ReturnType<typeof startContractRag>>;
let baseline: Awaited<ReturnType<typeof startContractRag>>;
let fcs: FactConsistencyScorer;

const runnerWith = (scorer: FactConsistencyPort) =>
  new ProbeRunner({
    online: ragClientWithHeaders(online.url, {}, 20_000),
    baseline: ragClientWithHeaders(baseline.url, {}, 20_000),
    fcs: scorer,
    tracer: trace.getTracer('fuzz'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 20_000,
    callAttempts: 1,
    version: 'test',
  });

function invalidPaths(result: ProbeResult): string[] {
  const paths: string[] = [];
  probeType.isValid(result, { errorHook: (path) => paths.push(path.join('.')) });
  return paths;
}

before(async () => {
  const onlineRandom = seededRandom(SEED);
  const baselineRandom = seededRandom(SEED + 1);
  online = await startContractRag(() => malformedButValidResponse(onlineRandom));
  baseline = await startContractRag(() => malformedButValidResponse(baselineRandom));
  fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1 });
  await bus.start(['probes']);
});

after(async () => {
  await bus.stop();
  await online?.close();
  await baseline?.close();
});

test(`${RUNS} malformed but contract-valid responses (seed ${SEED}): every run is a valid, published ProbeResult with a typed FCS status`, async () => {
  const runner = runnerWith(fcs);
  const publisher = await bus.publisher();
  const problems: string[] = [];
  const statuses = new Map<string, number>();
  for (let i = 0; i < RUNS; i += 1) {
    let result: ProbeResult;
    try {
      result = await runner.run(probe);
    } catch (error) {
      problems.push(`run ${i}: threw ${(error as Error).message}`);
      continue;
    }
    for (const [side, observation] of [
      ['online', result.online],
      ['baseline', result.baseline],
    ] as const) {
      const status = observation.signals?.fcs_status ?? `call:${observation.call_status}`;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      const fcsScore = observation.signals?.fcs ?? null;
      if (fcsScore !== null && !(fcsScore >= 0 && fcsScore <= 1)) problems.push(`run ${i} ${side}: FCS ${fcsScore}`);
      if (observation.signals?.fcs_status === 'scored' && fcsScore === null) problems.push(`run ${i} ${side}: scored without a score`);
    }
    const invalid = invalidPaths(result);
    if (invalid.length > 0) problems.push(`run ${i}: Avro-invalid at ${invalid.join(', ')}`);
    else await publisher.publish('probes', result);
  }
  console.log(`fcs statuses over ${RUNS} runs x 2 sides: ${JSON.stringify(Object.fromEntries(statuses))}`);
  assert.deepEqual(problems, []);
  assert.ok((statuses.get('empty_answer') ?? 0) > 0, 'the fuzz produced empty answers, typed as empty_answer');
  assert.ok((statuses.get('scored') ?? 0) > 0, 'and ordinary ones, scored');
});

test('an empty or whitespace answer is typed empty_answer; a scorer that throws is typed scorer_error', async () => {
  const throwing: FactConsistencyPort = {
    score: () => Promise.reject(new Error('onnx session crashed')),
  };
  const runner = runnerWith(throwing);
  const seen = new Set<string>();
  for (let i = 0; i < 30 && seen.size < 2; i += 1) {
    const result = await runner.run(probe);
    assert.deepEqual(invalidPaths(result), []);
    for (const observation of [result.online, result.baseline]) {
      if (observation.call_status !== 'ok' || observation.signals === null) continue;
      assert.equal(observation.signals.fcs, null);
      seen.add(observation.signals.fcs_status);
    }
  }
  assert.deepEqual([...seen].sort(), ['empty_answer', 'scorer_error']);
});
