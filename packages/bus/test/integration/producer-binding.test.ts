/**
 * A producer key signs only its own topic, on the real Kafka and schema registry: every consumer
 * holds every producer's verify key (one Secret), so the sentinel's key verifies a RootCauseReport's
 * signature; the subscriber must still refuse it because reports are the identifier's. Topics under
 * a run prefix, one partition, so the forged report sits ahead of the good one.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { exampleRootCauseReport } from '@rag-immune/contracts';
import { DeadLetterHeaders, EventBus, parseBusConfig, topicNameOf, type BusConfig } from '../../src/index.ts';
import { stackBusConfig, uniqueGroup } from '@rag-immune/test-kit/bus';

const run = randomUUID().slice(0, 8);
const prefix = `it-producers-${run}.`;
const base = stackBusConfig();
const one = { partitions: 1 };
const SENTINEL = { keyId: 'sentinel@0.1.0', secret: `sentinel-${randomUUID()}` };
const IDENTIFIER = { keyId: 'identifier@0.1.0', secret: `identifier-${randomUUID()}` };

function busAs(signing: BusConfig['signing']): EventBus {
  return new EventBus(
    parseBusConfig({
      ...base,
      clientId: `it-producers-${run}`,
      topicPrefix: prefix,
      topics: {
        probes: { ...base.topics.probes, ...one },
        reports: { ...base.topics.reports, ...one },
        actions: { ...base.topics.actions, ...one },
        deadLetter: { ...base.topics.deadLetter, ...one },
      },
      ...(signing ? { signing } : {}),
      verifyKeys: [SENTINEL, IDENTIFIER],
    }),
  );
}

const sentinel = busAs(SENTINEL);
const identifier = busAs(IDENTIFIER);
const consumer = busAs(undefined);

before(async () => {
  for (const bus of [consumer, sentinel, identifier]) await bus.start(['reports']);
});

after(async () => {
  await Promise.all([sentinel.stop(), identifier.stop(), consumer.stop()]);
  const admin = consumer.kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
  if (topics.length > 0) await admin.deleteTopics({ topics });
  await admin.disconnect();
});

test(
  "a RootCauseReport signed with the sentinel's key is dead-lettered as wrong_producer; one signed by the identifier is handled",
  { timeout: 120_000 },
  async () => {
    const forged = exampleRootCauseReport(`forged-${run}`);
    const genuine = exampleRootCauseReport(`genuine-${run}`);
    await (await sentinel.publisher()).publish('reports', forged);
    await (await identifier.publisher()).publish('reports', genuine);

    const handled: string[] = [];
    let finish: () => void = () => undefined;
    const genuineSeen = new Promise<void>((resolve) => (finish = resolve));
    const timer = setTimeout(finish, 60_000);
    const subscriber = await consumer.subscribe({
      topic: 'reports',
      groupId: uniqueGroup('producers'),
      fromBeginning: true,
      handle: async (report) => {
        handled.push(report.incident_id);
        if (report.incident_id === genuine.incident_id) finish();
      },
    });
    await genuineSeen;
    clearTimeout(timer);
    await subscriber.stop();
    // The forged report came first on the one partition, and was not handled.
    assert.deepEqual(handled, [genuine.incident_id]);

    const reader = consumer.kafka.consumer({ groupId: uniqueGroup('producers-dlq') });
    await reader.connect();
    await reader.subscribe({ topic: topicNameOf(consumer.config, 'deadLetter'), fromBeginning: true });
    const letters: Record<string, string>[] = [];
    let parked: () => void = () => undefined;
    const oneParked = new Promise<void>((resolve) => (parked = resolve));
    const readTimer = setTimeout(parked, 60_000);
    await reader.run({
      eachMessage: async ({ message }) => {
        letters.push(Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, v?.toString() ?? ''])));
        parked();
      },
    });
    await oneParked;
    clearTimeout(readTimer);
    await reader.disconnect();
    assert.equal(letters.length, 1);
    assert.equal(letters[0]?.[DeadLetterHeaders.reason], 'wrong_producer');
    assert.equal(letters[0]?.[DeadLetterHeaders.originTopic], topicNameOf(consumer.config, 'reports'));
    assert.match(letters[0]?.[DeadLetterHeaders.detail] ?? '', /sentinel@0\.1\.0/);
  },
);
