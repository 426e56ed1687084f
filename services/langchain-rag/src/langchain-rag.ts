/**
 * The RAG, assembled as a LangChain.js user assembles one: a Qdrant vector store (through the
 * adapter's alias reindex, so the effector can rebuild it), a retriever, a prompt, a sampling LLM and
 * a string parser in one LCEL chain, served by the adapter's POST /query and repair routes.
 */
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { DocumentInterface } from '@langchain/core/documents';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { RunnablePassthrough, RunnableSequence, type RunnableInterface } from '@langchain/core/runnables';
import type { QdrantClient } from '@qdrant/js-client-rest';
import type { KnowledgeSource } from '@rag-immune/debian-knowledge';
import { AliasReindex, ImmuneRetriever, PinnedGenerator, queryHandler, repairRoutes } from '@rag-immune/langchain';
import { sendInternalError } from '@rag-immune/worker-runtime';
import type { LangchainRagConfig } from './config.ts';
import type { CompletionEngine } from './generation/completion-engine.ts';
import { SamplingLlm, SeedSequence } from './generation/sampling-llm.ts';
import { KnowledgeFeeds, staleFeed } from './knowledge-feeds.ts';
import { QdrantFeedIndex } from './qdrant-feed-index.ts';
import { PROMPTS, formatContext, type PromptVersion } from './prompt.ts';
import type { SharedSentenceEmbeddings } from './shared-sentence-embeddings.ts';

export interface LangchainRagParts {
  config: LangchainRagConfig;
  embeddings: SharedSentenceEmbeddings;
  engine: CompletionEngine;
  qdrant: QdrantClient;
  sources: readonly KnowledgeSource[];
  logger: Logger;
  /** Default: from LLM_SEED, or random. */
  seeds?: SeedSequence;
}

export interface LangchainRag {
  app: Express;
  alias: string;
  reindex: AliasReindex;
  feeds: KnowledgeFeeds;
  generator: PinnedGenerator<never, unknown>;
}

/** The alias the RAG reads unless QDRANT_ALIAS names one. */
export const defaultAlias = (instance: string) => `langchain-rag-${instance}`;

export async function createLangchainRag(parts: LangchainRagParts): Promise<LangchainRag> {
  const { config, embeddings, engine, logger } = parts;
  const instance = config.INSTANCE;
  const pinnedAsOf = config.PINNED_AS_OF === undefined ? undefined : new Date(config.PINNED_AS_OF);
  const alias = config.QDRANT_ALIAS ?? defaultAlias(instance);

  if (config.FEED_PRIMARY_STALE_AS_OF !== undefined) {
    const source = parts.sources.find((candidate) => candidate.name === config.FEED_PRIMARY_STALE_SOURCE);
    if (source === undefined) throw new Error(`FEED_PRIMARY_STALE_SOURCE: no knowledge source ${config.FEED_PRIMARY_STALE_SOURCE}`);
    const ids = config.FEED_PRIMARY_STALE_IDS === undefined ? undefined : new Set(config.FEED_PRIMARY_STALE_IDS);
    const servesAsOf = new Date(config.FEED_PRIMARY_STALE_AS_OF);
    source.wrapPrimary((inner) => staleFeed(inner, servesAsOf, ids));
    logger.warn({ source: source.name, serves_as_of: servesAsOf.toISOString(), ids: ids?.size ?? 'all' }, 'primary feed deployed stale');
  }

  // The online RAG indexes what its active feeds publish now (a reindex or a feed sync refreshes it);
  // the baseline, what they had published by its pin.
  const reindex: AliasReindex = new AliasReindex({ client: parts.qdrant, alias, embeddings, load: async () => feeds.documents() });
  const feeds: KnowledgeFeeds = new KnowledgeFeeds({
    sources: parts.sources,
    index: new QdrantFeedIndex({ client: parts.qdrant, embeddings, collection: async (): Promise<string | null> => reindex.current() }),
    knowledgeTime: () => pinnedAsOf ?? new Date(),
  });
  if (config.INGEST_ON_START) {
    const built = await reindex.reindex();
    logger.info({ alias, ...built }, 'knowledge indexed behind the alias');
  } else if ((await reindex.current()) === null) {
    throw new Error(`INGEST_ON_START=false but the Qdrant alias ${alias} does not exist`);
  } else if (pinnedAsOf === undefined) {
    // A redeploy over the same index ingests from its feeds: only ids whose versions differ are rewritten.
    const synced = await feeds.sync();
    logger.info({ alias, ...synced }, 'index synced from the active feeds');
  }

  const llm = new SamplingLlm({
    engine,
    temperature: config.LLM_TEMPERATURE,
    topP: config.LLM_TOP_P,
    maxTokens: config.LLM_MAX_TOKENS,
    seeds: parts.seeds ?? new SeedSequence(config.LLM_SEED),
  });
  const versions = Object.fromEntries(
    (Object.keys(PROMPTS) as PromptVersion[]).map((prompt) => [
      `${engine.modelName}+${prompt}`,
      PROMPTS[prompt].pipe(llm).pipe(new StringOutputParser()),
    ]),
  );
  const generator = new PinnedGenerator(versions as never, `${engine.modelName}+${config.LLM_PROMPT_VERSION}`);
  const retriever = new ImmuneRetriever({
    vectorStore: () => reindex.store(),
    candidates: config.RETRIEVAL_CANDIDATES,
    defaultTopK: config.DEFAULT_TOP_K,
  });
  const chain = RunnableSequence.from([
    { context: retriever.pipe((docs: DocumentInterface[]) => formatContext(docs)), question: new RunnablePassthrough() },
    generator.runnable as never,
  ]) as unknown as RunnableInterface<string, string>;

  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok', instance }));
  app.use(express.json({ limit: '64kb' }));
  if (pinnedAsOf !== undefined) {
    // The frozen baseline answers as of its pin, whatever the caller asks.
    app.post('/query', (req, _res, next) => {
      if (req.body !== null && typeof req.body === 'object') req.body.as_of = pinnedAsOf.toISOString();
      next();
    });
  }
  app.post(
    '/query',
    queryHandler({
      chain,
      defaultTopK: config.DEFAULT_TOP_K,
      instance,
      models: () => ({ embedder: embeddings.modelId, reranker: 'none', generator: generator.version }),
    }),
  );
  app.use(
    repairRoutes({
      // The baseline is frozen: it serves no repairs that would change its knowledge.
      ...(instance === 'online' ? { reindex, knowledgeSources: feeds } : {}),
      knowledge: feeds,
      generator,
      instance,
      reranker: () => 'none',
      ...(config.RAG_API_TOKEN !== undefined ? { bearerToken: config.RAG_API_TOKEN } : {}),
    }),
  );
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendInternalError(logger, 'langchain-rag', error, req, res);
  });
  return { app, alias, reindex, feeds, generator };
}
