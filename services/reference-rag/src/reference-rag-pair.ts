import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { CachingEmbedder } from './embedding/embedder.ts';
import { loadSentenceEmbedder } from './embedding/sentence-embedder.ts';
import { ragConfigFromEnv } from './config.ts';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { createReferenceRag, type ReferenceRag } from './reference-rag.ts';

export interface ReferenceRagPairOptions {
  qdrantUrl: string;
  /** Qdrant's api-key, when the server wants one. */
  qdrantApiKey?: string | undefined;
  /** false: each instance queries a plain collection instead of an alias over a generation (QDRANT_ALIAS). */
  qdrantAlias?: boolean;
  /** Knowledge subset size: packages whose changelogs and apt entries are ingested. */
  packages: number;
  /** Collection name prefix; a random suffix keeps runs apart. */
  label: string;
  logger: Logger;
  /** The baseline's pinned time; default now, i.e. a known-good snapshot of today's knowledge. */
  baselinePinnedAt?: Date;
  /** RAG_API_TOKEN of both instances; callers then pass it to callFaultAdmin and repair clients. Default: none (loopback dev mode). */
  apiToken?: string;
  /** Export both instances' query spans to this OTLP/HTTP traces URL (e.g. a trace intake's /v1/traces). */
  otlpTracesUrl?: string;
  /** `enabled` (default) or `disabled`: with it off, the RAGs' traces exist only as their OTLP spans. */
  tracesEndpoint?: 'enabled' | 'disabled';
}

/** An online reference RAG and its frozen baseline, ingested and listening on loopback. */
export interface ReferenceRagPair {
  online: ReferenceRag;
  baseline: ReferenceRag;
  onlineUrl: string;
  baselineUrl: string;
  /** Knowledge ids of the ingested subset. */
  knowledgeIds: Set<string>;
  /** Stops both servers and drops their collections. */
  close(): Promise<void>;
}

/**
 * Starts the online/baseline pair the sentinel watches, the way the demo, the sentinel's end-to-end
 * tests and its benchmark all need it: one embedder shared by both, separate collections.
 */
export async function startReferenceRagPair(options: ReferenceRagPairOptions): Promise<ReferenceRagPair> {
  const run = randomUUID().slice(0, 8);
  const { sources } = loadDebianKnowledge({ packages: options.packages });
  const knowledgeIds = new Set(sources.flatMap((source) => source.recordsPublishedBy(new Date()).map((record) => record.knowledgeId)));
  const embedder = new CachingEmbedder(await loadSentenceEmbedder());
  // Fault injection on: the pair exists for drills, tests, the demo and benchmarks.
  const env = {
    QDRANT_URL: options.qdrantUrl,
    ...(options.qdrantApiKey ? { QDRANT_API_KEY: options.qdrantApiKey } : {}),
    ...(options.qdrantAlias === false ? { QDRANT_ALIAS: 'false' } : {}),
    PORT: '0',
    LOG_LEVEL: 'warn',
    RAG_FAULT_INJECTION: 'enabled',
    ...(options.apiToken === undefined ? {} : { RAG_API_TOKEN: options.apiToken }),
    ...(options.otlpTracesUrl === undefined
      ? {}
      : { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: options.otlpTracesUrl, OTEL_BSP_SCHEDULE_DELAY: '200' }),
    ...(options.tracesEndpoint === undefined ? {} : { RAG_TRACES_ENDPOINT: options.tracesEndpoint }),
  };
  const online = createReferenceRag(ragConfigFromEnv({ ...env, INSTANCE: 'online', QDRANT_COLLECTION: `${options.label}-online-${run}` }), {
    embedder,
    sources,
    logger: options.logger,
  });
  const baseline = createReferenceRag(
    ragConfigFromEnv({
      ...env,
      INSTANCE: 'baseline',
      PINNED_AS_OF: (options.baselinePinnedAt ?? new Date()).toISOString(),
      QDRANT_COLLECTION: `${options.label}-baseline-${run}`,
    }),
    // Its own source objects: faults injected into the online sources must not reach the baseline.
    { embedder, sources: loadDebianKnowledge({ packages: options.packages }).sources, logger: options.logger },
  );
  await Promise.all([online.ingest(), baseline.ingest()]);
  const onlineUrl = (await online.listen()).url;
  const baselineUrl = (await baseline.listen()).url;
  return {
    online,
    baseline,
    onlineUrl,
    baselineUrl,
    knowledgeIds,
    async close() {
      await Promise.all([online.close(), baseline.close()]);
      await Promise.all([online.index.drop(), baseline.index.drop()]);
    },
  };
}
