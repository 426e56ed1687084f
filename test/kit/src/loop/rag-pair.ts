/**
 * The reference RAG pair as two separate processes (online and its frozen baseline), the way a
 * production RAG runs beside the immune system: the workers reach it only over HTTP. Both instances
 * serve the same KNOWLEDGE_PACKAGES subset, each in its own Qdrant collection.
 */
import { join } from 'node:path';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { loadDebianKnowledge } from '@rag-immune/reference-rag/testing';
import { ManagedProcess, freePort, logMessage, type LogRecord } from '../processes.ts';
import type { WorkerKind } from './immune-system.ts';
import type { OnlineIndex } from './operator-faults.ts';

export interface RagPairOptions {
  qdrantUrl: string;
  /** Qdrant's api-key, when the server wants one. */
  qdrantApiKey?: string | undefined;
  /** Knowledge subset: this many Debian source packages (same subset on both instances). */
  packages: number;
  /** Collection names start with it: `<label>-online`, `<label>-baseline`. */
  label: string;
  runDir: string;
  /** The baseline's pin: default now, a known-good copy of today's knowledge. */
  baselinePinnedAt?: Date;
  /**
   * The online instance exports every query's OpenInference spans (OTLP/HTTP) here, e.g. the trace
   * intake's /v1/traces: users' answers reach the traffic watcher this way (issue 38). The frozen
   * baseline is never watched, so it exports nothing.
   */
  otlpTracesUrl?: string;
}

export interface RagPairProcesses {
  online: ManagedProcess;
  baseline: ManagedProcess;
  onlineUrl: string;
  baselineUrl: string;
  collections: { online: string; baseline: string };
  /** Knowledge ids both instances serve now. */
  knowledgeIds: Set<string>;
  /** Where a point keeps the chunk's metadata and text in its Qdrant payload (default: top level, `text`). */
  payloadLayout?: Pick<OnlineIndex, 'metadataPayloadKey' | 'contentPayloadKey'>;
  /** What the workers need to watch this pair beyond its URLs (where its traces are, how it samples). */
  workerEnv?: Partial<Record<WorkerKind, Record<string, string>>>;
  /**
   * A fresh online instance on the same URL: stop it, drop its collection, start and ingest again.
   * Undoes every fault and every repair at once (benchmark trials of the same kind need that).
   */
  resetOnline(): Promise<void>;
  /**
   * The online instance redeployed on the same URL with these settings over its own, serving the
   * index it has (no ingest): an operator's deploy of a new build (deploy faults, ./deploy-faults.ts).
   * The settings stay until the next redeploy or resetOnline (which starts the original settings).
   * Only a pair whose RAG takes such settings serves it; the others refuse, saying so.
   */
  redeployOnline(env: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

const listeningUrl = (instance: ManagedProcess): string => {
  const line = instance.records.find(logMessage('reference RAG listening'));
  const url = line?.json?.url;
  if (typeof url !== 'string') throw new Error(`${instance.spec.name}: no url in its listening line`);
  return url;
};

/** Starts online and baseline (ingesting in parallel) and waits until both listen. */
export async function startRagPairProcesses(options: RagPairOptions): Promise<RagPairProcesses> {
  const { sources } = loadDebianKnowledge({ packages: options.packages });
  const now = new Date();
  const knowledgeIds = new Set(sources.flatMap((source) => source.recordsPublishedBy(now).map((record) => record.knowledgeId)));
  const collections = { online: `${options.label}-online`, baseline: `${options.label}-baseline` };
  const pinnedAt = options.baselinePinnedAt ?? now;
  const common = {
    QDRANT_URL: options.qdrantUrl,
    ...(options.qdrantApiKey ? { QDRANT_API_KEY: options.qdrantApiKey } : {}),
    KNOWLEDGE_PACKAGES: String(options.packages),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    // The pair exists for drills: the fault admin API is on (loopback only, no token).
    RAG_FAULT_INJECTION: 'enabled',
  };
  // Fixed ports (picked free now) so that a reset online instance keeps its URL for the workers.
  const [onlinePort, baselinePort] = [await freePort(), await freePort()];
  const ready = (record: LogRecord) => logMessage('reference RAG listening')(record);
  // Indexing 200 packages on a loaded 2-core machine can take longer than the usual five minutes.
  const startTimeoutMs = Number(process.env.LOOP_RAG_START_TIMEOUT_MS ?? 300_000);
  const online = new ManagedProcess({
    name: 'rag-online',
    entry: 'services/reference-rag/src/main.ts',
    env: {
      ...common,
      PORT: String(onlinePort),
      INSTANCE: 'online',
      QDRANT_COLLECTION: collections.online,
      FAULT_JOURNAL_PATH: join(options.runDir, 'fault-journal.jsonl'),
      ...(options.otlpTracesUrl === undefined
        ? {}
        : { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: options.otlpTracesUrl, OTEL_BSP_SCHEDULE_DELAY: '500' }),
    },
    logFile: join(options.runDir, 'rag-online.log'),
    ready,
    startTimeoutMs,
  });
  const baseline = new ManagedProcess({
    name: 'rag-baseline',
    entry: 'services/reference-rag/src/main.ts',
    env: {
      ...common,
      PORT: String(baselinePort),
      INSTANCE: 'baseline',
      QDRANT_COLLECTION: collections.baseline,
      PINNED_AS_OF: pinnedAt.toISOString(),
    },
    logFile: join(options.runDir, 'rag-baseline.log'),
    ready,
    startTimeoutMs,
  });
  const qdrant = createQdrantClient({ url: options.qdrantUrl, apiKey: options.qdrantApiKey });
  const drop = async () => {
    for (const name of Object.values(collections)) await qdrant.deleteCollection(name).catch(() => undefined);
  };
  try {
    await Promise.all([online.start(), baseline.start()]);
  } catch (error) {
    await Promise.all([online.kill(), baseline.kill()]);
    await drop();
    throw error;
  }
  return {
    online,
    baseline,
    onlineUrl: listeningUrl(online),
    baselineUrl: listeningUrl(baseline),
    collections,
    knowledgeIds,
    workerEnv: { identifier: indexDiffEnv(options, collections, pinnedAt) },
    async resetOnline() {
      await online.stop();
      await qdrant.deleteCollection(collections.online).catch(() => undefined);
      await online.start();
    },
    async redeployOnline() {
      // Its faults come through its fault API; a prompt or other build setting has no deploy variable here.
      throw new Error(
        'the reference RAG pair takes no redeploy settings: deploy faults (prompt-regressed) are for the LangChain RAG (--rag langchain)',
      );
    },
    async close() {
      await Promise.all([online.stop(), baseline.stop()]);
      await drop();
    },
  };
}

/** The identifier's index diff over the pair's two collections (aliases), in the reference RAG's payload layout. */
export function indexDiffEnv(
  options: Pick<RagPairOptions, 'qdrantUrl' | 'qdrantApiKey'>,
  collections: { online: string; baseline: string },
  pinnedAt: Date,
  layout: 'top' | 'metadata' = 'top',
): Record<string, string> {
  return {
    IDENTIFIER_QDRANT_URL: options.qdrantUrl,
    ...(options.qdrantApiKey ? { IDENTIFIER_QDRANT_API_KEY: options.qdrantApiKey } : {}),
    IDENTIFIER_ONLINE_COLLECTION: collections.online,
    IDENTIFIER_BASELINE_COLLECTION: collections.baseline,
    IDENTIFIER_INDEX_PAYLOAD_LAYOUT: layout,
    IDENTIFIER_BASELINE_PINNED_AS_OF: pinnedAt.toISOString(),
  };
}
