import { z } from 'zod';
import { Topics, topicIds, type TopicId } from '@rag-immune/contracts';

const TopicSettingsSchema = z
  .object({
    partitions: z.number().int().min(1).max(1000),
    replicationFactor: z.number().int().min(1).max(7),
    minInsyncReplicas: z.number().int().min(1).max(7),
    /** Kafka's retention.ms; the dead-letter topic keeps events longest. */
    retentionMs: z.number().int().min(60_000),
  })
  .strict()
  .refine((t) => t.minInsyncReplicas <= t.replicationFactor, {
    message: 'minInsyncReplicas must not exceed replicationFactor',
    path: ['minInsyncReplicas'],
  });

export type TopicSettings = z.infer<typeof TopicSettingsSchema>;

const SEVEN_DAYS = 7 * 24 * 3600 * 1000;

export const BusConfigSchema = z
  .object({
    clientId: z.string().min(1),
    brokers: z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port')).min(1),
    schemaRegistryUrl: z.string().url(),
    /** 'development' allows single-replica topics; 'production' insists on RF 3 and min ISR 2. */
    profile: z.enum(['development', 'production']),
    /**
     * Prepended to every topic name (the three event topics and the dead-letter topic): lets
     * several immune systems, or test runs, share one cluster without reading each other's events.
     * Schema subjects stay the contract's.
     */
    topicPrefix: z
      .string()
      .regex(/^[a-zA-Z0-9._-]*$/, 'only letters, digits, ".", "_" and "-"')
      .max(100),
    topics: z
      .object({
        probes: TopicSettingsSchema,
        reports: TopicSettingsSchema,
        actions: TopicSettingsSchema,
        deadLetter: TopicSettingsSchema,
      })
      .strict(),
    consumer: z
      .object({
        /** Attempts of a failing handler before the message is left uncommitted for redelivery. */
        handlerAttempts: z.number().int().min(1).max(100),
        initialBackoffMs: z.number().int().min(1),
        maxBackoffMs: z.number().int().min(1),
        /** How many handled event_ids the in-process duplicate filter remembers. */
        processedCacheSize: z.number().int().min(1),
        lagIntervalMs: z.number().int().min(1000),
        /** Partitions handled in parallel by one consumer; order within a partition is kept. */
        partitionsConsumedConcurrently: z.number().int().min(1).max(64),
        sessionTimeoutMs: z.number().int().min(6000),
      })
      .strict(),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.profile !== 'production') return;
    for (const [name, topic] of Object.entries(config.topics)) {
      if (topic.replicationFactor < 3)
        ctx.addIssue({ code: 'custom', path: ['topics', name, 'replicationFactor'], message: 'production needs replicationFactor >= 3' });
      if (topic.minInsyncReplicas < 2)
        ctx.addIssue({ code: 'custom', path: ['topics', name, 'minInsyncReplicas'], message: 'production needs minInsyncReplicas >= 2' });
    }
  });

export type BusConfig = z.infer<typeof BusConfigSchema>;
export type BusTopic = TopicId | 'deadLetter';

/** The dead-letter topic's name; one for the whole system, origin topic in its headers. */
export const DEAD_LETTER_TOPIC = 'rag-immune-dead-letter';

/** The Kafka topic name of a contract topic (or the dead-letter topic) under the configured prefix. */
export function topicNameOf(config: Pick<BusConfig, 'topicPrefix'>, topic: BusTopic): string {
  return `${config.topicPrefix}${topic === 'deadLetter' ? DEAD_LETTER_TOPIC : Topics[topic].name}`;
}

