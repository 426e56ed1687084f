/**
 * The identifier worker's entry point: `npm run identifier` / `npx tsx services/identifier/src/main.ts`.
 * A bad setting stops it with exit 78 naming the variable.
 */
import { InvalidConfigError, onTerminationSignal } from '@rag-immune/bus';
import { EXIT_CONFIG, WorkerConfigError, workerLogger } from '@rag-immune/worker-runtime';
import { IDENTIFIER_VERSION } from './config.ts';
import { startIdentifierWorker } from './worker.ts';

const logger = workerLogger('identifier', IDENTIFIER_VERSION);

startIdentifierWorker(process.env, logger)
  .then((worker) => onTerminationSignal(() => worker.stop(), logger))
  .catch((error: unknown) => {
    if (error instanceof WorkerConfigError || error instanceof InvalidConfigError) {
      logger.fatal({ issues: (error as { issues: unknown }).issues }, error.message);
      process.exit(EXIT_CONFIG);
    }
    logger.fatal({ err: error }, 'identifier failed to start');
    process.exit(1);
  });
