/**
 * Clean user traffic through the whole traffic path, no fault: the reference RAG pair exporting its
 * spans to the real trace intake (a process), generated users (test kit: Zipf popularity,
 * paraphrases, questions outside the knowledge), the sentinel's traffic watcher at its default
 * alarm budget with the real FCS model and ProbeRunner for any replay. Prints what it read, the bad
 * rate per signal, and the segments flagged, confirmed and rejected (the goal: none confirmed).
 *
 *   npx tsx bench/traffic/clean-traffic.ts [packages=25] [rate/s=10] [seconds=120]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { trace } from '@opentelemetry/api';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { ProbeRunner, defaultThresholds } from '@rag-immune/probing';
import type { ProbeResult } from '@rag-immune/contracts';
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import { loadQuestions, startReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { trafficConfigFromEnv, trafficWatcher } from '@rag-immune/sentinel';
import { ManagedProcess, freePort, logMessage } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import { TrafficGenerator } from '@rag-immune/test-kit/traffic/traffic-generator';
import { UserQueryMix } from '@rag-immune/test-kit/traffic/user-queries';

const packages = Number(process.argv[2] ?? 25);
const rate = Number(process.argv[3] ?? 10);
const seconds = Number(process.argv[4] ?? 120);
const run = randomUUID().slice(0, 8);
const prefix = `bench-traffic-${run}`;
const logger = pino({ level: 'warn' });
const es = new Client({ node: endpoints.elasticsearchUrl });

const intakePort = await freePort();
const intake = new ManagedProcess({
  name: 'trace-intake',
  entry: 'services/trace-intake/src/main.ts',
  env: {
    ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
    ES_INDEX_PREFIX: prefix,
    TRACE_INTAKE_HOST: '127.0.0.1',
    TRACE_INTAKE_PORT: String(intakePort),
    LOG_LEVEL: 'info',
  },
  logFile: join(mkdtempSync(join(tmpdir(), 'bench-traffic-')), 'trace-intake.log'),
  ready: logMessage('trace intake listening'),
  healthPort: () => intakePort,
  startTimeoutMs: 120_000,
});
await intake.start();
const rags = await startReferenceRagPair({
  qdrantUrl: endpoints.qdrantUrl,
  qdrantApiKey: endpoints.qdrantApiKey,
  packages,
  label: `bench-traffic-${run}`,
  logger,
  otlpTracesUrl: `http://127.0.0.1:${intakePort}/v1/traces`,
});
const published: ProbeResult[] = [];
try {
  const fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1 });
  const headers = { 'user-agent': 'rag-immune-sentinel/bench' };
  const online = ragClientWithHeaders(rags.onlineUrl, headers, 30_000);
  const runner = new ProbeRunner({
    online,
    baseline: ragClientWithHeaders(rags.baselineUrl, headers, 30_000),
    fcs,
    tracer: trace.getTracer('bench-traffic'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 30_000,
    callAttempts: 2,
    version: 'bench',
  });
  const registry = new Registry();
  const watcher = trafficWatcher(
    trafficConfigFromEnv({
      TRAFFIC_WATCH: '1',
      ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
      ES_INDEX_PREFIX: prefix,
      TRAFFIC_POLL_MS: '1000',
    }),
    { runner, publish: (r) => (published.push(r), Promise.resolve()), fcs, online, registry, logger },
  );
  watcher.start();
  const questions = loadQuestions().filter((q) => rags.knowledgeIds.has(q.knowledge_id));
  const report = await new TrafficGenerator({
    mix: new UserQueryMix(questions, { seed: Date.now() % 100_000 }),
    rate,
    maxRequests: Math.ceil(rate * seconds),
    maxDurationMs: seconds * 1000,
    url: rags.onlineUrl,
  }).run();
  // Let the last traces settle and be read.
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  await watcher.stop();
  const value = async (name: string) => ((await registry.getSingleMetric(name)?.get())?.values ?? []).reduce((s, v) => s + v.value, 0);
  const bySignal = async (name: string) =>
    Object.fromEntries(((await registry.getSingleMetric(name)?.get())?.values ?? []).map((v) => [String(v.labels.signal), v.value]));
  const measured = await bySignal('rag_immune_traffic_signal_measured_total');
  const bad = await bySignal('rag_immune_traffic_signal_bad_total');
  const segments = watcher.segments();
  console.log(
    JSON.stringify({
      packages,
      rate,
      seconds,
      answered: report.answered,
      failed: report.failed,
      late: report.late,
      duration_ms: report.duration_ms,
    }),
  );
  console.log(
    `answers read ${await value('rag_immune_traffic_answers_read_total')}, skipped ${await value('rag_immune_traffic_answers_skipped_total')}, unreadable ${await value('rag_immune_traffic_traces_unreadable_total')}`,
  );
  for (const signal of Object.keys(measured)) console.log(`  ${signal}: ${bad[signal] ?? 0}/${measured[signal]} bad`);
  console.log(
    `segments ${segments.length} (profiled ${segments.filter((s) => s.profiled).length}); flagged ${await value('rag_immune_traffic_segments_flagged_total')}, confirmed ${await value('rag_immune_traffic_segments_confirmed_total')}, rejected ${await value('rag_immune_traffic_segments_rejected_total')}; replayed queries ${await value('rag_immune_traffic_replay_queries_total')}; anomalous ProbeResults published ${published.length}`,
  );
  const p0 = segments.flatMap((s) => (s.design ? [s.design.p0] : [])).sort((a, b) => a - b);
  if (p0.length > 0)
    console.log(
      `clean rate p0 per profiled segment: min ${p0[0]!.toFixed(3)}, median ${p0[Math.floor(p0.length / 2)]!.toFixed(3)}, max ${p0.at(-1)!.toFixed(3)}`,
    );
} finally {
  await rags.close();
  await intake.stop();
  await es.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
  await es.close();
}
