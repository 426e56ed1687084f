/**
 * Composition root: `INSTANCE=online QDRANT_URL=… npx tsx services/reference-rag/src/main.ts`.
 * Baseline: `INSTANCE=baseline PINNED_AS_OF=2024-06-01T00:00:00Z PORT=18401 …`.
 */
import { loadSentenceEmbedder } from './embedding/sentence-embedder.ts';
import { workerLogger } from '@rag-immune/worker-runtime';
import { InvalidConfigError, ragConfigFromEnv } from './config.ts';
import { loadDebianKnowledge } from '@rag-immune/debian-knowledge';
import { createReferenceRag } from './reference-rag.ts';

let config;
try {
  config = ragConfigFromEnv();
} catch (error) {
  if (error instanceof InvalidConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
  throw error;
}
// Redacting logger: bearer tokens must never reach the log.
const logger = workerLogger('reference-rag', '0.1.0', config.LOG_LEVEL).child({ instance: config.INSTANCE });
const { sources } = loadDebianKnowledge({
  from: config.KNOWLEDGE_FROM,
  ...(config.KNOWLEDGE_PACKAGES ? { packages: config.KNOWLEDGE_PACKAGES } : {}),
  ...(config.SOURCE_TRUST ? { trust: config.SOURCE_TRUST } : {}),
});
const rag = createReferenceRag(config, { embedder: await loadSentenceEmbedder(), sources, logger });
if (config.INGEST_ON_START) {
  const result = await rag.ingest();
  logger.info(result, 'knowledge ingested');
} else {
  await rag.index.ensureCollection();
}
const { url } = await rag.listen();
logger.info({ url, collection: rag.index.collection, knowledge_as_of: rag.knowledgeClock().toISOString() }, 'reference RAG listening');

const shutdown = (): void => {
  void rag.close().then(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
