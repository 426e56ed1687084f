/**
 * The subscriber's decision on a signed, unsigned or forged message: handled, or parked in the
 * dead-letter topic with its reason while consumption goes on. No broker is involved: a stand-in
 * client hands messages to the subscriber's eachMessage and records what it sends; the Kafka
 * behaviour itself is covered by test/integration.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EachMessagePayload, Kafka, Message } from 'kafkajs';
import { exampleProbeResult, exampleRootCauseReport, type TopicId } from '@rag-immune/contracts';
import {
  busDefaults,
  parseBusConfig,
  DeadLetterHeaders,
  EventSigner,
  EventSubscriber,
  SIGNATURE_HEADER,
  type BusConfig,
  type SchemaCatalog,
} from '../../src/index.ts';

const KEY = { keyId: 'sentinel@0.1.0', secret: 'sentinel-secret-0123456789abcdef01234' };
const TOPIC = 'rag-sentinel-probes';
const VALUE = Buffer.concat([Buffer.from([0, 0, 0, 0, 1]), Buffer.from('avro')]);

/** A subscriber on a stand-in client; `deliver` runs one message through it. */
async function harness(config: BusConfig, topic: TopicId = 'probes') {
  let eachMessage: ((payload: EachMessagePayload) => Promise<void>) | undefined;
  const parked: Message[] = [];
  const handled: unknown[] = [];
  let decoded = 0;
  const client = {
    consumer: () => ({
      connect: async () => undefined,
      subscribe: async () => undefined,
      run: async (options: { eachMessage: typeof eachMessage }) => {
        eachMessage = options.eachMessage;
      },
      events: { GROUP_JOIN: 'consumer.group_join' },
      on: () => () => undefined,
      commitOffsets: async () => undefined,
      disconnect: async () => undefined,
    }),
    producer: () => ({
      connect: async () => undefined,
      send: async (record: { topic: string; messages: Message[] }) => {
        assert.equal(record.topic, 'rag-immune-dead-letter');
        parked.push(...record.messages);
      },
      disconnect: async () => undefined,
    }),
    admin: () => ({ connect: async () => undefined, disconnect: async () => undefined }),
  } as unknown as Kafka;
  const catalog = {
    decode: async () => {
      decoded += 1;
      return topic === 'reports' ? exampleRootCauseReport() : exampleProbeResult(`probe-${decoded}`);
    },
  } as unknown as SchemaCatalog;
  const subscriber = new EventSubscriber(client, catalog, config, {
    topic,
    groupId: 'g',
    handle: async (event) => {
      handled.push(event);
    },
  });
  await subscriber.start();
  let offset = 0;
  return {
    parked,
    handled,
    decodedCount: () => decoded,
    stop: () => subscriber.stop(),
    deliver: async (headers: Record<string, string>, key = 'probe-a', value = VALUE, topic = TOPIC) => {
      const message = { key: Buffer.from(key), value, headers, offset: String(offset++), timestamp: '0', attributes: 0 };
      await eachMessage!({ topic, partition: 0, message, heartbeat: async () => undefined, pause: () => () => undefined });
    },
  };
}

const base = { ...busDefaults('development'), clientId: 't', brokers: ['h:1'], schemaRegistryUrl: 'http://h' };

test('with verify keys, unsigned, unknown-key and forged messages are dead-lettered with their reason, and consumption goes on', async () => {
  const h = await harness(parseBusConfig({ ...base, verifyKeys: [KEY] }));
  try {
    const signed = (key = 'probe-a', value = VALUE, topic = TOPIC) => ({
      [SIGNATURE_HEADER]: new EventSigner(KEY).sign(topic, key, value),
    });
    await h.deliver({ 'x-case': 'unsigned' });
    const stranger = new EventSigner({ keyId: 'intruder@1', secret: 'z'.repeat(40) }).sign(TOPIC, 'probe-a', VALUE);
    await h.deliver({ 'x-case': 'unknown key', [SIGNATURE_HEADER]: stranger });
    await h.deliver({ 'x-case': 'other key', ...signed('probe-b') }, 'probe-a');
    const flipped = Buffer.from(VALUE);
    flipped[VALUE.length - 1] = (flipped[VALUE.length - 1] ?? 0) ^ 1;
    await h.deliver({ 'x-case': 'flipped byte', ...signed() }, 'probe-a', flipped);
    await h.deliver({ 'x-case': 'other topic', ...signed('probe-a', VALUE, 'rag-effectors-actions') });
    await h.deliver({ 'x-case': 'good', ...signed() });

    const reasons = h.parked.map((m) => [m.headers?.['x-case']?.toString(), m.headers?.[DeadLetterHeaders.reason]?.toString()]);
    assert.deepEqual(reasons, [
      ['unsigned', 'unsigned'],
      ['unknown key', 'unknown_signing_key'],
      ['other key', 'bad_signature'],
      ['flipped byte', 'bad_signature'],
      ['other topic', 'bad_signature'],
    ]);
    // Parked as received, with where it came from.
    assert.deepEqual(h.parked[3]?.value, flipped);
    assert.equal(h.parked[0]?.headers?.[DeadLetterHeaders.originTopic], TOPIC);
    // Refused before decoding (no registry lookup for what nobody trusted signed); the good one is handled.
    assert.equal(h.decodedCount(), 1);
    assert.equal(h.handled.length, 1);
  } finally {
    await h.stop();
  }
});

