import { busConfigFromEnv, InvalidConfigError, type BusConfig } from '@rag-immune/bus';
import { loadStackConfig, stackEndpoints } from '@rag-immune/stack';
import { CliError, ExitCode } from './exit-codes.ts';

/**
 * Bus settings for the CLI: KAFKA_BROKERS / SCHEMA_REGISTRY_URL when set (production), else the
 * local stack's endpoints (a developer machine after `npm run stack -- up`).
 */
export function cliBusConfig(env: NodeJS.ProcessEnv = process.env): BusConfig {
  const local = env.KAFKA_BROKERS === undefined && env.SCHEMA_REGISTRY_URL === undefined ? stackEndpoints(loadStackConfig()) : undefined;
  const merged =
    local === undefined ? env : { ...env, KAFKA_BROKERS: local.kafkaBrokers.join(','), SCHEMA_REGISTRY_URL: local.schemaRegistryUrl };
  try {
    return busConfigFromEnv(merged, 'immune-cli');
  } catch (error) {
    if (error instanceof InvalidConfigError) throw new CliError(error.message, ExitCode.config);
    throw error;
  }
}
