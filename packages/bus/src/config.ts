import { existsSync } from 'node:fs';
import { z } from 'zod';
import { Topics, topicIds, type TopicId } from '@rag-immune/contracts';
import { DEFAULT_TOPIC_PRODUCERS, EventSigner, EventVerifier, KEY_ID_PATTERN, MIN_SECRET_LENGTH } from './signing.ts';

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

/** TLS to the brokers: files are PEM; without a CA file the system's trust store is used. */
const SslSchema = z
  .object({
    caFile: z.string().min(1).optional(),
    certFile: z.string().min(1).optional(),
    keyFile: z.string().min(1).optional(),
    /** Only ever false against a test broker with a self-signed certificate. */
    rejectUnauthorized: z.boolean(),
  })
  .strict()
  .refine((ssl) => (ssl.certFile === undefined) === (ssl.keyFile === undefined), {
    message: 'a client certificate needs both certFile and keyFile',
    path: ['certFile'],
  });

/** SASL authentication, as managed Kafka services (Confluent Cloud, MSK, Aiven, Event Hubs) require. */
const SaslSchema = z
  .object({
    mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']),
    username: z.string().min(1),
    password: z.string().min(1),
  })
  .strict();

/** A producer's HMAC key: the id names the worker and version, e.g. `identifier@0.1.0`. */
const SigningKeySchema = z
  .object({
    keyId: z.string().regex(KEY_ID_PATTERN, 'letters, digits and . _ @ + - only (at most 128)'),
    // The message never quotes the secret.
    secret: z.string().min(MIN_SECRET_LENGTH, `at least ${MIN_SECRET_LENGTH} characters (openssl rand -base64 32)`),
  })
  .strict();

/** A worker's name as a key id starts with it (`identifier` of `identifier@0.1.0`). */
const WorkerNameSchema = z.string().regex(/^[A-Za-z0-9._+-]{1,64}$/, 'a worker name: letters, digits and . _ + - only (no @)');

const BasicAuthSchema = z.object({ username: z.string().min(1), password: z.string().min(1) }).strict();

const SEVEN_DAYS = 7 * 24 * 3600 * 1000;

export const BusConfigSchema = z
  .object({
    clientId: z.string().min(1),
    brokers: z.array(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'expected host:port')).min(1),
    schemaRegistryUrl: z.string().url(),
    /** TLS to the brokers; absent = plaintext (the local stack). */
    ssl: SslSchema.optional(),
    /** SASL to the brokers; absent = none. */
    sasl: SaslSchema.optional(),
    /** HTTP basic auth to the schema registry (Confluent Cloud: API key and secret). */
    schemaRegistryAuth: BasicAuthSchema.optional(),
    /** This worker's key for signing what it publishes; absent = unsigned (production refuses to publish). */
    signing: SigningKeySchema.optional(),
    /**
     * Keys whose signatures a consumer accepts; when set, an unsigned, unknown-key or wrongly signed
     * event is dead-lettered. Absent = no verification (production refuses to subscribe).
     */
    verifyKeys: z
      .array(SigningKeySchema)
      .min(1)
      .refine((keys) => new Set(keys.map((k) => k.keyId)).size === keys.length, 'a key id appears twice')
      .optional(),
    /**
     * The worker that produces each topic (BUS_TOPIC_PRODUCERS): a consumer accepts a topic's events
     * only when signed by a key whose id names that worker (`<worker>@<version>`). Absent: sentinel
     * for probes, identifier for reports, effector for actions.
     */
    topicProducers: z.object({ probes: WorkerNameSchema, reports: WorkerNameSchema, actions: WorkerNameSchema }).strict().optional(),
    /**
     * The oldest signing time a consumer accepts (BUS_SIGNATURE_MAX_AGE_MS); absent: each topic's
     * retention, as long as the shared processed-event store remembers an event to refuse its replay.
     */
    signatureMaxAgeMs: z.number().int().min(60_000).optional(),
    /**
     * Accept untimed (v1) signatures, as producers signed before signing times existed
     * (BUS_ACCEPT_UNTIMED_SIGNATURES=true): only during a rollout, see README "Signed times and replays".
     */
    acceptUntimedSignatures: z.boolean().optional(),
    /**
     * Where a consumer group remembers handled event_ids: per-process memory (absent, the default),
     * or Elasticsearch shared by every replica of the group (exactly-once handling across replicas).
     */
    processedEvents: z.enum(['memory', 'elasticsearch']).optional(),
    /**
     * With the Elasticsearch store: how long a replica's claim on an event it is handling holds. A
     * replica killed mid-handling blocks that event (and its partition) for up to this long before
     * another takes it over, so keep it short, yet above the longest handler. Default 5 minutes.
     */
    processedEventsLeaseMs: z.number().int().min(1000).max(3_600_000).optional(),
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
    // Production never talks to brokers unencrypted or unauthenticated: anyone on the path could
    // read events, and anyone reaching a broker could write them.
    if (config.ssl === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['ssl'],
        message:
          config.sasl?.mechanism === 'plain'
            ? 'SASL PLAIN sends the password in clear: production needs TLS'
            : 'production needs TLS to the brokers (KAFKA_SSL=true)',
      });
    else {
      if (!config.ssl.rejectUnauthorized)
        ctx.addIssue({
          code: 'custom',
          path: ['ssl', 'rejectUnauthorized'],
          message: "production verifies the brokers' certificates (only a test broker may skip it)",
        });
      // Authentication: SASL, or mutual TLS with a client certificate.
      if (config.sasl === undefined && config.ssl.certFile === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['sasl'],
          message: 'production needs SASL, or a TLS client certificate (KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE)',
        });
    }
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

