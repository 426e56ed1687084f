import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { QdrantClient } from '@qdrant/js-client-rest';
import type { Logger } from 'pino';
import { createQdrantClient } from '@rag-immune/worker-runtime';
import { DocumentParser } from './chunking/document-parser.ts';
import type { RagConfig } from './config.ts';
import { CachingEmbedder, type Embedder } from './embedding/embedder.ts';
import { FaultInjector } from './faults/fault-injector.ts';
import { FaultJournal } from './faults/fault-journal.ts';
import { ExtractiveGenerator } from './generation/extractive-generator.ts';
import { createApp } from './http/app.ts';
import { VectorIndex } from './index/vector-index.ts';
import { KnowledgeIndexer, type SyncResult } from './ingest/knowledge-indexer.ts';
import type { KnowledgeSource } from '@rag-immune/debian-knowledge';
import { createRagMetrics } from './metrics.ts';
import { QueryLog } from './query-log.ts';
import { RagService } from './rag-service.ts';
import { RepairHooks } from './repair-hooks.ts';
import { Reranker, loadRerankerWeights } from './rerank/reranker.ts';
import { QueryNormalizer } from './text/query-normalizer.ts';
import { openInferenceQuerySpans, parseOtlpHeaders } from './traces/openinference-spans.ts';
import { TraceStore } from './traces/trace-store.ts';

export const DEFAULT_RERANKER_DIR = fileURLToPath(new URL('../../../models/reranker/', import.meta.url));

export interface ReferenceRagDeps {
  embedder: Embedder;
  sources: KnowledgeSource[];
  logger: Logger;
  qdrant?: QdrantClient;
}

export interface ReferenceRag {
  config: RagConfig;
  service: RagService;
  indexer: KnowledgeIndexer;
  index: VectorIndex;
  faults: FaultInjector;
  queryLog: QueryLog;
  app: ReturnType<typeof createApp>;
  /** The knowledge time the index is synced to. */
  knowledgeClock(): Date;
  /** Syncs the index with the knowledge (idempotent). */
  ingest(): Promise<SyncResult>;
  listen(): Promise<{ url: string; server: Server }>;
  close(): Promise<void>;
}

/** Wires one instance (online or baseline) from its configuration: same code, different config. */
export function createReferenceRag(config: RagConfig, deps: ReferenceRagDeps): ReferenceRag {
  const { logger, sources } = deps;
  const pinned = config.PINNED_AS_OF === undefined ? undefined : new Date(config.PINNED_AS_OF);
  let clock = pinned ?? (config.KNOWLEDGE_PUBLISHED_BY === undefined ? new Date() : new Date(config.KNOWLEDGE_PUBLISHED_BY));
  const knowledge = {
    frozen: pinned !== undefined,
    clock: () => clock,
    advanceToNow: () => (clock = pinned ?? new Date()),
  };
  const embedder = new CachingEmbedder(deps.embedder);
  const qdrant = deps.qdrant ?? createQdrantClient({ url: config.QDRANT_URL, apiKey: config.QDRANT_API_KEY, logger });
  const index = new VectorIndex(qdrant, config.QDRANT_COLLECTION ?? `reference-rag-${config.INSTANCE}`, embedder.dimension, {
    alias: config.QDRANT_ALIAS,
  });
  const trust = new Map(sources.map((source) => [source.name, source.trust]));
  const indexer = new KnowledgeIndexer(index, embedder, new DocumentParser((name) => trust.get(name) ?? 0.5), sources, logger);
  const reranker = new Reranker(loadRerankerWeights(config.RERANKER_DIR ?? DEFAULT_RERANKER_DIR), config.RERANKER_VERSION);
  const generator = new ExtractiveGenerator();
  const normalizer = new QueryNormalizer();
  const queryLog = new QueryLog(config.QUERY_LOG_PATH, {
    maxEntries: config.QUERY_LOG_MAX_ENTRIES,
    maxAgeMs: config.QUERY_LOG_MAX_AGE_HOURS * 3600_000,
  });
  const spans =
    config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT === undefined
      ? undefined
      : openInferenceQuerySpans({
          url: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
          headers: parseOtlpHeaders(config.OTEL_EXPORTER_OTLP_HEADERS),
          instance: config.INSTANCE,
          scheduledDelayMillis: config.OTEL_BSP_SCHEDULE_DELAY,
        });
  const service = new RagService(
    {
      instance: config.INSTANCE,
      ...(pinned ? { pinnedAsOf: pinned } : {}),
      candidates: config.RETRIEVAL_CANDIDATES,
      defaultTopK: config.DEFAULT_TOP_K,
      tracesEndpoint: config.RAG_TRACES_ENDPOINT === 'enabled',
      ...(spans ? { spans } : {}),
    },
    embedder,
    index,
    reranker,
    generator,
    normalizer,
    new TraceStore(config.TRACE_CAPACITY),
    queryLog,
  );
  const journal = new FaultJournal(config.FAULT_JOURNAL_PATH);
  const faults = new FaultInjector(
    {
      instance: config.INSTANCE,
      index,
      indexer,
      reranker,
      generator,
      normalizer,
      queryEncoder: service,
      knowledgeClock: knowledge.clock,
      pinnedRerankerVersion: () => config.RERANKER_VERSION,
    },
    journal,
  );
  const metrics = createRagMetrics(config.INSTANCE);
  const app = createApp({
    service,
    repair: new RepairHooks(service, indexer, index, knowledge),
    vectorStore: () => index.layout(),
    faults,
    journal,
    metrics,
    logger,
    knowledgeSources: sources.map((source) => source.name),
    knowledge: { freshness: (knowledgeId) => indexer.freshness(knowledgeId, knowledge.clock()) },
    activeFeeds: () => Object.fromEntries(sources.map((source) => [source.name, source.activeProvider])),
    parser: indexer,
    faultsAllowed: config.INSTANCE === 'online',
    faultInjectionEnabled: config.RAG_FAULT_INJECTION === 'enabled',
    apiToken: config.RAG_API_TOKEN,
    host: config.HOST,
  });
  let server: Server | undefined;
  const flushTimer = setInterval(() => queryLog.flush(), 5000);
  flushTimer.unref();

  return {
    config,
    service,
    indexer,
    index,
    faults,
    queryLog,
    app,
    knowledgeClock: knowledge.clock,
    async ingest() {
      await index.ensureCollection();
      const result = await indexer.sync(knowledge.clock());
      metrics.chunksIndexed.inc(result.upserted);
      return result;
    },
    listen() {
      return new Promise((resolve, reject) => {
        const listening = app.listen(config.PORT, config.HOST, (error?: Error) => {
          if (error) return reject(error);
          server = listening;
          const address = listening.address();
          const port = typeof address === 'object' && address !== null ? address.port : config.PORT;
          resolve({ url: `http://${config.HOST}:${port}`, server: listening });
        });
      });
    },
    async close() {
      clearInterval(flushTimer);
      queryLog.flush();
      await spans?.shutdown();
      if (server !== undefined) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server!.close(() => resolve()));
      }
    },
  };
}
