/**
 * bench/sentinel: how many probes one sentinel scores end to end per second against the reference
 * RAG on this machine, and FCS's share of the probe time (the design document's budget: 5%).
 * One probe = online and baseline /query calls (concurrently), FCS on both answers, IC, KF, the
 * comparison, and the ProbeResult published through the real Kafka and registry.
 * Usage: npm run stack -- up && npm run bench:sentinel [-- --packages 60 --probes 40 --seconds 60 --concurrency 4]
 */
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { EventBus, busDefaults, parseBusConfig } from '@rag-immune/bus';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { endpoints } from '@rag-immune/test-kit/stack';
import { loadQuestions, startReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { ProbeRunner, defaultThresholds, probesFromQuestions, type FactConsistencyPort, type GoldenProbe } from '@rag-immune/probing';

const { values } = parseArgs({
  options: {
    packages: { type: 'string', default: '60' },
    probes: { type: 'string', default: '40' },
    seconds: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '4' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const logger = pino({ level: 'warn' });

console.error(`ingesting ${values.packages} packages into two instances...`);
const rags = await startReferenceRagPair({
  qdrantUrl: endpoints.qdrantUrl,
  qdrantApiKey: endpoints.qdrantApiKey,
  packages: Number(values.packages),
  label: 'bench-sentinel',
  logger,
});
const probes: GoldenProbe[] = probesFromQuestions(
  loadQuestions()
    .filter((q) => rags.knowledgeIds.has(q.knowledge_id))
    .filter((_, i) => i % 3 === 0)
    .slice(0, Number(values.probes)),
  'bench',
);
const [onlineUrl, baselineUrl] = [rags.onlineUrl, rags.baselineUrl];

const bus = new EventBus(
  parseBusConfig({
    ...busDefaults('development'),
    clientId: 'bench-sentinel',
    brokers: endpoints.kafkaBrokers,
    schemaRegistryUrl: endpoints.schemaRegistryUrl,
    // Its own topics: a running identifier must not take the benchmark's results for real ones.
    topicPrefix: `bench-sentinel-${process.pid}.`,
  }),
);
await bus.start(['probes']);
const publisher = await bus.publisher();
const scorer = await FactConsistencyScorer.load({ intraOpNumThreads: 1, cache: false });
let fcsMs = 0;
let fcsCalls = 0;
const timedFcs: FactConsistencyPort = {
  score: async (input) => {
    const started = performance.now();
    try {
      return await scorer.score(input);
    } finally {
      fcsMs += performance.now() - started;
      fcsCalls += 1;
    }
  },
};
const runner = new ProbeRunner({
  online: ragClientWithHeaders(onlineUrl, {}, 30_000),
  baseline: ragClientWithHeaders(baselineUrl, {}, 30_000),
  fcs: timedFcs,
  tracer: trace.getTracer('bench'),
  thresholds: defaultThresholds,
  sourceTrust: {},
  callTimeoutMs: 30_000,
  callAttempts: 1,
  version: 'bench',
});

// Warm-up: one pass so JIT, caches and connections are warm before measuring.
for (const probe of probes.slice(0, 5)) await runner.run(probe);
fcsMs = 0;
fcsCalls = 0;

const durations: number[] = [];
let anomalies = 0;
const falseSignals: Record<string, number> = {};
let differingAnswers = 0;
let ragMs = 0;
let next = 0;
const deadline = performance.now() + seconds * 1000;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const probe = probes[next++ % probes.length] as GoldenProbe;
      const t0 = performance.now();
      const result = await runner.run(probe);
      await publisher.publish('probes', result);
      durations.push(performance.now() - t0);
      // Nothing is injected during the benchmark: every anomaly is a false positive.
      if (result.anomaly) anomalies += 1;
      for (const signal of result.anomaly_signals) falseSignals[signal] = (falseSignals[signal] ?? 0) + 1;
      // Cross-FCS (two extra scorer calls) runs only for these; on a clean round there should be none.
      if ((result.comparison.answer_agreement ?? 1) < 1) differingAnswers += 1;
      ragMs += result.online.latency_ms + result.baseline.latency_ms;
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
const sorted = [...durations].sort((a, b) => a - b);
const pct = (p: number) => +(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN).toFixed(1);
const result = {
  benchmark: 'bench/sentinel',
  date: new Date().toISOString(),
  machine: `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average at end ${loadavg()[0]?.toFixed(1)}`,
  settings: {
    packages: Number(values.packages),
    probes: probes.length,
    seconds,
    concurrency,
    fcs_execution_provider: scorer.executionProvider,
  },
  probes_run: durations.length,
  probes_per_second: +(durations.length / elapsed).toFixed(2),
  probe_ms: { p50: pct(50), p99: pct(99) },
  fcs_ms_per_call: +(fcsMs / Math.max(1, fcsCalls)).toFixed(1),
  rag_call_ms_per_call: +(ragMs / Math.max(1, 2 * durations.length)).toFixed(1),
  // Per answer: the time spent scoring it against the time spent getting it plus scoring it. (The
  // two sides of a probe run concurrently, so a share of the probe's wall time would double count.)
  fcs_share_of_answer_time: +(fcsMs / (fcsMs + ragMs)).toFixed(3),
  false_positive_rate: +(anomalies / Math.max(1, durations.length)).toFixed(4),
  false_positives: anomalies,
  false_positives_by_signal: falseSignals,
  runs_with_differing_answers: differingAnswers,
};
console.log(JSON.stringify(result, null, 2));
const outDir = join(dirname(fileURLToPath(import.meta.url)), 'results');
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
await bus.stop();
await rags.close();
process.exit(0);