/**
 * The signer of what this bus publishes. Checked when the worker first publishes rather than at
 * parse time, since a consume-only worker (memory) has no key of its own: production refuses to
 * publish unsigned events.
 */
export function signerFor(config: Pick<BusConfig, 'profile' | 'signing'>): EventSigner | undefined {
  if (config.signing !== undefined) return new EventSigner(config.signing);
  if (config.profile === 'production')
    throw new InvalidConfigError([
      { key: 'BUS_SIGNING_KEY', message: 'production signs every published event: set BUS_SIGNING_KEY_ID and BUS_SIGNING_KEY' },
    ]);
  return undefined;
}

/** The verifier of what this bus consumes; production refuses to consume without one (checked per subscription). */
export function verifierFor(
  config: Pick<BusConfig, 'profile' | 'verifyKeys' | 'topicProducers' | 'topics' | 'signatureMaxAgeMs' | 'acceptUntimedSignatures'>,
): EventVerifier | undefined {
  if (config.verifyKeys !== undefined)
    return new EventVerifier(config.verifyKeys, {
      producers: config.topicProducers ?? DEFAULT_TOPIC_PRODUCERS,
      // A replay older than the topic's retention is one no processed-event store still remembers.
      maxAgeMs: Object.fromEntries(topicIds.map((topic) => [topic, config.signatureMaxAgeMs ?? config.topics[topic].retentionMs])),
      acceptUntimed: config.acceptUntimedSignatures === true,
    });
  if (config.profile === 'production')
    throw new InvalidConfigError([
      { key: 'BUS_VERIFY_KEYS', message: 'production verifies every consumed event: set BUS_VERIFY_KEYS (keyid:secret,...)' },
    ]);
  return undefined;
}

export function parseBusConfig(input: unknown): BusConfig {
  const result = BusConfigSchema.safeParse(input);
  if (result.success) return result.data;
  throw new InvalidConfigError(result.error.issues.map((i) => ({ key: i.path.join('.') || '(root)', message: i.message })));
}

