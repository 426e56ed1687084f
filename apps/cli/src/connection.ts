import { busConfigFromEnv, InvalidConfigError, type BusConfig } from '@rag-immune/bus';
import { CliError, ExitCode } from './exit-codes.ts';

/**
 * Where `npm run stack -- up` puts Kafka and the registry with its default ports. The CLI is an app:
 * it never loads the dev stack's code, so a stack on other ports is reached through the variables.
 * (test/unit/cli-local-defaults.test.ts keeps these in step with tools/stack's defaults.)
 */
export const LOCAL_STACK = {
  kafkaBrokers: ['127.0.0.1:19092'],
  schemaRegistryUrl: 'http://127.0.0.1:18081/apis/ccompat/v7',
} as const;

/**
 * Bus settings for the CLI: KAFKA_BROKERS / SCHEMA_REGISTRY_URL when set (production, or a local
 * stack on other ports), else the local stack's default endpoints (a developer machine).
 */
export function cliBusConfig(env: NodeJS.ProcessEnv = process.env): BusConfig {
  const local = env.KAFKA_BROKERS === undefined && env.SCHEMA_REGISTRY_URL === undefined ? LOCAL_STACK : undefined;
  const merged =
    local === undefined ? env : { ...env, KAFKA_BROKERS: local.kafkaBrokers.join(','), SCHEMA_REGISTRY_URL: local.schemaRegistryUrl };
  try {
    return busConfigFromEnv(merged, 'immune-cli');
  } catch (error) {
    if (error instanceof InvalidConfigError) throw new CliError(error.message, ExitCode.config);
    throw error;
  }
}
