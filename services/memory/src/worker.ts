import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { context, type Tracer } from '@opentelemetry/api';
import { EventBus, BusMetrics, type BusConfig, type DeliveryContext } from '@rag-immune/bus';
import { elasticsearchStores } from '@rag-immune/es-store';
import {
  assertSafeBinding,
  bearerAuth,
  contextFromHeaders,
  elasticsearchConnection,
  inSpan,
  listen,
  workerHttpApp,
} from '@rag-immune/worker-runtime';
import { storeNames, type MemoryConfig } from './config.ts';
import { CaseStore } from './cases/case-store.ts';
import { CachedEmbedder, CaseRecorder, type SignatureEmbedder } from './cases/case-recorder.ts';
import type { CaseEvent } from './cases/healing-case.ts';
import { RetrievalAudit } from './audit/retrieval-audit.ts';
import { MemoryMetrics } from './metrics.ts';
import { ExpertRules } from './recommend/expert-rules.ts';
import { Recommender } from './recommend/recommender.ts';
import { Forgetter } from './forgetting/forgetter.ts';
import { memoryRoutes } from './http/routes.ts';

export interface MemoryWorkerDeps {
  config: MemoryConfig;
  /** Null: HTTP only (no consumption), e.g. a read-only instance. */
  busConfig: BusConfig | null;
  embedder: SignatureEmbedder & { dimension: number };
  logger: Logger;
  tracer: Tracer;
  registry?: Registry;
}

/**
 * The memory worker assembled: case stores, the recorder behind two subscriptions (reports and
 * actions), the recommender, forgetting on a schedule, and the HTTP API. Used by main.ts and by the
 * tests, which start it in-process against the real stack.
 */
export class MemoryWorker {
  readonly registry: Registry;
  readonly metrics: MemoryMetrics;
  readonly store: CaseStore;
  readonly audit: RetrievalAudit;
  readonly rules: ExpertRules;
  readonly recorder: CaseRecorder;
  readonly recommender: Recommender;
  readonly forgetter: Forgetter;
  private bus: EventBus | undefined;
  private server: Server | undefined;
  private storesReady: Promise<void> | undefined;
  private gaugeTimer: NodeJS.Timeout | undefined;
  private listening = false;

  constructor(private readonly deps: MemoryWorkerDeps) {
    const { config, logger } = deps;
    assertSafeBinding('memory', config.MEMORY_HOST, config.MEMORY_API_TOKEN);
    // Validated before anything connects: a bad rules file refuses start-up naming its path.
    this.rules = ExpertRules.load(config.MEMORY_RULES_FILE);
    this.registry = deps.registry ?? new Registry();
    this.metrics = new MemoryMetrics(this.registry);
    const names = storeNames(config.ES_INDEX_PREFIX);
    this.store = new CaseStore({
      elasticsearchUrl: config.ELASTICSEARCH_URL,
      elasticsearch: elasticsearchConnection(config),
      qdrantUrl: config.QDRANT_URL,
      qdrantApiKey: config.QDRANT_API_KEY,
      logger,
      casesIndex: names.cases,
      collection: names.collection,
      dimension: deps.embedder.dimension,
    });
    this.audit = new RetrievalAudit(elasticsearchStores(this.store.es), names.audit, logger);
    const embedder = new CachedEmbedder(deps.embedder);
    this.recorder = new CaseRecorder(this.store, embedder, config.MEMORY_ENVIRONMENT, logger);
    this.recommender = new Recommender(this.store, embedder, this.rules, this.audit, this.metrics, deps.tracer, logger, {
      threshold: config.MEMORY_SIMILARITY_THRESHOLD,
      halfLifeDays: config.MEMORY_HALF_LIFE_DAYS,
      candidates: config.MEMORY_CANDIDATES,
      storeTimeoutMs: config.MEMORY_STORE_TIMEOUT_MS,
    });
    this.forgetter = new Forgetter(
      this.store,
      { halfLifeDays: config.MEMORY_HALF_LIFE_DAYS, archiveBelow: config.MEMORY_ARCHIVE_BELOW },
      logger,
      this.metrics,
    );
  }