/**
 * Builds the bus configuration from environment variables, the way the workers are deployed:
 * KAFKA_BROKERS (comma-separated), SCHEMA_REGISTRY_URL, BUS_PROFILE, KAFKA_CLIENT_ID, and
 * per-topic BUS_<TOPIC>_PARTITIONS / _REPLICATION / _MIN_ISR, the TLS/SASL settings, the signing
 * keys (BUS_SIGNING_KEY_ID, BUS_SIGNING_KEY, BUS_VERIFY_KEYS) and BUS_PROCESSED_EVENTS
 * (memory | elasticsearch). Errors name the variable.
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
  const security = securityFromEnv(env, issues);
  const signing = signingFromEnv(env, issues);
  const processedText = env.BUS_PROCESSED_EVENTS;
  if (processedText !== undefined && processedText !== '' && processedText !== 'memory' && processedText !== 'elasticsearch')
    issues.push({ key: 'BUS_PROCESSED_EVENTS', message: `must be memory or elasticsearch, got "${processedText}"` });
  const untimedText = env.BUS_ACCEPT_UNTIMED_SIGNATURES;
  let untimed: boolean | undefined;
  if (untimedText === 'true' || untimedText === 'false') untimed = untimedText === 'true';
  else if (untimedText !== undefined && untimedText !== '')
    issues.push({ key: 'BUS_ACCEPT_UNTIMED_SIGNATURES', message: `must be true or false, got "${untimedText}"` });
  if (env.KAFKA_BROKERS === undefined) issues.push({ key: 'KAFKA_BROKERS', message: 'required (host:port[,host:port...])' });
  if (env.SCHEMA_REGISTRY_URL === undefined)
    issues.push({ key: 'SCHEMA_REGISTRY_URL', message: 'required (Confluent-compatible base URL)' });
  if (issues.length > 0) throw new InvalidConfigError(issues);
  const envKey: Record<string, string> = {
    brokers: 'KAFKA_BROKERS',
    schemaRegistryUrl: 'SCHEMA_REGISTRY_URL',
    clientId: 'KAFKA_CLIENT_ID',
    topicPrefix: 'BUS_TOPIC_PREFIX',
    ssl: 'KAFKA_SSL',
    'ssl.caFile': 'KAFKA_SSL_CA_FILE',
    'ssl.certFile': 'KAFKA_SSL_CERT_FILE',
    'ssl.keyFile': 'KAFKA_SSL_KEY_FILE',
    sasl: 'KAFKA_SASL_MECHANISM',
    'sasl.mechanism': 'KAFKA_SASL_MECHANISM',
    'sasl.username': 'KAFKA_SASL_USERNAME',
    'sasl.password': 'KAFKA_SASL_PASSWORD',
    'ssl.rejectUnauthorized': 'KAFKA_SSL_REJECT_UNAUTHORIZED',
    'schemaRegistryAuth.username': 'SCHEMA_REGISTRY_USERNAME',
    'schemaRegistryAuth.password': 'SCHEMA_REGISTRY_PASSWORD',
    signing: 'BUS_SIGNING_KEY',
    'signing.keyId': 'BUS_SIGNING_KEY_ID',
    'signing.secret': 'BUS_SIGNING_KEY',
    verifyKeys: 'BUS_VERIFY_KEYS',
    topicProducers: 'BUS_TOPIC_PRODUCERS',
    signatureMaxAgeMs: 'BUS_SIGNATURE_MAX_AGE_MS',
    acceptUntimedSignatures: 'BUS_ACCEPT_UNTIMED_SIGNATURES',
    processedEvents: 'BUS_PROCESSED_EVENTS',
    processedEventsLeaseMs: 'BUS_PROCESSED_EVENTS_LEASE_MS',
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
      ...security,
      ...signing,
      ...(processedText === 'elasticsearch' || processedText === 'memory' ? { processedEvents: processedText } : {}),
      ...(env.BUS_PROCESSED_EVENTS_LEASE_MS ? { processedEventsLeaseMs: Number(env.BUS_PROCESSED_EVENTS_LEASE_MS) } : {}),
      ...(env.BUS_SIGNATURE_MAX_AGE_MS ? { signatureMaxAgeMs: Number(env.BUS_SIGNATURE_MAX_AGE_MS) } : {}),
      ...(untimed !== undefined ? { acceptUntimedSignatures: untimed } : {}),
    });
  } catch (error) {
    if (error instanceof InvalidConfigError)
      throw new InvalidConfigError(
        error.issues.map((i) => ({
          ...i,
          // verifyKeys.<n>.secret: the variable, and which entry of it.
          key: i.key.startsWith('verifyKeys.')
            ? `BUS_VERIFY_KEYS (entry ${Number(i.key.split('.')[1]) + 1})`
            : (envKey[i.key] ?? envKey[i.key.split('.')[0] ?? ''] ?? i.key),
        })),
      );
    throw error;
  }
}

const SASL_MECHANISMS = ['plain', 'scram-sha-256', 'scram-sha-512'] as const;

/**
 * TLS, SASL and registry credentials from the environment: KAFKA_SSL=true (with optional
 * KAFKA_SSL_CA_FILE, KAFKA_SSL_CERT_FILE + KAFKA_SSL_KEY_FILE, KAFKA_SSL_REJECT_UNAUTHORIZED=false
 * for a self-signed test broker), KAFKA_SASL_MECHANISM (plain | scram-sha-256 | scram-sha-512) with
 * KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD, SCHEMA_REGISTRY_USERNAME and SCHEMA_REGISTRY_PASSWORD.
 * Issues name the variable and never quote a credential.
 */
