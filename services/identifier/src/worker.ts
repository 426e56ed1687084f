/**
 * Composition of the identifier worker: configuration, Elasticsearch (incidents + evidence ledger),
 * the bus (consumes probes and actions, publishes reports with the trace context in the headers),
 * the RAG trace clients, HTTP (/healthz, /metrics, /incidents…). Used by main.ts and by tests that
 * run the worker in-process.
 */
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { elasticsearchStores } from '@rag-immune/es-store';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { BusMetrics, EventBus, busConfigFromEnv } from '@rag-immune/bus';
import { ElasticsearchSpanStore } from '@rag-immune/traces';
import {
  createQdrantClient,
  bearerAuth,
  contextFromHeaders,
  createElasticsearchClient,
  elasticsearchConnection,
  listening,
  startTelemetry,
  traceHeaders,
  workerHttpApp,
  type Telemetry,
} from '@rag-immune/worker-runtime';
import { identifierConfigFromEnv, type IdentifierEnv } from './config.ts';
import { IDENTIFIER_VERSION, Identifier } from './identifier.ts';
import { IdentifierMetrics } from './metrics.ts';
import { incidentRoutes } from './http/routes.ts';
import { IncidentStore } from './incidents/incident-store.ts';
import { EvidenceLedger, LEDGER_MAPPINGS } from './ledger/evidence-ledger.ts';
import { traceSources } from './trace-diff/trace-source-config.ts';
import { QdrantIndexDiffer } from './index-diff/index-evidence.ts';
import { QdrantIndexReader } from './index-diff/index-reader.ts';
import { loadCalibration } from './verdict/calibration.ts';

export interface IdentifierWorker {
  config: IdentifierEnv;
  identifier: Identifier;
  store: IncidentStore;
  ledger: EvidenceLedger;
  registry: Registry;
  port: number;
  stop(): Promise<void>;
}

/**
 * The identifier's API guard, the policy every worker shares: IDENTIFIER_API_TOKEN when set;
 * without it, open on loopback only (to loopback Host headers), warned once; beyond loopback, refused.
 */
export function identifierAuth(
  config: Pick<IdentifierEnv, 'IDENTIFIER_HOST' | 'IDENTIFIER_API_TOKEN'>,
  logger: Logger,
): ReturnType<typeof bearerAuth> {
  return bearerAuth({
    worker: 'identifier',
    host: config.IDENTIFIER_HOST,
    token: config.IDENTIFIER_API_TOKEN,
    tokenEnv: 'IDENTIFIER_API_TOKEN',
    logger,
  });
}

/** The index diff over the RAG's Qdrant when IDENTIFIER_QDRANT_URL is set (config checks the collections). */
function indexDiffer(config: IdentifierEnv, logger: Logger): { indexDiffer: QdrantIndexDiffer } | undefined {
  if (config.IDENTIFIER_QDRANT_URL === undefined) return undefined;
  const qdrant = createQdrantClient({ url: config.IDENTIFIER_QDRANT_URL, apiKey: config.IDENTIFIER_QDRANT_API_KEY, logger });
  const layout = config.IDENTIFIER_INDEX_PAYLOAD_LAYOUT === 'metadata' ? { metadataKey: 'metadata', contentKey: 'content' } : {};
  const pinned = config.IDENTIFIER_BASELINE_PINNED_AS_OF === undefined ? undefined : new Date(config.IDENTIFIER_BASELINE_PINNED_AS_OF);
  return {
    indexDiffer: new QdrantIndexDiffer(
      new QdrantIndexReader(qdrant, config.IDENTIFIER_ONLINE_COLLECTION!, layout),
      new QdrantIndexReader(qdrant, config.IDENTIFIER_BASELINE_COLLECTION!, layout),
      pinned,
      (error) => logger.warn({ err: error }, 'index diff unavailable: the data causes are judged without it'),
    ),
  };
}