  /** Starts HTTP first (so /recommend answers from rules even with the stores down), then the rest. */
  async start(): Promise<{ port: number }> {
    const { config, logger } = this.deps;
    const app = workerHttpApp({
      worker: 'memory',
      registry: this.registry,
      logger,
      health: () => ({ ready: this.listening, detail: { rules_version: this.rules.version } }),
      routes: memoryRoutes({ store: this.store, recommender: this.recommender, environment: config.MEMORY_ENVIRONMENT }),
      // The shared policy: the token when set; otherwise open on loopback only, warned once.
      auth: bearerAuth({
        worker: 'memory',
        host: config.MEMORY_HOST,
        token: config.MEMORY_API_TOKEN,
        tokenEnv: 'MEMORY_API_TOKEN',
        logger,
      }),
    });
    const server = listen(app, { worker: 'memory', port: config.MEMORY_PORT, host: config.MEMORY_HOST });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    const port = (server.address() as AddressInfo).port;
    // Stores are prepared in the background: a dead store must not stop the rules from answering.
    void this.ensureStores().catch(() => undefined);
    if (this.deps.busConfig !== null) {
      // BUS_PROCESSED_EVENTS=elasticsearch: each group's handled events shared by every replica.
      const bus = new EventBus(this.deps.busConfig, logger, new BusMetrics(this.registry), {
        elasticsearch: this.store.es,
        indexPrefix: config.ES_INDEX_PREFIX,
      });
      this.bus = bus;
      await bus.start(['reports', 'actions']);
      const handle = (kind: CaseEvent['kind']) => async (event: unknown, delivery: DeliveryContext) =>
        this.handleEvent({ kind, event } as CaseEvent, delivery);
      // From the beginning for a new group: memory is the system's history, so a fresh deployment
      // learns from every retained event (merges are idempotent, so replays are harmless).
      const fromBeginning = config.MEMORY_FROM_BEGINNING;
      // One consumer group per topic: kafkajs members of one group must subscribe to the same topics,
      // or partitions of the other topic get assigned to a member that never reads them.
      const groupId = config.MEMORY_GROUP_ID;
      await bus.subscribe({ topic: 'reports', groupId: `${groupId}.reports`, handle: handle('report'), fromBeginning });
      await bus.subscribe({ topic: 'actions', groupId: `${groupId}.actions`, handle: handle('action'), fromBeginning });
    }
    this.forgetter.start(config.MEMORY_FORGET_INTERVAL_SECONDS);
    this.gaugeTimer = setInterval(() => void this.refreshStatusGauge(), 15_000);
    this.gaugeTimer.unref();
    this.listening = true;
    logger.info({ port, rules_version: this.rules.version, prefix: config.ES_INDEX_PREFIX }, 'memory listening');
    return { port };
  }

  /** Creates the index, audit index and collection once; a failure is retried by the next caller. */
  ensureStores(): Promise<void> {
    this.storesReady ??= Promise.all([this.store.ensure(), this.audit.ensure()])
      .then(() => undefined)
      .catch((error: unknown) => {
        this.storesReady = undefined;
        this.deps.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'case stores not ready');
        throw error;
      });
    return this.storesReady;
  }

  /** One event into its case, continuing the producer's trace; store errors propagate for redelivery. */
  async handleEvent(input: CaseEvent, delivery?: DeliveryContext): Promise<void> {
    const parent = delivery ? contextFromHeaders(delivery.headers) : context.active();
    await inSpan(
      this.deps.tracer,
      'memory.case.record',
      { 'rag_immune.incident_id': input.event.incident_id, 'memory.event_kind': input.kind },
      parent,
      async () => {
        await this.ensureStores();
        const result = await this.recorder.record(input);
        this.metrics.caseEvents.inc({ kind: input.kind, result: result.changed ? 'applied' : 'duplicate' });
      },
    );
  }

  async refreshStatusGauge(): Promise<void> {
    try {
      const counts = await this.store.countByStatus();
      for (const status of ['active', 'superseded', 'archived']) this.metrics.casesByStatus.set({ status }, counts[status] ?? 0);
    } catch {
      // The gauge keeps its last value while Elasticsearch is unreachable.
    }
  }

  async stop(): Promise<void> {
    this.listening = false;
    if (this.gaugeTimer) clearInterval(this.gaugeTimer);
    await this.forgetter.stop();
    await this.bus?.stop();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server?.closeAllConnections?.();
    await this.audit.flush();
    await this.store.close();
  }
}
