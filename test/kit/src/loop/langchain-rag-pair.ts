/**
 * The LangChain RAG pair (services/langchain-rag, Gemma 3 270M sampling) as processes, with the trace
 * intake its spans go to: the RAG serves no /traces, so the identifier reads each probe's trace from
 * the intake. The baseline is pinned at the pair's start, so that on clean rounds both sides retrieve
 * the same knowledge and differ only by sampling (a pin in the past makes retrieval differ and the
 * freshness and attribution signals fire on clean rounds). Both sides sample, so the sentinel and the
 * effector's verification run the sampled test.
 */
import { join } from 'node:path';
import { loadDebianKnowledge } from '@rag-immune/reference-rag/testing';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { ManagedProcess, freePort, logMessage } from '../processes.ts';
import { indexDiffEnv, type RagPairProcesses } from './rag-pair.ts';

export interface LangchainRagPairOptions {
  qdrantUrl: string;
  qdrantApiKey?: string | undefined;
  elasticsearchUrl: string;
  /** Knowledge subset: this many Debian source packages (same subset on both instances). */
  packages: number;
  /** The aliases are `<label>-online` / `<label>-baseline`, the intake's span index `<label>-otlp-spans`. */
  label: string;
  runDir: string;
  /** The Gemma GGUF (scripts/install-gemma.sh prints its path). */
  modelPath: string;
  /** Calls per side per probe for the sentinel and the verification (default 5). */
  samplesPerProbe?: number;
  /** Significance of the sampled test (default 0.005: at 0.01 clean rounds fired, see services/langchain-rag/README.md). */
  sampleAlpha?: number;
}

const INTAKE = 'services/trace-intake/src/main.ts';
const RAG = 'services/langchain-rag/src/main.ts';

/** Starts the intake, then online and baseline (each loading Gemma and indexing), and waits until they listen. */
export async function startLangchainRagPairProcesses(options: LangchainRagPairOptions): Promise<RagPairProcesses> {
  const now = new Date();
  const { sources } = loadDebianKnowledge({ packages: options.packages });
  const knowledgeIds = new Set(sources.flatMap((source) => source.recordsPublishedBy(now).map((record) => record.knowledgeId)));
  const aliases = { online: `${options.label}-online`, baseline: `${options.label}-baseline` };
  const [intakePort, onlinePort, baselinePort] = [await freePort(), await freePort(), await freePort()];
  const intake = new ManagedProcess({
    name: 'trace-intake',
    entry: INTAKE,
    env: {
      ELASTICSEARCH_URL: options.elasticsearchUrl,
      // The identifier reads spans under its own ES_INDEX_PREFIX unless told otherwise: the run's namespace.
      ES_INDEX_PREFIX: options.label,
      TRACE_INTAKE_HOST: '127.0.0.1',
      TRACE_INTAKE_PORT: String(intakePort),
      LOG_LEVEL: 'info',
    },
    logFile: join(options.runDir, 'trace-intake.log'),
    ready: logMessage('trace intake listening'),
    healthPort: () => intakePort,
    startTimeoutMs: 120_000,
  });
  const rag = (instance: 'online' | 'baseline', port: number, extra: Record<string, string> = {}) =>
    new ManagedProcess({
      name: `rag-${instance}`,
      entry: RAG,
      env: {
        INSTANCE: instance,
        HOST: '127.0.0.1',
        PORT: String(port),
        QDRANT_URL: options.qdrantUrl,
        ...(options.qdrantApiKey ? { QDRANT_API_KEY: options.qdrantApiKey } : {}),
        QDRANT_ALIAS: aliases[instance],
        KNOWLEDGE_PACKAGES: String(options.packages),
        LLM_MODEL_PATH: options.modelPath,
        LLM_THREADS: '1',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${intakePort}/v1/traces`,
        // Spans reach the intake within a second of the call: the identifier waits for them.
        OTEL_BSP_SCHEDULE_DELAY: '1000',
        LOG_LEVEL: 'info',
        ...extra,
      },
      logFile: join(options.runDir, `rag-${instance}.log`),
      ready: logMessage('langchain-rag listening'),
      healthPort: () => port,
      startTimeoutMs: 300_000,
    });
  const online = rag('online', onlinePort);
  // The settings it was first deployed with: resetOnline starts them again after a redeploy.
  const firstDeploy = { ...online.spec.env };
  const baseline = rag('baseline', baselinePort, { PINNED_AS_OF: now.toISOString() });
  const qdrant = createQdrantClient({ url: options.qdrantUrl, apiKey: options.qdrantApiKey });
  // Every generation an alias ever pointed at (`<alias>--…`): the RAG's own builds and the effector's.
  const dropGenerations = async (alias: string) => {
    const { collections } = await qdrant.getCollections();
    for (const { name } of collections.filter((c) => c.name.startsWith(`${alias}--`)))
      await qdrant.deleteCollection(name).catch(() => undefined);
  };
  const drop = async () => {
    for (const alias of Object.values(aliases)) await dropGenerations(alias).catch(() => undefined);
  };
  try {
    await intake.start();
    await Promise.all([online.start(), baseline.start()]);
  } catch (error) {
    await Promise.all([online.kill(), baseline.kill(), intake.kill()]);
    await drop();
    throw error;
  }
  const samples = String(options.samplesPerProbe ?? 5);
  const alpha = String(options.sampleAlpha ?? 0.005);
  return {
    online,
    baseline,
    onlineUrl: `http://127.0.0.1:${onlinePort}`,
    baselineUrl: `http://127.0.0.1:${baselinePort}`,
    collections: aliases,
    knowledgeIds,
    // @langchain/qdrant's layout: { content, metadata }.
    payloadLayout: { metadataPayloadKey: 'metadata', contentPayloadKey: 'content' },
    workerEnv: {
      sentinel: {
        SENTINEL_SAMPLES_PER_PROBE: samples,
        SENTINEL_SAMPLE_ALPHA: alpha,
        // One probe at a time: each RAG generates on one CPU thread, k calls a side per probe.
        SENTINEL_MAX_CONCURRENT: '1',
        SENTINEL_CALL_TIMEOUT_MS: '60000',
      },
      identifier: {
        IDENTIFIER_TRACE_SOURCE: 'intake',
        IDENTIFIER_INTAKE_WAIT_MS: '30000',
        ...indexDiffEnv(options, aliases, now, 'metadata'),
      },
      effector: {
        EFFECTOR_VERIFY_SAMPLES_PER_PROBE: samples,
        EFFECTOR_VERIFY_SAMPLE_ALPHA: alpha,
        EFFECTOR_VERIFY_CONCURRENCY: '1',
        EFFECTOR_VERIFY_TIMEOUT_MS: '300000',
      },
    },
    async resetOnline() {
      await online.stop();
      online.spec.env = { ...firstDeploy };
      await dropGenerations(aliases.online);
      await online.start();
    },
    async redeployOnline(env) {
      await online.stop();
      // A new build of the same service: same URL, same alias, the index it serves left as it is.
      online.spec.env = { ...online.spec.env, ...env, INGEST_ON_START: 'false' };
      await online.start();
    },
    async close() {
      await Promise.all([online.stop(), baseline.stop()]);
      await intake.stop();
      await drop();
    },
  };
}
