/**
 * The LangChain RAG's process: configuration, tracing first (so LangChain's callback manager is
 * instrumented before any chain runs), the embedder and the model, the RAG, then the HTTP server.
 */
import { pino } from 'pino';
import { SentenceEmbedder } from '@rag-immune/embeddings';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { EXIT_CONFIG, WorkerConfigError, createQdrantClient } from '@rag-immune/worker-runtime';
import { langchainRagConfigFromEnv, type LangchainRagConfig } from './config.ts';
import { LlamaCppEngine } from './generation/llama-cpp-engine.ts';
import { ModelNotInstalledError } from './generation/completion-engine.ts';
import { createLangchainRag } from './langchain-rag.ts';
import { SharedSentenceEmbeddings } from './shared-sentence-embeddings.ts';
import { startTracing } from './tracing.ts';

let config: LangchainRagConfig;
try {
  config = langchainRagConfigFromEnv();
} catch (error) {
  if (error instanceof WorkerConfigError) {
    console.error(error.message);
    process.exit(EXIT_CONFIG);
  }
  throw error;
}
const logger = pino({ level: config.LOG_LEVEL, base: { service: 'langchain-rag', instance: config.INSTANCE } });
const tracing = startTracing({
  serviceName: 'langchain-rag',
  instance: config.INSTANCE,
  ...(config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined ? { endpoint: config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT } : {}),
  scheduleDelayMillis: config.OTEL_BSP_SCHEDULE_DELAY,
});
if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT === undefined)
  logger.warn('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not set: no spans leave this RAG, and RAG Immune cannot diagnose it');

let engine: LlamaCppEngine;
try {
  engine = await LlamaCppEngine.load({
    modelPath: config.LLM_MODEL_PATH,
    contextSize: config.LLM_CONTEXT_SIZE,
    threads: config.LLM_THREADS,
    gpu: config.LLM_GPU === 'auto' ? 'auto' : false,
  });
} catch (error) {
  if (error instanceof ModelNotInstalledError) {
    logger.fatal(error.message);
    process.exit(EXIT_CONFIG);
  }
  throw error;
}
const embedder = await SentenceEmbedder.load({ logger });
const rag = await createLangchainRag({
  config,
  embeddings: new SharedSentenceEmbeddings(embedder),
  engine,
  qdrant: createQdrantClient({ url: config.QDRANT_URL, apiKey: config.QDRANT_API_KEY, logger }),
  sources: loadDebianKnowledge({
    from: config.KNOWLEDGE_FROM,
    ...(config.KNOWLEDGE_PACKAGES !== undefined ? { packages: config.KNOWLEDGE_PACKAGES } : {}),
  }).sources,
  logger,
});
const server = rag.app.listen(config.PORT, config.HOST, () =>
  logger.info({ port: config.PORT, host: config.HOST, alias: rag.alias, generator: rag.generator.version }, 'langchain-rag listening'),
);

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    server.close();
    void Promise.allSettled([tracing.shutdown(), engine.close()]).then(() => process.exit(0));
  });