function securityFromEnv(
  env: NodeJS.ProcessEnv,
  issues: { key: string; message: string }[],
): Pick<BusConfig, 'ssl' | 'sasl' | 'schemaRegistryAuth'> {
  const set = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = set(name);
    if (raw === undefined) return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    issues.push({ key: name, message: `must be true or false, got "${raw}"` });
    return fallback;
  };
  const result: Pick<BusConfig, 'ssl' | 'sasl' | 'schemaRegistryAuth'> = {};
  const sslOn = bool('KAFKA_SSL', false);
  const files = { caFile: 'KAFKA_SSL_CA_FILE', certFile: 'KAFKA_SSL_CERT_FILE', keyFile: 'KAFKA_SSL_KEY_FILE' } as const;
  for (const name of Object.values(files)) {
    const path = set(name);
    if (path === undefined) continue;
    if (!sslOn) issues.push({ key: name, message: 'is only used with KAFKA_SSL=true' });
    else if (!existsSync(path)) issues.push({ key: name, message: `file not found: ${path}` });
  }
  const rejectUnauthorized = bool('KAFKA_SSL_REJECT_UNAUTHORIZED', true);
  if (sslOn) {
    result.ssl = { rejectUnauthorized };
    for (const [field, name] of Object.entries(files)) {
      const path = set(name);
      if (path !== undefined) result.ssl[field as keyof typeof files] = path;
    }
  }
  const mechanism = set('KAFKA_SASL_MECHANISM')?.toLowerCase();
  const username = set('KAFKA_SASL_USERNAME');
  const password = set('KAFKA_SASL_PASSWORD');
  if (mechanism !== undefined) {
    if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism))
      issues.push({ key: 'KAFKA_SASL_MECHANISM', message: `must be one of ${SASL_MECHANISMS.join(', ')}, got "${mechanism}"` });
    else if (username === undefined)
      issues.push({ key: 'KAFKA_SASL_USERNAME', message: `required with KAFKA_SASL_MECHANISM=${mechanism}` });
    else if (password === undefined)
      issues.push({ key: 'KAFKA_SASL_PASSWORD', message: `required with KAFKA_SASL_MECHANISM=${mechanism}` });
    else result.sasl = { mechanism: mechanism as (typeof SASL_MECHANISMS)[number], username, password };
  } else if (username !== undefined || password !== undefined) {
    issues.push({ key: 'KAFKA_SASL_MECHANISM', message: 'required when KAFKA_SASL_USERNAME or KAFKA_SASL_PASSWORD is set' });
  }
  const registryUser = set('SCHEMA_REGISTRY_USERNAME');
  const registryPassword = set('SCHEMA_REGISTRY_PASSWORD');
  if ((registryUser === undefined) !== (registryPassword === undefined))
    issues.push({
      key: registryUser === undefined ? 'SCHEMA_REGISTRY_USERNAME' : 'SCHEMA_REGISTRY_PASSWORD',
      message: 'SCHEMA_REGISTRY_USERNAME and SCHEMA_REGISTRY_PASSWORD go together',
    });
  else if (registryUser !== undefined && registryPassword !== undefined)
    result.schemaRegistryAuth = { username: registryUser, password: registryPassword };
  return result;
}

/**
 * Signing and verification keys from the environment: BUS_SIGNING_KEY_ID with BUS_SIGNING_KEY (this
 * worker's key, for what it publishes) and BUS_VERIFY_KEYS as `keyid:secret,keyid:secret` (what its
 * consumers accept; list the old and the new key during a rotation). Issues never quote a secret.
 */
function signingFromEnv(
  env: NodeJS.ProcessEnv,
  issues: { key: string; message: string }[],
): Pick<BusConfig, 'signing' | 'verifyKeys' | 'topicProducers'> {
  const set = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const result: Pick<BusConfig, 'signing' | 'verifyKeys' | 'topicProducers'> = {};
  const keyId = set('BUS_SIGNING_KEY_ID');
  const secret = set('BUS_SIGNING_KEY');
  if ((keyId === undefined) !== (secret === undefined))
    issues.push({
      key: keyId === undefined ? 'BUS_SIGNING_KEY_ID' : 'BUS_SIGNING_KEY',
      message: 'BUS_SIGNING_KEY_ID and BUS_SIGNING_KEY go together',
    });
  else if (keyId !== undefined && secret !== undefined) result.signing = { keyId, secret };
  const list = set('BUS_VERIFY_KEYS');
  if (list !== undefined) {
    const keys: { keyId: string; secret: string }[] = [];
    list.split(',').forEach((entry, index) => {
      const colon = entry.indexOf(':');
      const id = colon < 0 ? '' : entry.slice(0, colon).trim();
      const keySecret = colon < 0 ? '' : entry.slice(colon + 1).trim();
      if (id === '' || keySecret === '') issues.push({ key: `BUS_VERIFY_KEYS (entry ${index + 1})`, message: 'expected keyid:secret' });
      else keys.push({ keyId: id, secret: keySecret });
    });
    result.verifyKeys = keys;
  }
  // `probes=sentinel,reports=identifier,actions=effector`; a topic left out keeps its default producer.
  const producers = set('BUS_TOPIC_PRODUCERS');
  if (producers !== undefined) {
    const map: Record<string, string> = { ...DEFAULT_TOPIC_PRODUCERS };
    for (const entry of producers.split(',')) {
      const [topic = '', worker = '', ...rest] = entry.split('=').map((part) => part.trim());
      if (!(topicIds as readonly string[]).includes(topic) || worker === '' || rest.length > 0)
        issues.push({ key: 'BUS_TOPIC_PRODUCERS', message: `expected <${topicIds.join('|')}>=<worker>,..., got "${entry.trim()}"` });
      else map[topic] = worker;
    }
    result.topicProducers = map as BusConfig['topicProducers'];
  }
  return result;
}