export function busDefaults(profile: BusConfig['profile']): Omit<BusConfig, 'clientId' | 'brokers' | 'schemaRegistryUrl'> {
  const replication =
    profile === 'production' ? { replicationFactor: 3, minInsyncReplicas: 2 } : { replicationFactor: 1, minInsyncReplicas: 1 };
  return {
    profile,
    topicPrefix: '',
    topics: {
      probes: { partitions: 16, retentionMs: SEVEN_DAYS, ...replication },
      reports: { partitions: 6, retentionMs: 4 * SEVEN_DAYS, ...replication },
      actions: { partitions: 6, retentionMs: 4 * SEVEN_DAYS, ...replication },
      deadLetter: { partitions: 3, retentionMs: 4 * SEVEN_DAYS, ...replication },
    },
    consumer: {
      handlerAttempts: 5,
      initialBackoffMs: 200,
      maxBackoffMs: 10_000,
      processedCacheSize: 100_000,
      lagIntervalMs: 10_000,
      partitionsConsumedConcurrently: 4,
      sessionTimeoutMs: 30_000,
    },
  };
}

/** Thrown for a configuration that must not start a worker; names the offending key. */
export class InvalidConfigError extends Error {
  constructor(readonly issues: { key: string; message: string }[]) {
    super(`invalid configuration: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}`);
    this.name = 'InvalidConfigError';
  }
}

export function parseBusConfig(input: unknown): BusConfig {
  const result = BusConfigSchema.safeParse(input);
  if (result.success) return result.data;
  throw new InvalidConfigError(result.error.issues.map((i) => ({ key: i.path.join('.') || '(root)', message: i.message })));
}

/**
 * Builds the bus configuration from environment variables, the way the workers are deployed:
 * KAFKA_BROKERS (comma-separated), SCHEMA_REGISTRY_URL, BUS_PROFILE, KAFKA_CLIENT_ID, and
 * per-topic BUS_<TOPIC>_PARTITIONS / _REPLICATION / _MIN_ISR. Errors name the variable.
 */
export function busConfigFromEnv(env: NodeJS.ProcessEnv, clientId: string): BusConfig {
  const profileText = env.BUS_PROFILE ?? 'development';
  if (profileText !== 'development' && profileText !== 'production')
    throw new InvalidConfigError([{ key: 'BUS_PROFILE', message: `must be development or production, got "${profileText}"` }]);
  const defaults = busDefaults(profileText);
  const issues: { key: string; message: string }[] = [];
  const intVar = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value)) issues.push({ key: name, message: `must be an integer, got "${raw}"` });
    return value;
  };
  const topics = { ...defaults.topics };
  for (const topic of [...topicIds, 'deadLetter'] as const) {
    const prefix = `BUS_${topic === 'deadLetter' ? 'DEAD_LETTER' : topic.toUpperCase()}`;
    topics[topic] = {
      ...topics[topic],
      partitions: intVar(`${prefix}_PARTITIONS`, topics[topic].partitions),
      replicationFactor: intVar(`${prefix}_REPLICATION`, topics[topic].replicationFactor),
      minInsyncReplicas: intVar(`${prefix}_MIN_ISR`, topics[topic].minInsyncReplicas),
    };
  }
  if (env.KAFKA_BROKERS === undefined) issues.push({ key: 'KAFKA_BROKERS', message: 'required (host:port[,host:port...])' });
  if (env.SCHEMA_REGISTRY_URL === undefined)
    issues.push({ key: 'SCHEMA_REGISTRY_URL', message: 'required (Confluent-compatible base URL)' });
  if (issues.length > 0) throw new InvalidConfigError(issues);
  const envKey: Record<string, string> = {
    brokers: 'KAFKA_BROKERS',
    schemaRegistryUrl: 'SCHEMA_REGISTRY_URL',
    clientId: 'KAFKA_CLIENT_ID',
    topicPrefix: 'BUS_TOPIC_PREFIX',
  };
  try {
    return parseBusConfig({
      ...defaults,
      topics,
      topicPrefix: env.BUS_TOPIC_PREFIX ?? '',
      clientId: env.KAFKA_CLIENT_ID ?? clientId,
      brokers: (env.KAFKA_BROKERS ?? '')
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean),
      schemaRegistryUrl: env.SCHEMA_REGISTRY_URL,
    });
  } catch (error) {
    if (error instanceof InvalidConfigError)
      throw new InvalidConfigError(error.issues.map((i) => ({ ...i, key: envKey[i.key.split('.')[0] ?? ''] ?? i.key })));
    throw error;
  }
}