test('without verify keys (development), unsigned messages are handled as before', async () => {
  const h = await harness(parseBusConfig(base));
  try {
    await h.deliver({});
    assert.equal(h.parked.length, 0);
    assert.equal(h.handled.length, 1);
  } finally {
    await h.stop();
  }
});

test("a key signs only its own worker's topic: a report signed with the sentinel's (or the effector's) key is dead-lettered as wrong_producer", async () => {
  const identifier = { keyId: 'identifier@0.1.0', secret: 'identifier-secret-0123456789abcdef0123' };
  const effector = { keyId: 'effector@0.1.0', secret: 'effector-secret-0123456789abcdef012345' };
  const reports = 'rag-identifiers-reports';
  // Every consumer holds every producer's key (one verify-keys Secret): the signatures below all verify.
  const h = await harness(parseBusConfig({ ...base, verifyKeys: [KEY, identifier, effector] }), 'reports');
  try {
    const signedBy = (key: typeof KEY) => ({ [SIGNATURE_HEADER]: new EventSigner(key).sign(reports, 'incident-1', VALUE) });
    await h.deliver({ 'x-case': 'sentinel', ...signedBy(KEY) }, 'incident-1', VALUE, reports);
    await h.deliver({ 'x-case': 'effector', ...signedBy(effector) }, 'incident-1', VALUE, reports);
    await h.deliver({ 'x-case': 'identifier', ...signedBy(identifier) }, 'incident-1', VALUE, reports);
    const reasons = h.parked.map((m) => [m.headers?.['x-case']?.toString(), m.headers?.[DeadLetterHeaders.reason]?.toString()]);
    assert.deepEqual(reasons, [
      ['sentinel', 'wrong_producer'],
      ['effector', 'wrong_producer'],
    ]);
    assert.match(
      h.parked[0]?.headers?.[DeadLetterHeaders.detail]?.toString() ?? '',
      /sentinel@0\.1\.0.*reports events are produced by identifier/,
    );
    assert.equal(h.decodedCount(), 1);
    assert.equal(h.handled.length, 1);
  } finally {
    await h.stop();
  }
});

test('BUS_TOPIC_PRODUCERS names another producer: its key is then the one accepted', async () => {
  const h = await harness(
    parseBusConfig({ ...base, verifyKeys: [KEY], topicProducers: { probes: 'canary', reports: 'identifier', actions: 'effector' } }),
  );
  try {
    await h.deliver({ [SIGNATURE_HEADER]: new EventSigner(KEY).sign(TOPIC, 'probe-a', VALUE) });
    assert.equal(h.parked[0]?.headers?.[DeadLetterHeaders.reason]?.toString(), 'wrong_producer');
    assert.equal(h.handled.length, 0);
  } finally {
    await h.stop();
  }
});

test("a replay signed longer ago than the topic's retention, or untimed, is dead-lettered with its reason; a fresh one is handled", async () => {
  const h = await harness(parseBusConfig({ ...base, verifyKeys: [KEY] }));
  try {
    const signer = new EventSigner(KEY);
    const eightDaysAgo = Date.now() - 8 * 24 * 3600 * 1000; // probes are kept 7 days
    await h.deliver({ 'x-case': 'replayed', [SIGNATURE_HEADER]: signer.sign(TOPIC, 'probe-a', VALUE, eightDaysAgo) });
    await h.deliver({ 'x-case': 'untimed', [SIGNATURE_HEADER]: signer.signUntimed(TOPIC, 'probe-a', VALUE) });
    await h.deliver({ 'x-case': 'fresh', [SIGNATURE_HEADER]: signer.sign(TOPIC, 'probe-a', VALUE) });
    const reasons = h.parked.map((m) => [m.headers?.['x-case']?.toString(), m.headers?.[DeadLetterHeaders.reason]?.toString()]);
    assert.deepEqual(reasons, [
      ['replayed', 'expired_signature'],
      ['untimed', 'untimed_signature'],
    ]);
    assert.equal(h.handled.length, 1);
  } finally {
    await h.stop();
  }
});
