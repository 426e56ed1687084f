/**
 * kafkajs 2.2.4 against the stack's real Kafka (KRaft, 4.x). Kafka 4 removed old protocol
 * versions (KIP-896); this proves the calls the workers make still negotiate: admin
 * createTopics/metadata/fetchOffsets, idempotent produce, and consume in a consumer group.
 * Assumes `npm run stack -- up kafka` has been run.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import { loadStackConfig, stackEndpoints } from '../../src/index.ts';

const { kafkaBrokers } = stackEndpoints(loadStackConfig());
const kafka = new Kafka({
  clientId: 'stack-kafkajs-test',
  brokers: kafkaBrokers,
  logLevel: process.env['KAFKAJS_DEBUG'] ? logLevel.DEBUG : logLevel.WARN,
});

test('kafkajs admin, producer and consumer group work against the stack broker', { timeout: 60_000 }, async () => {
  const topic = `stack-kafkajs-${randomUUID()}`;
  const groupId = `${topic}-group`;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const created = await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
    assert.equal(created, true);
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    assert.equal(metadata.topics[0]?.partitions.length, 3);

    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    const sent = Array.from({ length: 10 }, (_, i) => ({ key: `key-${i % 4}`, value: `value-${i}` }));
    await producer.send({ topic, acks: -1, messages: sent });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 1000 });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    const received: string[] = [];
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          eachMessage: async ({ message }) => {
            received.push(message.value?.toString() ?? '');
            if (received.length === sent.length) resolve();
          },
        })
        .catch(reject);
    });
    await consumer.disconnect(); // commits the group's offsets on the way out

    assert.deepEqual([...received].sort(), sent.map((m) => m.value).sort());
    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
    const committed = offsets[0]!.partitions.reduce((sum, p) => sum + Number(p.offset), 0);
    assert.equal(committed, sent.length, 'the group committed every consumed message');

    const groups = await admin.describeGroups([groupId]);
    assert.equal(groups.groups[0]?.groupId, groupId);
    await admin.deleteGroups([groupId]);
  } finally {
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  }
});
