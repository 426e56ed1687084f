/**
 * Composition of the trace intake: configuration, the Elasticsearch span stores (probe spans and
 * users' redacted spans, each with its retention purge), the redactor, and HTTP (/v1/traces behind
 * the bearer token, /healthz, /metrics). Used by main.ts and by tests that run the intake in-process.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { ElasticsearchSpanStore, InMemorySpanStore, ProbeMarkVerifier, type SpanStore } from '@rag-immune/traces';
import { bearerAuth, createElasticsearchClient, elasticsearchConnection, listening, workerHttpApp } from '@rag-immune/worker-runtime';
import { intakeRedactor, traceIntakeConfigFromEnv, type TraceIntakeEnv } from './config.ts';
import type { IntakeGrant } from './intake-tokens.ts';
import { IntakeMetrics } from './metrics.ts';
import { otlpRoutes } from './http/otlp-route.ts';
import { SpanRateLimiter } from './limits/token-bucket.ts';
import { TraceSpanCap } from './limits/trace-span-cap.ts';

export const TRACE_INTAKE_VERSION = '0.1.0';

export interface TraceIntake {
  config: TraceIntakeEnv;
  /** Probe spans (`<prefix>-otlp-spans`). */
  store: SpanStore;
  /** Users' redacted spans (`<prefix>-otlp-user-spans`). */
  userStore: SpanStore;
  registry: Registry;
  port: number;
  url: string;
  /** Deletes what is past retention now, in both stores (the timer does it every interval). */
  purge(): Promise<number>;
  stop(): Promise<void>;
}

/** A store whose Elasticsearch index is created on first use (the intake starts before Elasticsearch is up). */
function creatingIndex(
  store: SpanStore,
  esStore: ElasticsearchSpanStore | null,
): { store: SpanStore; ready: () => boolean; ensureIndex: () => Promise<void> } {
  let indexReady = esStore === null;
  const ensureIndex = async () => {
    if (indexReady || esStore === null) return;
    await esStore.ensureIndex();
    indexReady = true;
  };
  return {
    ready: () => indexReady,
    ensureIndex,
    store: {
      write: async (spans, receivedAt) => {
        if (spans.length === 0) return;
        await ensureIndex();
        await store.write(spans, receivedAt);
      },
      spansOf: (traceId) => store.spansOf(traceId),
      purgeReceivedBefore: (before) => store.purgeReceivedBefore(before),
      // No index yet is no span yet (the search ignores a missing index): counting never creates one.
      countByTrace: async (traceIds) => (store.countByTrace ? store.countByTrace(traceIds) : new Map()),
    },
  };
}

