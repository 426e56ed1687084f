/**
 * The effector worker's composition root: configuration from the environment (a bad value stops
 * the process naming the variable, exit 78), the policy file (a bad one stops it naming the line),
 * the FCS scorer for verification, then startEffectorWorker; graceful shutdown on SIGTERM/SIGINT.
 */
import { busConfigFromEnv, onTerminationSignal, InvalidConfigError } from '@rag-immune/bus';
import { FactConsistencyScorer } from '@rag-immune/fcs';
import { EXIT_CONFIG, WorkerConfigError, startTelemetry, workerLogger } from '@rag-immune/worker-runtime';
import { EFFECTOR_VERSION, effectorConfigFromEnv } from './config.ts';
import { AdapterFileError } from '@rag-immune/rag-adapter';
import { InvalidPolicyError, loadPolicy } from './policy/policy.ts';
import { startEffectorWorker } from './worker.ts';
import { verificationRagPorts } from './verify/verification-rag-ports.ts';

const logger = workerLogger('effector', EFFECTOR_VERSION);

async function main(): Promise<void> {
  const config = effectorConfigFromEnv(process.env);
  const busConfig = busConfigFromEnv(process.env, `rag-immune-effector-${process.pid}`);
  // Fail fast on a bad policy or RAG adapter file, before the model loads.
  loadPolicy(config.EFFECTOR_POLICY_FILE);
  verificationRagPorts(config, {});
  const telemetry = startTelemetry('effector', EFFECTOR_VERSION);
  const fcs = await FactConsistencyScorer.load({
    ...(config.EFFECTOR_FCS_MODEL ? { modelPath: config.EFFECTOR_FCS_MODEL } : {}),
    intraOpNumThreads: config.EFFECTOR_FCS_THREADS,
    logger,
  });
  const worker = await startEffectorWorker({ config, busConfig, logger, fcs, tracer: telemetry.tracer });
  // Drain (EFFECTOR_DRAIN_SECONDS), the given-up repairs' settle (5 s), then closing: the process
  // exits by drain + 8 s, inside the pod's terminationGracePeriodSeconds (drain + 10 s at least).
  onTerminationSignal(
    async () => {
      await worker.stop();
      await telemetry.shutdown();
    },
    logger,
    (config.EFFECTOR_DRAIN_SECONDS + 8) * 1000,
  );
}

main().catch((error: unknown) => {
  if (
    error instanceof WorkerConfigError ||
    error instanceof InvalidConfigError ||
    error instanceof InvalidPolicyError ||
    error instanceof AdapterFileError
  ) {
    logger.fatal({ issues: (error as { issues: unknown }).issues }, error.message);
    process.exit(EXIT_CONFIG);
  }
  logger.fatal({ err: error }, 'effector failed to start');
  process.exit(1);
});
