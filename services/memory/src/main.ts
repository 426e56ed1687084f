/**
 * The memory worker's composition root: configuration (a bad value exits 78 naming the variable),
 * the expert rules file (a bad file exits 78 naming its path), the shared sentence embedder, the
 * bus, the case stores, /recommend, forgetting, /healthz and /metrics, graceful shutdown.
 */
import { SentenceEmbedder } from '@rag-immune/embeddings';
import { busConfigFromEnv, InvalidConfigError, onTerminationSignal } from '@rag-immune/bus';
import { EXIT_CONFIG, WorkerConfigError, startTelemetry, workerLogger } from '@rag-immune/worker-runtime';
import { MEMORY_VERSION, memoryConfigFromEnv } from './config.ts';
import { ExpertRules, RulesFileError } from './recommend/expert-rules.ts';
import { MemoryWorker } from './worker.ts';

const logger = workerLogger('memory', MEMORY_VERSION);

async function main(): Promise<void> {
  const config = memoryConfigFromEnv(process.env);
  const busConfig = busConfigFromEnv(process.env, 'rag-immune-memory');
  // Check the rules file before the model loads: a bad file stops start-up at once, naming it.
  ExpertRules.load(config.MEMORY_RULES_FILE);
  const telemetry = startTelemetry('memory', MEMORY_VERSION);
  const embedder = await SentenceEmbedder.load({ logger });
  const worker = new MemoryWorker({ config, busConfig, embedder, logger, tracer: telemetry.tracer });
  await worker.start();
  onTerminationSignal(async () => {
    await worker.stop();
    await embedder.release();
    await telemetry.shutdown();
  }, logger);
}

main().catch((error: unknown) => {
  if (error instanceof WorkerConfigError || error instanceof InvalidConfigError || error instanceof RulesFileError) {
    logger.fatal({ issues: (error as { issues: unknown }).issues }, error.message);
    process.exit(EXIT_CONFIG);
  }
  logger.fatal({ err: error }, 'memory failed to start');
  process.exit(1);
});
