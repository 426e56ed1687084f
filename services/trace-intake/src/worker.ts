/**
 * Composition of the trace intake: configuration, the Elasticsearch span store with its retention
 * purge, and HTTP (/v1/traces behind the bearer token, /healthz, /metrics). Used by main.ts and by
 * tests that run the intake in-process.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@elastic/elasticsearch';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { ElasticsearchSpanStore, type SpanStore } from '@rag-immune/traces';
import { bearerAuth, listen, workerHttpApp } from '@rag-immune/worker-runtime';
import { traceIntakeConfigFromEnv, type TraceIntakeEnv } from './config.ts';
import { IntakeMetrics } from './metrics.ts';
import { otlpRoutes } from './http/otlp-route.ts';

export const TRACE_INTAKE_VERSION = '0.1.0';

export interface TraceIntake {
  config: TraceIntakeEnv;
  store: SpanStore;
  registry: Registry;
  port: number;
  url: string;
  /** Deletes what is past retention now (the timer does it every interval). */
  purge(): Promise<number>;
  stop(): Promise<void>;
}

export async function startTraceIntake(env: NodeJS.ProcessEnv, logger: Logger, options: { store?: SpanStore } = {}): Promise<TraceIntake> {
  const config = traceIntakeConfigFromEnv(env);
  const registry = new Registry();
  const metrics = new IntakeMetrics(registry);
  const es = options.store ? null : new Client({ node: config.ELASTICSEARCH_URL, requestTimeout: 10_000, maxRetries: 1 });
  const esStore = es ? new ElasticsearchSpanStore(es, config.ES_INDEX_PREFIX) : null;
  const store: SpanStore = options.store ?? esStore!;

  let indexReady = esStore === null;
  const ensureIndex = async () => {
    if (indexReady || esStore === null) return;
    await esStore.ensureIndex();
    indexReady = true;
  };
  await ensureIndex().catch((error: unknown) => logger.warn({ err: error }, 'elasticsearch not ready; exports get 503 until it is'));
  const readyStore: SpanStore = {
    write: async (spans, receivedAt) => {
      await ensureIndex();
      await store.write(spans, receivedAt);
    },
    spansOf: (traceId) => store.spansOf(traceId),
    purgeReceivedBefore: (before) => store.purgeReceivedBefore(before),
  };

  const retentionMs = config.TRACE_INTAKE_RETENTION_HOURS * 3_600_000;
  const purge = async () => {
    const purged = await store.purgeReceivedBefore(Date.now() - retentionMs);
    metrics.purged.inc(purged);
    if (purged > 0) logger.info({ purged, retention_hours: config.TRACE_INTAKE_RETENTION_HOURS }, 'spans past retention deleted');
    return purged;
  };
  const purgeTimer = setInterval(
    () => void purge().catch((error: unknown) => logger.warn({ err: error }, 'retention purge failed; next interval retries')),
    config.TRACE_INTAKE_PURGE_INTERVAL_MINUTES * 60_000,
  );
  purgeTimer.unref();

  const app = workerHttpApp({
    worker: 'trace-intake',
    registry,
    logger,
    health: () => ({ ready: true, detail: { span_index: indexReady } }),
    routes: otlpRoutes({ store: readyStore, metrics, logger, maxBodyBytes: config.TRACE_INTAKE_MAX_BODY_BYTES }),
    auth: bearerAuth({
      worker: 'trace-intake',
      host: config.TRACE_INTAKE_HOST,
      token: config.TRACE_INTAKE_API_TOKEN,
      tokenEnv: 'TRACE_INTAKE_API_TOKEN',
      logger,
    }),
    jsonLimit: config.TRACE_INTAKE_MAX_BODY_BYTES,
  });
  const server: Server = await new Promise((resolve) => {
    const listening = listen(app, {
      worker: 'trace-intake',
      port: config.TRACE_INTAKE_PORT,
      host: config.TRACE_INTAKE_HOST,
      callback: () => resolve(listening),
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.TRACE_INTAKE_HOST.includes(':') ? `[${config.TRACE_INTAKE_HOST}]` : config.TRACE_INTAKE_HOST}:${port}`;
  logger.info(
    { port, index_prefix: config.ES_INDEX_PREFIX, retention_hours: config.TRACE_INTAKE_RETENTION_HOURS },
    'trace intake listening',
  );

  return {
    config,
    store: readyStore,
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
