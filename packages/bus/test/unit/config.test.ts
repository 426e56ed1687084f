import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  busConfigFromEnv,
  busDefaults,
  parseBusConfig,
  plannedTopics,
  processedEventStoreKind,
  topicNameOf,
  EventBus,
  InMemoryProcessedEventStore,
  InvalidConfigError,
} from '../../src/index.ts';

const env = { KAFKA_BROKERS: '127.0.0.1:19092', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081/apis/ccompat/v7' };
/** What production insists on beyond replication: TLS and SASL to the brokers. */
const secure = {
  BUS_PROFILE: 'production',
  KAFKA_SSL: 'true',
  KAFKA_SASL_MECHANISM: 'scram-sha-512',
  KAFKA_SASL_USERNAME: 'u',
  KAFKA_SASL_PASSWORD: 'p',
};

test('development defaults: probes on 16 partitions, reports and actions keyed topics, single replica', () => {
  const config = busConfigFromEnv(env, 'sentinel');
  assert.equal(config.topics.probes.partitions, 16);
  assert.equal(config.topics.probes.replicationFactor, 1);
  assert.deepEqual(config.brokers, ['127.0.0.1:19092']);
});

test('production profile defaults to replication 3 and min.insync.replicas 2', () => {
  const config = busConfigFromEnv({ ...env, ...secure }, 'sentinel');
  for (const topic of Object.values(config.topics)) {
    assert.equal(topic.replicationFactor, 3);
    assert.equal(topic.minInsyncReplicas, 2);
  }
});

test('production refuses a single-replica override and names the key', () => {
  assert.throws(
    () => busConfigFromEnv({ ...env, ...secure, BUS_PROBES_REPLICATION: '1' }, 'sentinel'),
    (error: unknown) => error instanceof InvalidConfigError && /topics\.probes\.replicationFactor/.test(error.message),
  );
});

test('missing or malformed variables are named in the error', () => {
  assert.throws(() => busConfigFromEnv({}, 'x'), /KAFKA_BROKERS: required.*SCHEMA_REGISTRY_URL: required/);
  assert.throws(() => busConfigFromEnv({ ...env, BUS_PROBES_PARTITIONS: 'sixteen' }, 'x'), /BUS_PROBES_PARTITIONS: must be an integer/);
  assert.throws(() => busConfigFromEnv({ ...env, KAFKA_BROKERS: 'no-port' }, 'x'), /KAFKA_BROKERS: expected host:port/);
  assert.throws(() => busConfigFromEnv({ ...env, BUS_PROFILE: 'staging' }, 'x'), /BUS_PROFILE: must be development or production/);
});

test('min ISR above the replication factor is refused', () => {
  const base = { ...busDefaults('development'), clientId: 'x', brokers: ['h:1'], schemaRegistryUrl: 'http://h' };
  const broken = { ...base, topics: { ...base.topics, actions: { ...base.topics.actions, minInsyncReplicas: 2 } } };
  assert.throws(() => parseBusConfig(broken), /topics\.actions\.minInsyncReplicas: minInsyncReplicas must not exceed/);
});

test('BUS_TOPIC_PREFIX namespaces every topic, the dead-letter topic included; a bad prefix is named', () => {
  const config = busConfigFromEnv({ ...env, BUS_TOPIC_PREFIX: 'run-7.' }, 'x');
  assert.equal(topicNameOf(config, 'probes'), 'run-7.rag-sentinel-probes');
  assert.equal(topicNameOf(config, 'deadLetter'), 'run-7.rag-immune-dead-letter');
  assert.deepEqual(
    plannedTopics(config).map((t) => t.topic),
    ['run-7.rag-sentinel-probes', 'run-7.rag-identifiers-reports', 'run-7.rag-effectors-actions', 'run-7.rag-immune-dead-letter'],
  );
  assert.equal(topicNameOf(busConfigFromEnv(env, 'x'), 'reports'), 'rag-identifiers-reports');
  assert.throws(() => busConfigFromEnv({ ...env, BUS_TOPIC_PREFIX: 'a b' }, 'x'), /BUS_TOPIC_PREFIX: only letters/);
});

test('BUS_PROCESSED_EVENTS selects the processed-event store: memory by default, elasticsearch shared by replicas', () => {
  const memory = busConfigFromEnv(env, 'x');
  assert.equal(memory.processedEvents, undefined);
  assert.equal(processedEventStoreKind(memory, {}), 'memory');
  assert.equal(busConfigFromEnv({ ...env, BUS_PROCESSED_EVENTS: 'memory' }, 'x').processedEvents, 'memory');
  const shared = busConfigFromEnv({ ...env, BUS_PROCESSED_EVENTS: 'elasticsearch' }, 'x');
  assert.equal(shared.processedEvents, 'elasticsearch');
  assert.equal(processedEventStoreKind(shared, {}), 'elasticsearch');
  // A store passed by the caller wins; read-only subscriptions (CLI tail) keep memory.
  assert.equal(processedEventStoreKind(shared, { processedEvents: new InMemoryProcessedEventStore(1) }), 'given');
  assert.equal(processedEventStoreKind(shared, { onPoison: 'skip' }), 'memory');
  assert.throws(
    () => busConfigFromEnv({ ...env, BUS_PROCESSED_EVENTS: 'redis' }, 'x'),
    /BUS_PROCESSED_EVENTS: must be memory or elasticsearch/,
  );
  // The claim lease: how long a replica killed mid-handling blocks the event for the others.
  assert.equal(shared.processedEventsLeaseMs, undefined);
  assert.equal(busConfigFromEnv({ ...env, BUS_PROCESSED_EVENTS_LEASE_MS: '20000' }, 'x').processedEventsLeaseMs, 20_000);
  for (const bad of ['20s', '10'])
    assert.throws(() => busConfigFromEnv({ ...env, BUS_PROCESSED_EVENTS_LEASE_MS: bad }, 'x'), /BUS_PROCESSED_EVENTS_LEASE_MS/);
});

test('BUS_PROCESSED_EVENTS=elasticsearch without a client from the worker refuses to subscribe, naming the key', async () => {
  // Nothing connects: the refusal comes before the subscriber is built.
  const bus = new EventBus(busConfigFromEnv({ ...env, BUS_PROCESSED_EVENTS: 'elasticsearch' }, 'x'));
  await assert.rejects(
    bus.subscribe({ topic: 'probes', groupId: 'g', handle: async () => undefined }),
    (error: unknown) => error instanceof InvalidConfigError && error.issues[0]?.key === 'BUS_PROCESSED_EVENTS',
  );
});
