import type { StackConfig } from './config.ts';

/** Where the running stack's servers are, for workers and integration tests. */
export interface StackEndpoints {
  kafkaBrokers: string[];
  /** Full Confluent-compatible base URL, e.g. http://127.0.0.1:18081/apis/ccompat/v7 */
  schemaRegistryUrl: string;
  elasticsearchUrl: string;
  qdrantUrl: string;
  prometheusUrl: string;
}

/** Apicurio serves its Confluent-compatible API under this path. */
export const CCOMPAT_PATH = '/apis/ccompat/v7';

export function stackEndpoints(config: StackConfig): StackEndpoints {
  const { host } = config;
  return {
    kafkaBrokers: [`${host}:${config.kafka.port}`],
    schemaRegistryUrl: `http://${host}:${config.schemaRegistry.port}${CCOMPAT_PATH}`,
    elasticsearchUrl: `http://${host}:${config.elasticsearch.port}`,
    qdrantUrl: `http://${host}:${config.qdrant.port}`,
    prometheusUrl: `http://${host}:${config.prometheus.port}`,
  };
}
