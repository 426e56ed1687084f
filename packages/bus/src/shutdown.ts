import type { Logger } from 'pino';

/**
 * Runs `stop` once on SIGTERM or SIGINT (Kubernetes sends SIGTERM before killing a pod), then
 * exits. A second signal or a stop that outlasts `graceMs` exits at once with status 1.
 */
export function onTerminationSignal(stop: () => Promise<void>, logger?: Logger, graceMs = 25_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger?.warn({ signal }, 'second signal; exiting now');
      process.exit(1);
    }
    stopping = true;
    logger?.info({ signal }, 'shutting down gracefully');
    const timer = setTimeout(() => {
      logger?.error({ graceMs }, 'graceful shutdown timed out');
      process.exit(1);
    }, graceMs);
    timer.unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger?.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
