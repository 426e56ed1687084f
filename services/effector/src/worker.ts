import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { elasticsearchStores } from '@rag-immune/es-store';
import { trace, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { EventBus, BusMetrics, type BusConfig } from '@rag-immune/bus';
import type { RepairAction, RootCauseReport } from '@rag-immune/contracts';
import { MemoryClient } from '@rag-immune/memory-client';
import { ProbeMarkSigner, ProbeRunner, defaultThresholds, type FactConsistencyPort } from '@rag-immune/probing';
import {
  bearerAuth,
  contextFromHeaders,
  createElasticsearchClient,
  createQdrantClient,
  elasticsearchConnection,
  listen,
  traceHeaders,
  workerHttpApp,
} from '@rag-immune/worker-runtime';
import {
  EFFECTOR_VERSION,
  effectorIndices,
  effectorNamedTokens,
  identifierCheckWarning,
  snapshotBudgetBytes,
  verificationSampling,
  type EffectorConfig,
} from './config.ts';
import { IdentifierRecordClient } from './admission/identifier-records.ts';
import { ComponentRateClaims } from './breaker/rate-claims.ts';
import { Effector, type IncidentOutcome } from './effector.ts';
import { DRAIN_SETTLE_MS, RecoverySweep, drainRepairs } from './run/recovery-sweep.ts';
import { GrantStore } from './grants/grant-store.ts';
import { effectorRoutes, withActorProvenance } from './http/routes.ts';
import { EffectorMetrics } from './metrics.ts';
import { loadPolicy } from './policy/policy.ts';
import { CollectionAliases } from './snapshots/collection-aliases.ts';
import { KnowledgePoints } from './snapshots/knowledge-points.ts';
import { AliasHistory, watchAlias } from './snapshots/alias-history.ts';
import { ragRepairAccess } from './actions/rag-repair-access.ts';
import { QdrantSnapshotArchive } from './snapshots/qdrant-archive.ts';
import { SnapshotStore } from './snapshots/snapshot-store.ts';
import { ActionStore } from './state/action-store.ts';
import { AuditLog } from './state/audit-log.ts';
import { IncidentLeases } from './state/incident-lease.ts';
import { IncidentStore } from './state/incident-store.ts';
import { ModeStore } from './state/mode-store.ts';
import { RecoveryVerifier } from './verify/recovery-verifier.ts';
import { verificationRagPorts } from './verify/verification-rag-ports.ts';

export interface EffectorWorkerOptions {
  config: EffectorConfig;
  busConfig: BusConfig;
  logger: Logger;
  fcs: FactConsistencyPort;
  tracer?: Tracer;
  registry?: Registry;
  /** Called after each report is handled (tests observe outcomes). */
  onOutcome?: (report: RootCauseReport, outcome: IncidentOutcome | Error) => void;
}

export interface EffectorWorker {
  effector: Effector;
  port: number;
  url: string;
  stores: {
    actions: ActionStore;
    incidents: IncidentStore;
    snapshots: SnapshotStore;
    grants: GrantStore;
    audit: AuditLog;
    modes: ModeStore;
  };
  stop(): Promise<void>;
}

/**
 * Composes the effector: policy (refuses to start when invalid), Elasticsearch stores, Qdrant
 * snapshots, the RAG pair with the configured headers, probes for verification, memory (optional),
 * the bus (reports in, actions out), recovery of in-flight actions, and the HTTP API.
 */
export async function startEffectorWorker(options: EffectorWorkerOptions): Promise<EffectorWorker> {
  const { config, logger } = options;
  const policy = loadPolicy(config.EFFECTOR_POLICY_FILE);
  const headers = { 'user-agent': `rag-immune-effector/${EFFECTOR_VERSION}`, ...config.EFFECTOR_RAG_HEADERS };
  // Before any store is touched: a bad adapter file or a missing secret stops the start naming the key.
  const adapted = verificationRagPorts(config, headers);
  if (adapted !== null)
    logger.info(
      { adapter: adapted.signals.adapter, signals_available: adapted.signals.available, signals_unavailable: adapted.signals.unavailable },
      'effector: repairs verified through the RAG adapter',
    );
  // What the RAG lets the effector repair (its adapter's `repair`); a webhook's missing secret stops the start here too.
  const ragRepair = ragRepairAccess(adapted?.adapter ?? null);
  if (ragRepair.hooks === 'none')
    logger.info(
      {
        rebuild_from: ragRepair.rebuildFrom,
        collection_mode: ragRepair.collectionMode,
        ingestion: ragRepair.ingestion?.describe() ?? null,
      },
      'effector: the RAG serves no repair hooks: Qdrant-only repairs, its ingestion webhook or a recommendation',
    );
  const registry = options.registry ?? new Registry();
  const metrics = new EffectorMetrics(registry);
  const tracer = options.tracer ?? trace.getTracer('rag-immune-effector', EFFECTOR_VERSION);
  const indices = effectorIndices(config.ES_INDEX_PREFIX);
  const es = createElasticsearchClient(elasticsearchConnection(config, { requestTimeoutMs: config.EFFECTOR_ES_REQUEST_TIMEOUT_MS }));
  const qdrantConnection = {
    url: config.EFFECTOR_QDRANT_URL ?? config.QDRANT_URL,
    apiKey: config.EFFECTOR_QDRANT_API_KEY ?? config.QDRANT_API_KEY,
    timeoutMs: 120_000,
    logger,
  };
  const qdrant = createQdrantClient(qdrantConnection);
  const aliases = new CollectionAliases(qdrant, {
    keepLast: config.EFFECTOR_RETIRED_COLLECTIONS_KEEP_LAST,
    keepWithinDays: config.EFFECTOR_RETIRED_COLLECTIONS_KEEP_WITHIN_DAYS,
  });
  const docs = elasticsearchStores(es);
  const archive = new QdrantSnapshotArchive(qdrant, {
    connection: qdrantConnection,
    ...(config.EFFECTOR_QDRANT_SNAPSHOTS_PATH ? { serverSnapshotsPath: config.EFFECTOR_QDRANT_SNAPSHOTS_PATH } : {}),
  });
  const stores = {
    actions: new ActionStore(docs, indices.actions),
    incidents: new IncidentStore(docs, indices.incidents),
    snapshots: new SnapshotStore(archive, docs, indices.snapshots),
    grants: new GrantStore(docs, indices.grants, config.EFFECTOR_GRANT_TTL_SECONDS * 1000),
    // Entries written while serving the API say whether their actor was authenticated (actor_verified).
    audit: withActorProvenance(new AuditLog(docs, indices.audit)),
    modes: new ModeStore(docs, indices.settings, config.EFFECTOR_MODE),
    incidentLeases: new IncidentLeases(docs, indices.incidentLeases, {
      owner: config.EFFECTOR_INSTANCE_ID ?? process.env.HOSTNAME ?? hostname(),
      leaseMs: config.EFFECTOR_LEASE_MS,
    }),
  };
  for (const store of Object.values(stores)) await store.init();
  const aliasHistory = ragRepair.hooks === 'none' ? new AliasHistory(docs, indices.aliasHistory) : undefined;
  await aliasHistory?.init();
  const stopAliasWatch =
    aliasHistory !== undefined && config.EFFECTOR_ALIAS_WATCH_SECONDS > 0
      ? watchAlias(
          (alias) => aliases.target(alias),
          aliasHistory,
          config.EFFECTOR_QDRANT_COLLECTION,
          config.EFFECTOR_ALIAS_WATCH_SECONDS * 1000,
          logger,
        )
      : () => undefined;
  const rateClaims = new ComponentRateClaims(docs, indices.rateClaims);
  await rateClaims.init();
  const identifierRecords = config.EFFECTOR_IDENTIFIER_URL
    ? new IdentifierRecordClient({
        baseUrl: config.EFFECTOR_IDENTIFIER_URL,
        timeoutMs: config.EFFECTOR_IDENTIFIER_TIMEOUT_MS,
        ...(config.EFFECTOR_IDENTIFIER_TOKEN ? { token: config.EFFECTOR_IDENTIFIER_TOKEN } : {}),
      })
    : null;
  // BUS_PROFILE=production bounds the snapshots by default (snapshots in the keep-within window are never pruned by count).
  const budgetBytes = snapshotBudgetBytes(config, options.busConfig.profile);
  if (budgetBytes === undefined)
    logger.warn(
      { EFFECTOR_SNAPSHOT_BUDGET_BYTES: config.EFFECTOR_SNAPSHOT_BUDGET_BYTES ?? null },
      'no snapshot byte budget: snapshots younger than EFFECTOR_SNAPSHOT_KEEP_WITHIN_DAYS may fill the disk',
    );
  const identifierWarning = identifierCheckWarning(config);
  if (identifierWarning !== null) logger.warn({ EFFECTOR_IDENTIFIER_CHECK: config.EFFECTOR_IDENTIFIER_CHECK ?? null }, identifierWarning);

  const online = ragClientWithHeaders(config.EFFECTOR_ONLINE_RAG_URL, headers, config.EFFECTOR_RAG_TIMEOUT_MS);
  const baseline = ragClientWithHeaders(config.EFFECTOR_BASELINE_RAG_URL, headers, config.EFFECTOR_RAG_TIMEOUT_MS);
  const runner = new ProbeRunner({
    online: adapted?.online ?? online,
    baseline: adapted?.baseline ?? baseline,
    fcs: options.fcs,
    tracer,
    thresholds: defaultThresholds,
    sourceTrust: {},
    // A product whose knowledge changes only with a baseline refresh: an unrefreshed version is an anomaly here too.
    newerKnowledgeWithoutLookup: adapted?.newerKnowledge ?? 'update',
    callTimeoutMs: config.EFFECTOR_RAG_TIMEOUT_MS,
    callAttempts: 2,
    version: EFFECTOR_VERSION,
    ...verificationSampling(config),
    // Verification probes are probes: their spans go to the probe index only with a mark that verifies.
    ...(config.PROBE_MARK_KEY ? { probeMark: new ProbeMarkSigner(config.PROBE_MARK_KEY) } : {}),
  });

  // BUS_PROCESSED_EVENTS=elasticsearch: the reports group's handled events shared by every replica.
  const bus = new EventBus(options.busConfig, logger, new BusMetrics(registry), { elasticsearch: es, indexPrefix: config.ES_INDEX_PREFIX });
  await bus.start(['reports', 'actions']);
  const publisher = await bus.publisher();
  const publish = (events: RepairAction[]) => publisher.publishMany('actions', events, undefined, () => traceHeaders());

  // A StatefulSet pod's name (effector-0, …) survives a reschedule: the replica resumes what it owned.
  const instanceId = config.EFFECTOR_INSTANCE_ID ?? process.env.HOSTNAME ?? hostname();
  const effector = new Effector({
    policy,
    online,
    baseline,
    collection: config.EFFECTOR_QDRANT_COLLECTION,
    sourceByPrefix: config.EFFECTOR_SOURCE_BY_PREFIX,
    ...stores,
    aliases,
    points: new KnowledgePoints(qdrant),
    ragRepair,
    ...(aliasHistory !== undefined ? { aliasHistory } : {}),
    // Re-reads the identifier's record at every measurement: probes that joined the incident since admission are verified too.
    verifier: new RecoveryVerifier(runner, config.EFFECTOR_VERIFY_TIMEOUT_MS, config.EFFECTOR_VERIFY_CONCURRENCY, identifierRecords),
    memory: config.EFFECTOR_MEMORY_URL
      ? new MemoryClient({
          baseUrl: config.EFFECTOR_MEMORY_URL,
          timeoutMs: config.EFFECTOR_MEMORY_TIMEOUT_MS,
          ...(config.EFFECTOR_MEMORY_TOKEN ? { token: config.EFFECTOR_MEMORY_TOKEN } : {}),
        })
      : null,
    memoryMinConfidence: config.EFFECTOR_MEMORY_MIN_CONFIDENCE,
    environment: config.EFFECTOR_ENVIRONMENT,
    publish,
    metrics,
    logger,
    tracer,
    instanceId,
    limits: {
      maxFailedRepairs: config.EFFECTOR_MAX_FAILED_REPAIRS,
      componentRateLimit: config.EFFECTOR_COMPONENT_RATE_LIMIT,
      componentRateWindowMs: config.EFFECTOR_COMPONENT_RATE_WINDOW_SECONDS * 1000,
    },
    rateClaims,
    identifierRecords,
    maxAffectedProbes: config.EFFECTOR_MAX_AFFECTED_PROBES,
    maxConcurrentRepairs: config.EFFECTOR_MAX_CONCURRENT_REPAIRS,
    backlog: {
      maxWaiting: config.EFFECTOR_MAX_WAITING_REPAIRS,
      maxIncidents: config.EFFECTOR_MAX_INCIDENTS_IN_HAND,
      maxPerIncident: config.EFFECTOR_MAX_RUNS_PER_INCIDENT,
    },
    leaseMs: config.EFFECTOR_LEASE_MS,
    executeTimeoutMs: config.EFFECTOR_EXECUTE_TIMEOUT_MS,
    ragTimeoutMs: config.EFFECTOR_RAG_TIMEOUT_MS,
    verifyTimeoutMs: config.EFFECTOR_VERIFY_TIMEOUT_MS,
    abstentionGraceMs: config.EFFECTOR_ABSTENTION_GRACE_SECONDS * 1000,
    inconclusiveHold: {
      remeasures: config.EFFECTOR_VERIFY_INCONCLUSIVE_REMEASURES,
      delayMs: config.EFFECTOR_VERIFY_INCONCLUSIVE_DELAY_SECONDS * 1000,
    },
    restoreMaxSnapshotAgeMs: config.EFFECTOR_RESTORE_MAX_SNAPSHOT_AGE_HOURS * 3_600_000,
    undoRetryMs: config.EFFECTOR_UNDO_RETRY_SECONDS * 1000,
    snapshotRetention: { keepLast: config.EFFECTOR_SNAPSHOT_KEEP_LAST, keepWithinDays: config.EFFECTOR_SNAPSHOT_KEEP_WITHIN_DAYS },
    ...(budgetBytes !== undefined ? { snapshotBudgetBytes: budgetBytes } : {}),
    ...(config.EFFECTOR_TEST_CRASH_AT ? { crashAt: config.EFFECTOR_TEST_CRASH_AT } : {}),
  });

  let ready = false;
  const app = workerHttpApp({
    worker: 'effector',
    registry,
    logger,
    health: () => ({ ready, detail: { policy_version: policy.policy_version } }),
    routes: effectorRoutes({ effector, ...stores, roles: config.EFFECTOR_API_ROLES ?? null }),
    // EFFECTOR_API_TOKENS names each caller (the audit's actor); the shared EFFECTOR_API_TOKEN does not.
    auth: bearerAuth({
      worker: 'effector',
      host: config.EFFECTOR_HOST,
      token: config.EFFECTOR_API_TOKEN,
      tokens: effectorNamedTokens(config),
      tokenEnv: 'EFFECTOR_API_TOKEN',
      logger,
    }),
  });
  const server: Server = await new Promise((resolve, reject) => {
    const s = listen(app, {
      worker: 'effector',
      port: config.EFFECTOR_PORT,
      host: config.EFFECTOR_HOST,
      callback: (error) => (error ? reject(error) : resolve(s)),
    });
  });
  const port = (server.address() as AddressInfo).port;

  // Actions this replica left in flight (a crash) are put back and resumed before new reports are read.
  const recovered = await effector.recoverInFlight();
  if (recovered.length > 0) logger.info({ recovered }, 'open incidents re-run after start-up');
  // And without a restart: actions whose replica died (their lease ran out) are taken over and resumed.
  const sweep = new RecoverySweep({
    actions: stores.actions,
    incidents: stores.incidents,
    instanceId,
    leaseMs: config.EFFECTOR_LEASE_MS,
    logger,
    process: (report) => effector.process(report),
  });
  sweep.start(config.EFFECTOR_RECOVERY_SWEEP_SECONDS * 1000);

  const reports = await bus.subscribe({
    topic: 'reports',
    groupId: config.EFFECTOR_GROUP_ID,
    handle: (report, delivery) =>
      effector.accept(report, contextFromHeaders(delivery.headers), (outcome) => options.onOutcome?.(report, outcome)),
  });
  ready = true;
  logger.info({ port, mode: (await stores.modes.get()).mode, policy_version: policy.policy_version }, 'effector listening');

  return {
    effector,
    port,
    url: `http://${config.EFFECTOR_HOST}:${port}`,
    stores,
    async stop() {
      ready = false;
      // Drain: no new reports; repairs in hand finish within EFFECTOR_DRAIN_SECONDS or are given up
      // at a safe point (lease expired for another replica's sweep); the publisher stays up meanwhile.
      stopAliasWatch();
      await reports.stop();
      await sweep.stop();
      await drainRepairs({
        idle: () => effector.idle(),
        leases: () => stores.actions.heldLeases(),
        graceMs: config.EFFECTOR_DRAIN_SECONDS * 1000,
        settleMs: DRAIN_SETTLE_MS,
        logger,
      });
      await bus.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await es.close();
    },
  };
}