export async function startIdentifierWorker(
  env: NodeJS.ProcessEnv,
  logger: Logger,
  options: { telemetry?: Telemetry } = {},
): Promise<IdentifierWorker> {
  const config = identifierConfigFromEnv(env);
  // Before anything connects: a non-loopback binding without a token refuses to start.
  const auth = identifierAuth(config, logger);
  const busConfig = busConfigFromEnv(env, 'rag-immune-identifier');
  const calibration = loadCalibration(config.IDENTIFIER_CALIBRATION_FILE);
  const registry = new Registry();
  const metrics = new IdentifierMetrics(registry);
  const telemetry = options.telemetry ?? startTelemetry('identifier', IDENTIFIER_VERSION, { env });

  const es = createElasticsearchClient(elasticsearchConnection(config, { requestTimeoutMs: 10_000, maxRetries: 1 }));
  const docs = elasticsearchStores(es);
  const store = new IncidentStore(docs, config.ES_INDEX_PREFIX);
  const ledger = new EvidenceLedger(docs, config.ES_INDEX_PREFIX, (outcome) => metrics.ledgerWrites.inc({ outcome }), {
    key: config.IDENTIFIER_LEDGER_KEY,
    previousKeys: config.IDENTIFIER_LEDGER_PREVIOUS_KEYS ?? [],
    previousKeyCutoffs: config.IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT ?? [],
  });
  if (!ledger.keyed) logger.warn('IDENTIFIER_LEDGER_KEY is not set: the evidence ledger is unkeyed (tamper-evident, not tamper-proof)');

  // BUS_PROCESSED_EVENTS=elasticsearch: each group's handled events shared by every replica.
  const bus = new EventBus(busConfig, logger, new BusMetrics(registry), { elasticsearch: es, indexPrefix: config.ES_INDEX_PREFIX });
  await bus.start(['probes', 'reports', 'actions']);
  const publisher = await bus.publisher();
  const ragTimeout = config.IDENTIFIER_TRACE_TIMEOUT_MS;
  const rag = {
    online: ragClientWithHeaders(config.IDENTIFIER_ONLINE_RAG_URL, config.IDENTIFIER_RAG_HEADERS, ragTimeout),
    baseline: ragClientWithHeaders(config.IDENTIFIER_BASELINE_RAG_URL, config.IDENTIFIER_RAG_HEADERS, ragTimeout),
  };
  const identifier = new Identifier({
    store,
    ledger,
    rag,
    ...(indexDiffer(config, logger) ?? {}),
    traces: traceSources(config, rag, new ElasticsearchSpanStore(es, config.IDENTIFIER_INTAKE_INDEX_PREFIX ?? config.ES_INDEX_PREFIX)),
    publishReport: (report) => publisher.publishMany('reports', [report], undefined, () => traceHeaders()),
    calibration,
    policy: {
      acceptConfidence: config.IDENTIFIER_ACCEPT_CONFIDENCE,
      minResults: config.IDENTIFIER_MIN_RESULTS,
      maxWaitMs: config.IDENTIFIER_MAX_WAIT_SECONDS * 1000,
    },
    groupWindowMs: config.IDENTIFIER_GROUP_WINDOW_SECONDS * 1000,
    cleanRoundsToClose: config.IDENTIFIER_CLEAN_ROUNDS_TO_CLOSE,
    traceTimeoutMs: ragTimeout,
    metrics,
    logger,
    tracer: telemetry.tracer,
  });

  // Indices are ensured lazily by the handler too, so a worker started while ES is down still runs
  // and its handler fails (no commit) until ES is back.
  let indicesReady = false;
  const ensureIndices = async () => {
    if (indicesReady) return;
    await store.ensureIndex();
    await ledger.ensureIndex();
    // A ledger index made before keyed records: its strict mapping learns hash_scheme (adding a field is allowed).
    if (ledger.keyed) await es.indices.putMapping({ index: ledger.index, properties: LEDGER_MAPPINGS.properties as never });
    indicesReady = true;
  };
  await ensureIndices().catch((error: unknown) => logger.warn({ err: error }, 'elasticsearch not ready; the handler will retry'));

  let ready = false;
  const app = workerHttpApp({
    worker: 'identifier',
    registry,
    logger,
    health: () => ({ ready, detail: { elasticsearch_indices: indicesReady } }),
    routes: incidentRoutes(store, ledger),
    auth,
  });
  const server: Server = await listening(app, { worker: 'identifier', port: config.IDENTIFIER_PORT, host: config.IDENTIFIER_HOST });
  const port = (server.address() as AddressInfo).port;

  await bus.subscribe({
    topic: 'probes',
    groupId: config.IDENTIFIER_GROUP_ID,
    handle: async (event, delivery) => {
      await ensureIndices();
      await identifier.handleProbeResult(event, contextFromHeaders(delivery.headers));
    },
  });
  await bus.subscribe({
    topic: 'actions',
    groupId: `${config.IDENTIFIER_GROUP_ID}-actions`,
    handle: async (event) => {
      await ensureIndices();
      await identifier.handleRepairAction(event);
    },
  });
  const gaugeTimer = setInterval(() => void identifier.refreshStateGauge().catch(() => undefined), 15_000);
  gaugeTimer.unref();
  ready = true;
  logger.info(
    { port, group: config.IDENTIFIER_GROUP_ID, index_prefix: config.ES_INDEX_PREFIX, calibration: calibration.fitted_on },
    'identifier listening',
  );

  return {
    config,
    identifier,
    store,
    ledger,
    registry,
    port,
    async stop() {
      clearInterval(gaugeTimer);
      ready = false;
      await bus.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await es.close();
      if (!options.telemetry) await telemetry.shutdown();
    },
  };
}
