import type { Logger } from 'pino';

/**
 * Runs `stop` once on SIGTERM or SIGINT (Kubernetes sends SIGTERM before killing a pod), then
 * exits. A second signal or a stop that outlasts `graceMs` exits at once with status 1.
 */
export function onTerminationSignal(stop: () => Promise<void>, logger?: Logger, graceMs = 25_000): void {
  let stopping = false;
  let firstSignalAt = 0;
  const handler = (signal: NodeJS.Signals): void => {
    // npm/npx and some supervisors relay the same SIGTERM to the whole process group, so a repeat
    // within a second is the same request, not an operator insisting.
    if (stopping && Date.now() - firstSignalAt < 1000) return;
    if (stopping) {
      logger?.warn({ signal }, 'second signal; exiting now');
      process.exit(1);
    }
    stopping = true;
    firstSignalAt = Date.now();
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
