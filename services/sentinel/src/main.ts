/**
 * The sentinel worker's composition root: configuration from the environment (a bad value stops
 * the process naming the variable), the probe file (a bad line stops it naming the line), the
 * bus, the FCS scorer, both RAG clients, the schedule, /healthz and /metrics, graceful shutdown.
 */
import { AdapterFileError } from '@rag-immune/rag-adapter';
import { ragClientWithHeaders } from '@rag-immune/rag-contract';
import type { ProbeResult } from '@rag-immune/contracts';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { EventBus, BusMetrics, busConfigFromEnv, onTerminationSignal, InvalidConfigError } from '@rag-immune/bus';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { DEFAULT_USER_AGENT, SENTINEL_VERSION, SentinelConfigError, pooledTestOptions, sentinelConfigFromEnv } from './config.ts';
import { ProbeRunner, DebugCapture, ProbeCatalog, InvalidProbeFileError, ProbeMarkSigner } from '@rag-immune/probing';
import { Sentinel } from './sentinel.ts';
import { SentinelMetrics } from './metrics.ts';
import { sentinelHttpApp } from './http/routes.ts';
import { sentinelRagPorts } from './rag-ports.ts';
import { startTelemetry } from './telemetry.ts';
import { listen, traceHeaders, workerLogger } from '@rag-immune/worker-runtime';
import { TrafficConfigError, trafficConfigFromEnv } from './traffic/config.ts';
import { trafficWatcher } from './traffic/traffic-module.ts';
import { RotationConfigError, rotationConfigFromEnv } from './rotation/config.ts';
import { probeRotation, scheduleRotation } from './rotation/rotation-module.ts';
import { rotationRoutes } from './rotation/rotation-routes.ts';

// The shared worker logger: its redaction paths blank tokens and API keys on every line.
const logger = workerLogger('sentinel', SENTINEL_VERSION);

