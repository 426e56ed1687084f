/**
 * The demo (npm run demo): the real local stack, the reference RAG (online and a frozen baseline,
 * vectors in qdrant-local), and the sentinel probing both every few seconds with the real FCS model.
 * Every ProbeResult is published to rag-sentinel-probes and read back here from Kafka. After a
 * clean round the demo injects a production fault into the online RAG (answers go wrong while
 * /healthz stays green), the sentinel's anomalies appear, the fault is undone, and they clear.
 * Identification, repair and memory arrive with the identifier, effector and memory workers.
 */
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { EventBus, busConfigFromEnv } from '@rag-immune/bus';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { loadStackConfig, stackEndpoints } from '@rag-immune/stack';
import { callFaultAdmin, loadQuestions, startReferenceRagPair } from '@rag-immune/reference-rag';
import {
  ProbeRunner,
  Sentinel,
  SentinelMetrics,
  defaultThresholds,
  probesFromQuestions,
  ragClientWithHeaders,
  type GoldenProbe,
} from '@rag-immune/sentinel';

const PACKAGES = 25;
const INTERVAL_MS = 5000;
const FAULT = process.env.DEMO_FAULT ?? 'vector-index-corruption';
const FAULT_MODE = process.env.DEMO_FAULT_MODE ?? (FAULT === 'vector-index-corruption' ? 'zero' : undefined);
const logger = pino({ level: 'warn' });
const endpoints = stackEndpoints(loadStackConfig());
const say = (text: string) => console.log(`\n== ${text}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

say(`Reference RAG: ${PACKAGES} Debian packages' versioned changelog and apt knowledge, online + baseline (frozen now)`);
const rags = await startReferenceRagPair({ qdrantUrl: endpoints.qdrantUrl, packages: PACKAGES, label: 'demo', logger });
const { onlineUrl, baselineUrl } = rags;
console.log(`   online ${onlineUrl}   baseline ${baselineUrl}`);
const probes: GoldenProbe[] = probesFromQuestions(
  loadQuestions()
    .filter((q) => rags.knowledgeIds.has(q.knowledge_id))
    .filter((_, i) => i % 6 === 0)
    .slice(0, 8),
  'demo',
);
const run = randomUUID().slice(0, 8);

const bus = new EventBus(
  busConfigFromEnv(
    { ...process.env, KAFKA_BROKERS: endpoints.kafkaBrokers.join(','), SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl },
    'demo',
  ),
);
await bus.start();
const publisher = await bus.publisher();
let shown = 0;
await bus.subscribe({
  topic: 'probes',
  groupId: `demo-${run}`,
  handle: async (result, delivery) => {
    if (!probes.some((p) => p.id === result.probe_id)) return;
    shown += 1;
    const fcs = (side: typeof result.online) => side.signals?.fcs?.toFixed(2) ?? side.call_status;
    const flag = result.anomaly ? `ANOMALY ${result.severity} [${result.anomaly_signals.join(',')}]` : 'ok';
    console.log(
      `   <- ${delivery.topic}[${delivery.partition}]@${delivery.offset} ${result.probe_id} fcs ${fcs(result.online)}/${fcs(result.baseline)} ic ${result.online.signals?.ic?.toFixed(2) ?? '-'} ${flag}  "${result.query}"`,
    );
  },
});

say('Sentinel: 8 golden probes, every 5 s, FCS (INT8 DeBERTa) + IC + KF against online and baseline');
const fcs = await FactConsistencyScorer.load({ intraOpNumThreads: 1 });
const sentinel = new Sentinel(
  probes,
  new ProbeRunner({
    online: ragClientWithHeaders(onlineUrl, {}, 30_000),
    baseline: ragClientWithHeaders(baselineUrl, {}, 30_000),
    fcs,
    tracer: trace.getTracer('demo'),
    thresholds: defaultThresholds,
    sourceTrust: {},
    callTimeoutMs: 30_000,
    callAttempts: 2,
    version: 'demo',
  }),
  { publish: (result) => publisher.publish('probes', result) },
  new SentinelMetrics(),
  { intervalMs: INTERVAL_MS, jitter: 0.1, maxConcurrent: 4 },
  logger,
);
sentinel.start();
await sleep(INTERVAL_MS * 2);

say(`Injecting ${FAULT}${FAULT_MODE ? ` (${FAULT_MODE})` : ''} into the online RAG (half of the probed knowledge); /healthz stays 200`);
const scope = { knowledge_ids: [...new Set(probes.map((p) => p.expected_sources[0]))].slice(0, 4) };
const injected = await callFaultAdmin(onlineUrl, 'POST', FAULT, { scope, ...(FAULT_MODE ? { mode: FAULT_MODE } : {}) });
console.log(
  `   injected; affects ${injected.fault?.affected_knowledge_ids?.join(', ') ?? 'every query'}; healthz -> ${(await fetch(`${onlineUrl}/healthz`)).status}`,
);
await sleep(INTERVAL_MS * 2);

say(`Undoing ${FAULT}: the anomalies clear on the next round`);
await callFaultAdmin(onlineUrl, 'DELETE', FAULT);
await sleep(INTERVAL_MS * 2);

await sentinel.stop();
await bus.stop();
await rags.close();
say(`${shown} ProbeResults read back from Kafka. Also try: npx immune events tail probes --from-beginning --max 5`);
process.exit(0);
