/**
 * The trace intake's entry point: `npm run trace-intake` / `npx tsx services/trace-intake/src/main.ts`.
 * A bad setting stops it with exit 78 naming the variable.
 */
import { EXIT_CONFIG, WorkerConfigError, workerLogger } from '@rag-immune/worker-runtime';
import { TRACE_INTAKE_VERSION, startTraceIntake } from './worker.ts';

const logger = workerLogger('trace-intake', TRACE_INTAKE_VERSION);

startTraceIntake(process.env, logger)
  .then((intake) => {
    const stop = () => {
      logger.info('stopping');
      void intake.stop().then(() => process.exit(0));
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  })
  .catch((error: unknown) => {
    if (error instanceof WorkerConfigError) {
      logger.fatal({ issues: error.issues }, error.message);
      process.exit(EXIT_CONFIG);
    }
    logger.fatal({ err: error }, 'trace intake failed to start');
    process.exit(1);
  });
