import { readFileSync } from 'node:fs';
import { Client, type ClientOptions } from '@elastic/elasticsearch';
import { z } from 'zod';

/**
 * The credentials every worker that keeps state in Elasticsearch reads from its environment (a
 * Kubernetes Secret): an API key, or basic auth, and a CA file for a private TLS chain. Spread into
 * a worker's config schema; checked together by `elasticsearchCredentialsIssue`.
 */
export const ElasticsearchCredentialsEnv = {
  /** `id:key` base64-encoded, as Elasticsearch's create-API-key answers in `encoded`. */
  ES_API_KEY: z.string().min(1).optional(),
  ES_USERNAME: z.string().min(1).optional(),
  ES_PASSWORD: z.string().min(1).optional(),
  /** PEM file of the CA that signed the cluster's certificate (https URLs). */
  ES_CA_FILE: z.string().min(1).optional(),
};

/**
 * ES_INDEX_PREFIX: the prefix of a worker's Elasticsearch index names (`<prefix>-incidents`, …), one
 * rule for every worker that reads it: an Elasticsearch index name's characters. Spread into a config schema.
 */
export const EsIndexPrefixEnv = {
  ES_INDEX_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lower-case letters, digits, - and _ only (an Elasticsearch index name)')
    .default('rag-immune'),
};

export interface ElasticsearchConnection {
  url: string;
  apiKey?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  caFile?: string | undefined;
  requestTimeoutMs?: number;
  maxRetries?: number;
}

/** What is wrong with a combination of credentials (the variable named), or null. */
export function elasticsearchCredentialsIssue(env: {
  ES_API_KEY?: string | undefined;
  ES_USERNAME?: string | undefined;
  ES_PASSWORD?: string | undefined;
}): { key: string; message: string } | null {
  if (env.ES_API_KEY && (env.ES_USERNAME || env.ES_PASSWORD))
    return { key: 'ES_API_KEY', message: 'use an API key or ES_USERNAME/ES_PASSWORD, not both' };
  if (Boolean(env.ES_USERNAME) !== Boolean(env.ES_PASSWORD))
    return { key: env.ES_USERNAME ? 'ES_PASSWORD' : 'ES_USERNAME', message: 'ES_USERNAME and ES_PASSWORD go together' };
  return null;
}

/** The one way a worker opens its Elasticsearch client: credentials and CA from the environment, never logged. */
export function createElasticsearchClient(connection: ElasticsearchConnection): Client {
  const options: ClientOptions = {
    node: connection.url,
    ...(connection.requestTimeoutMs === undefined ? {} : { requestTimeout: connection.requestTimeoutMs }),
    ...(connection.maxRetries === undefined ? {} : { maxRetries: connection.maxRetries }),
  };
  if (connection.apiKey) options.auth = { apiKey: connection.apiKey };
  else if (connection.username && connection.password) options.auth = { username: connection.username, password: connection.password };
  if (connection.caFile) options.tls = { ca: readFileSync(connection.caFile, 'utf8') };
  return new Client(options);
}

/** The connection of a parsed worker config (ELASTICSEARCH_URL plus the credentials above). */
export function elasticsearchConnection(
  config: { ELASTICSEARCH_URL: string } & { [K in keyof typeof ElasticsearchCredentialsEnv]?: string | undefined },
  tuning: { requestTimeoutMs?: number; maxRetries?: number } = {},
): ElasticsearchConnection {
  return {
    url: config.ELASTICSEARCH_URL,
    apiKey: config.ES_API_KEY,
    username: config.ES_USERNAME,
    password: config.ES_PASSWORD,
    caFile: config.ES_CA_FILE,
    ...tuning,
  };
}