export async function startTraceIntake(
  env: NodeJS.ProcessEnv,
  logger: Logger,
  options: { store?: SpanStore; userStore?: SpanStore } = {},
): Promise<TraceIntake> {
  const config = traceIntakeConfigFromEnv(env);
  const redactor = intakeRedactor(config);
  const registry = new Registry();
  const metrics = new IntakeMetrics(registry);
  const inMemory = options.store !== undefined || options.userStore !== undefined;
  const es = inMemory ? null : createElasticsearchClient(elasticsearchConnection(config, { requestTimeoutMs: 10_000, maxRetries: 1 }));
  const probeEs = es ? new ElasticsearchSpanStore(es, config.ES_INDEX_PREFIX, 'probe') : null;
  const userEs = es ? new ElasticsearchSpanStore(es, config.ES_INDEX_PREFIX, 'user') : null;
  const probe = creatingIndex(options.store ?? probeEs ?? new InMemorySpanStore(), probeEs);
  const user = creatingIndex(options.userStore ?? userEs ?? new InMemorySpanStore(), userEs);
  const userTrafficOn = config.TRACE_INTAKE_USER_TRAFFIC === 'on';

  // The user index is made only when user traffic may be kept: switched off, no index holds user text.
  const ensureIndices = async () => {
    await probe.ensureIndex();
    if (userTrafficOn) await user.ensureIndex();
  };
  await ensureIndices().catch((error: unknown) => logger.warn({ err: error }, 'elasticsearch not ready; exports get 503 until it is'));

  const retention = { probe: config.TRACE_INTAKE_RETENTION_HOURS, user: config.TRACE_INTAKE_USER_RETENTION_HOURS };
  const purge = async () => {
    let total = 0;
    for (const [origin, store] of [
      ['probe', probe.store],
      ['user', user.store],
    ] as const) {
      const purged = await store.purgeReceivedBefore(Date.now() - retention[origin] * 3_600_000);
      metrics.purged.inc({ origin }, purged);
      if (purged > 0) logger.info({ purged, origin, retention_hours: retention[origin] }, 'spans past retention deleted');
      total += purged;
    }
    return total;
  };
  const purgeTimer = setInterval(
    () => void purge().catch((error: unknown) => logger.warn({ err: error }, 'retention purge failed; next interval retries')),
    config.TRACE_INTAKE_PURGE_INTERVAL_MINUTES * 60_000,
  );
  purgeTimer.unref();

  // Who may post what: per-RAG tokens from the file; the single shared token (and development mode
  // on loopback) keeps the old behaviour: any origin, the RAG named by TRACE_INTAKE_API_TOKEN_RAG or the spans.
  const grants = new Map((config.TRACE_INTAKE_TOKENS_FILE ?? []).map((grant) => [grant.name, grant]));
  const defaultGrant: IntakeGrant = {
    name: 'shared-token',
    rag: config.TRACE_INTAKE_API_TOKEN_RAG ?? null,
    token: '',
    origins: new Set(['probe', 'user']),
  };
  const markKeys = config.PROBE_MARK_KEY === undefined ? [] : [config.PROBE_MARK_KEY, ...(config.PROBE_MARK_PREVIOUS_KEYS ?? [])];
  const probeMarks =
    markKeys.length === 0
      ? null
      : new ProbeMarkVerifier({ keys: markKeys, maxAgeMs: config.TRACE_INTAKE_PROBE_MARK_MAX_AGE_SECONDS * 1000 });
  if (probeMarks === null)
    logger.warn(
      'no PROBE_MARK_KEY: the unsigned rag-immune=probe mark is trusted, so any client can file its spans as a probe (development only)',
    );

  const app = workerHttpApp({
    worker: 'trace-intake',
    registry,
    logger,
    health: () => ({ ready: true, detail: { span_index: probe.ready(), user_span_index: userTrafficOn ? user.ready() : 'off' } }),
    routes: otlpRoutes({
      store: probe.store,
      user: {
        store: user.store,
        enabled: userTrafficOn,
        excludedServices: new Set(config.TRACE_INTAKE_USER_TRAFFIC_EXCLUDE),
        redactor,
      },
      metrics,
      logger,
      maxBodyBytes: config.TRACE_INTAKE_MAX_BODY_BYTES,
      grants,
      defaultGrant,
      probeMarks,
      rateLimiter: new SpanRateLimiter(config.TRACE_INTAKE_RATE_SPANS_PER_SECOND, config.TRACE_INTAKE_RATE_BURST_SPANS),
      caps: {
        probe: new TraceSpanCap(probe.store, config.TRACE_INTAKE_MAX_SPANS_PER_TRACE),
        user: new TraceSpanCap(user.store, config.TRACE_INTAKE_MAX_SPANS_PER_TRACE),
      },
    }),
    auth: bearerAuth({
      worker: 'trace-intake',
      host: config.TRACE_INTAKE_HOST,
      token: config.TRACE_INTAKE_API_TOKEN,
      tokens: Object.fromEntries([...grants.values()].map((grant) => [grant.name, grant.token])),
      tokenEnv: 'TRACE_INTAKE_API_TOKEN (or TRACE_INTAKE_TOKENS_FILE)',
      logger,
    }),
    jsonLimit: config.TRACE_INTAKE_MAX_BODY_BYTES,
  });
  const server: Server = await listening(app, { worker: 'trace-intake', port: config.TRACE_INTAKE_PORT, host: config.TRACE_INTAKE_HOST });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.TRACE_INTAKE_HOST.includes(':') ? `[${config.TRACE_INTAKE_HOST}]` : config.TRACE_INTAKE_HOST}:${port}`;
  logger.info(
    {
      port,
      index_prefix: config.ES_INDEX_PREFIX,
      retention_hours: retention.probe,
      user_traffic: config.TRACE_INTAKE_USER_TRAFFIC,
      user_traffic_excluded: config.TRACE_INTAKE_USER_TRAFFIC_EXCLUDE,
      user_retention_hours: retention.user,
      redaction_rules: redactor.rules.map((rule) => rule.name),
      rag_tokens: [...grants.values()].map((grant) => ({ name: grant.name, rag: grant.rag, origins: [...grant.origins] })),
      probe_mark: probeMarks === null ? 'unsigned (trusted)' : 'signed',
      max_spans_per_trace: config.TRACE_INTAKE_MAX_SPANS_PER_TRACE,
      rate_spans_per_second: config.TRACE_INTAKE_RATE_SPANS_PER_SECOND,
    },
    'trace intake listening',
  );

  return {
    config,
    store: probe.store,
    userStore: user.store,
    registry,
    port,
    url,
    purge,
    async stop() {
      clearInterval(purgeTimer);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await es?.close();
    },
  };
}