async function main(): Promise<void> {
  const config = sentinelConfigFromEnv(process.env);
  const trafficConfig = trafficConfigFromEnv(process.env);
  const rotationConfig = rotationConfigFromEnv(process.env);
  const busConfig = busConfigFromEnv(process.env, 'rag-immune-sentinel');
  const catalog = await ProbeCatalog.load(config.SENTINEL_PROBES_FILE);
  const probes = catalog.active();
  if (probes.length === 0) throw new InvalidProbeFileError(config.SENTINEL_PROBES_FILE, [{ line: 0, message: 'no active probe' }]);
  // Before the bus and the model load: a bad adapter file or a missing secret stops the start at once.
  const headers = { 'user-agent': DEFAULT_USER_AGENT, ...config.SENTINEL_HEADERS };
  const rag = sentinelRagPorts(config, headers);
  // What this RAG's answers can support: an operator sees "no dates, no KF" here, not a KF that never moves.
  logger.info(
    {
      rag: rag.described,
      signals_available: rag.signals.available,
      signals_unavailable: rag.signals.unavailable,
      newer_knowledge: rag.newerKnowledge,
    },
    'sentinel: RAG signals',
  );

  const registry = new Registry();
  const metrics = new SentinelMetrics(registry);
  const bus = new EventBus(busConfig, logger, new BusMetrics(registry));
  await bus.start(['probes']);
  const publisher = await bus.publisher();

  const telemetry = startTelemetry(SENTINEL_VERSION);
  const fcs = await FactConsistencyScorer.load({
    ...(config.SENTINEL_FCS_MODEL ? { modelPath: config.SENTINEL_FCS_MODEL } : {}),
    ...(config.SENTINEL_FCS_SCORER ? { scorerVersion: config.SENTINEL_FCS_SCORER } : {}),
    logger,
    registry,
  });
  // A hung RAG costs a probe at most this, so it cannot hold the concurrency slots for attempts x timeout.
  const probeDeadlineMs = config.SENTINEL_PROBE_DEADLINE_MS ?? Math.round(config.SENTINEL_CALL_TIMEOUT_MS * 1.5);
  // The traffic watcher's freshness lookups (GET /knowledge/{id}) go through the contract client.
  const online = ragClientWithHeaders(config.SENTINEL_ONLINE_RAG_URL, headers, config.SENTINEL_CALL_TIMEOUT_MS);
  const runner = new ProbeRunner({
    online: rag.online,
    baseline: rag.baseline,
    fcs,
    tracer: telemetry.tracer,
    thresholds: {
      fcsDrop: config.SENTINEL_FCS_DROP,
      icDrop: config.SENTINEL_IC_DROP,
      kfLagDays: config.SENTINEL_KF_LAG_DAYS,
      crossFcsMin: config.SENTINEL_CROSS_FCS_MIN,
      latencyP95Ratio: config.SENTINEL_LATENCY_P95_RATIO,
      latencyMinExtraMs: config.SENTINEL_LATENCY_MIN_EXTRA_MS,
      timeoutRate: config.SENTINEL_TIMEOUT_RATE,
    },
    sourceTrust: config.SENTINEL_SOURCE_TRUST,
    newerKnowledgeWithoutLookup: rag.newerKnowledge,
    callTimeoutMs: config.SENTINEL_CALL_TIMEOUT_MS,
    callAttempts: config.SENTINEL_CALL_ATTEMPTS,
    probeDeadlineMs,
    samplesPerProbe: config.SENTINEL_SAMPLES_PER_PROBE,
    sampleAlpha: config.SENTINEL_SAMPLE_ALPHA,
    ...((pooled) => (pooled ? { pooled } : {}))(pooledTestOptions(config)),
    version: SENTINEL_VERSION,
    // The trace intake files the RAG's spans of a probe call as a probe's only when this mark verifies.
    ...(config.PROBE_MARK_KEY ? { probeMark: new ProbeMarkSigner(config.PROBE_MARK_KEY) } : {}),
    ...(config.SENTINEL_DEBUG === '1' ? { debug: new DebugCapture(config.SENTINEL_DEBUG_DIR, headers) } : {}),
  });
  // The publish runs in its own span so its W3C context travels in the Kafka headers to the identifier.
  const publish = (result: ProbeResult) =>
    telemetry.tracer.startActiveSpan('sentinel.publish', { attributes: { probe_id: result.probe_id, origin: result.origin } }, (span) =>
      publisher.publishMany('probes', [result], undefined, () => traceHeaders()).finally(() => span.end()),
    );
  const sentinel = new Sentinel(
    probes,
    runner,
    { publish },
    metrics,
    {
      intervalMs: config.SENTINEL_INTERVAL_SECONDS * 1000,
      jitter: config.SENTINEL_JITTER,
      maxConcurrent: config.SENTINEL_MAX_CONCURRENT,
      // Both sides run at once, so a probe takes about one deadline per sample (a sampled run calls
      // each side k times in turn); two leave room for scoring.
      roundGraceMs: 2 * probeDeadlineMs * (config.SENTINEL_SAMPLES_MAX ?? config.SENTINEL_SAMPLES_PER_PROBE),
    },
    logger,
  );
  // The probe set's periodic rotation (issue 38 item 4): off unless PROBE_ROTATION=1; proposals wait for review.
  const rotation =
    rotationConfig.PROBE_ROTATION === '1'
      ? probeRotation(rotationConfig, trafficConfig, {
          probesFile: config.SENTINEL_PROBES_FILE,
          bus,
          online,
          baseline: rag.baseline,
          fcs,
          logger,
          // An accepted proposal is probed at once, not from the next start.
          applied: (active) => sentinel.replaceProbes(active),
        })
      : null;
  const app = sentinelHttpApp(sentinel, {
    registry,
    logger,
    host: config.SENTINEL_HOST,
    apiToken: config.SENTINEL_API_TOKEN,
    ragSignals: rag.signals,
    newerKnowledge: rag.newerKnowledge,
    ...(rotationConfig.SENTINEL_API_TOKENS ? { tokens: rotationConfig.SENTINEL_API_TOKENS } : {}),
    ...(rotation ? { extraRoutes: rotationRoutes(rotation, rotationConfig.SENTINEL_API_ROLES ?? null) } : {}),
  });
  const server = listen(app, {
    worker: 'sentinel',
    port: config.SENTINEL_PORT,
    host: config.SENTINEL_HOST,
    callback: () =>
      logger.info(
        // The bound port: SENTINEL_PORT=0 picks a free one.
        {
          port: (server.address() as AddressInfo | null)?.port ?? config.SENTINEL_PORT,
          probes: probes.length,
          debug: config.SENTINEL_DEBUG === '1',
        },
        'sentinel listening',
      ),
  });
  sentinel.start();
  // Live user traffic, the second input (issue 38): off unless TRAFFIC_WATCH=1.
  const traffic =
    trafficConfig.TRAFFIC_WATCH === '1'
      ? trafficWatcher(trafficConfig, {
          runner,
          publish,
          fcs,
          online,
          registry,
          logger,
          sampling: config.SENTINEL_SAMPLES_PER_PROBE >= 2,
        })
      : null;
  traffic?.start();
  const rotationSchedule = rotation ? scheduleRotation(rotation, rotationConfig.ROTATION_CHECK_S * 1000, logger) : null;
  onTerminationSignal(async () => {
    rotationSchedule?.stop();
    await traffic?.stop();
    await sentinel.stop();
    server.close();
    await bus.stop();
    await telemetry.shutdown();
  }, logger);
}

main().catch((error: unknown) => {
  if (
    error instanceof SentinelConfigError ||
    error instanceof TrafficConfigError ||
    error instanceof RotationConfigError ||
    error instanceof InvalidConfigError ||
    error instanceof InvalidProbeFileError ||
    error instanceof AdapterFileError
  ) {
    logger.fatal({ issues: (error as { issues: unknown }).issues }, error.message);
    process.exit(78);
  }
  logger.fatal({ err: error }, 'sentinel failed to start');
  process.exit(1);
});
