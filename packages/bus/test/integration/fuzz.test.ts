/**
 * 10,000 random and mutated messages on each topic, through the real Kafka and registry: garbage
 * bytes, empty and header-only messages, a wrong magic byte, truncated Avro, trailing bytes, unknown
 * schema ids, another topic's schema id, and valid Avro with absurd values (NaN scores, negative
 * latencies, future timestamps, 10 MB strings), with good events (and redeliveries of them)
 * interleaved. Expected: no consumer crash, every bad message in the dead-letter topic once with a
 * reason, every good event handled exactly once.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { CompressionTypes, type Message } from 'kafkajs';
import {
  exampleProbeResult,
  exampleRepairAction,
  exampleRootCauseReport,
  topicIds,
  type TopicEvents,
  type TopicId,
} from '@rag-immune/contracts';
import { DeadLetterHeaders, EventBus, parseBusConfig, topicNameOf } from '../../src/index.ts';
import { sleep } from '@rag-immune/test-kit';
import { stackBusConfig } from '@rag-immune/test-kit/bus';

const PER_TOPIC = 10_000;
const GOOD = 400;
const REDELIVERED = 100;
const HUGE = 2;
const run = randomUUID().slice(0, 8);
const prefix = `it-fuzz-${run}.`;
const base = stackBusConfig({ initialBackoffMs: 20, maxBackoffMs: 200 });
const partitions = { partitions: 4 };
const config = parseBusConfig({
  ...base,
  clientId: `it-fuzz-${run}`,
  topicPrefix: prefix,
  topics: {
    probes: { ...base.topics.probes, ...partitions },
    reports: { ...base.topics.reports, ...partitions },
    actions: { ...base.topics.actions, ...partitions },
    deadLetter: { ...base.topics.deadLetter, ...partitions },
  },
});
const bus = new EventBus(config);
let schemaIds: Map<TopicId, number>;

/** A deterministic generator, so a failing run can be replayed with the same seed. */
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
let state = SEED;
const random = (): number => {
  state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
  return state / 2_147_483_648;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const example = (topic: TopicId): TopicEvents[TopicId] =>
  topic === 'probes' ? exampleProbeResult(`fuzz-${run}`) : topic === 'reports' ? exampleRootCauseReport() : exampleRepairAction();

/** Sets a field by its dotted path ("claims.0.observed") in a cloned event. */
function set(event: unknown, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = event as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1)!] = value;
}

/** Valid Avro, absurd content: the bus's semantic check must refuse each. */
function absurd(topic: TopicId, event: TopicEvents[TopicId], huge: boolean): TopicEvents[TopicId] {
  const e = structuredClone(event);
  if (huge) {
    set(e, topic === 'probes' ? 'query' : topic === 'reports' ? 'incident_id' : 'tool', 'x'.repeat(10 * 1024 * 1024));
    return e;
  }
  const future = Date.now() + (1 + Math.floor(random() * 1000)) * 24 * 3600 * 1000;
  const mutations: Record<TopicId, [string, () => unknown][]> = {
    probes: [
      ['online.latency_ms', () => -1 - random() * 1000],
      ['online.signals.fcs', () => Number.NaN],
      ['online.signals.ic', () => 1 + random() * 10],
      ['occurred_at', () => future],
      ['comparison.fcs_drop', () => Number.POSITIVE_INFINITY],
    ],
    reports: [
      ['confidence', () => Number.NaN],
      ['confidence', () => -random() - 0.001],
      ['window_end', () => future],
      ['report_revision', () => -1 - Math.floor(random() * 100)],
      ['claims.0.observed', () => Number.NEGATIVE_INFINITY],
    ],
    actions: [
      ['attempt', () => -1],
      ['occurred_at', () => future],
      ['verification.fcs_after', () => Number.NaN],
      ['verification.kf_age_days_before', () => -3],
    ],
  };
  const [path, value] = pick(mutations[topic]);
  set(e, path, value());
  return e;
}

interface Planned {
  message: Message;
  /** event_id of a good event (handled once), or the bad kind (dead-lettered once). */
  good?: string;
  bad?: string;
}

async function plan(topic: TopicId): Promise<{ messages: Planned[]; huge: Planned[] }> {
  const registry = bus.catalog.registry;
  const id = schemaIds.get(topic)!;
  const foreignId = schemaIds.get(pick(topicIds.filter((t) => t !== topic)))!;
  const encodeRaw = (event: unknown, schemaId = id) => registry.encode(schemaId, event);
  const valid = async () => encodeRaw(example(topic));
  const messages: Planned[] = [];
  const goods: Planned[] = [];
  for (let i = 0; i < GOOD; i += 1) {
    const event = example(topic);
    const planned = { message: { key: event.event_id, value: await encodeRaw(event) }, good: event.event_id };
    goods.push(planned);
    messages.push(planned);
  }
  // Redeliveries of good events (same key, so same partition, after the original): duplicates, not handled twice.
  const redeliveries = goods.slice(0, REDELIVERED).map((g) => ({ message: { ...g.message }, redelivery: g.good }));
  const bad: Record<string, () => Promise<Buffer | null>> = {
    garbage: async () => randomBytes(Math.floor(random() * 300)),
    empty: async () => Buffer.alloc(0),
    null_value: async () => null,
    header_only: async () => Buffer.from([0, 0, 0, 0, id & 0xff].slice(0, 1 + Math.floor(random() * 4))),
    bad_magic: async () => {
      const bytes = await valid();
      bytes[0] = 1 + Math.floor(random() * 255);
      return bytes;
    },
    truncated_avro: async () => {
      const bytes = await valid();
      return bytes.subarray(0, 5 + Math.floor(random() * (bytes.length - 6)));
    },
    trailing_bytes: async () => Buffer.concat([await valid(), randomBytes(1 + Math.floor(random() * 20))]),
    unknown_schema_id: async () => {
      const bytes = await valid();
      bytes.writeInt32BE(1_000_000 + Math.floor(random() * 50), 1);
      return bytes;
    },
    foreign_schema_id: async () => encodeRaw(example(topicIds.find((t) => schemaIds.get(t) === foreignId)!), foreignId),
    absurd_values: async () => encodeRaw(absurd(topic, example(topic), false)),
  };
  const kinds = Object.keys(bad);
  const badCount = PER_TOPIC - GOOD - REDELIVERED - HUGE;
  for (let i = 0; i < badCount; i += 1) {
    const kind = pick(kinds);
    messages.push({ message: { key: random() < 0.5 ? null : randomUUID(), value: await bad[kind]!() }, bad: kind });
  }
  // Shuffle, then put each redelivery after its original.
  for (let i = messages.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [messages[i], messages[j]] = [messages[j]!, messages[i]!];
  }
  for (const redelivery of redeliveries) {
    const at = messages.findIndex((m) => m.good === redelivery.redelivery);
    const to = at + 1 + Math.floor(random() * (messages.length - at));
    messages.splice(to, 0, { message: redelivery.message });
  }
  const huge = Array.from({ length: HUGE }, () => ({ message: { key: randomUUID(), value: null as Buffer | null }, bad: 'huge_string' }));
  for (const h of huge) h.message.value = await encodeRaw(absurd(topic, example(topic), true));
  return { messages, huge };
}

before(async () => {
  schemaIds = await bus.start();
});

after(async () => {
  await bus.stop();
  const admin = bus.kafka.admin();
  await admin.connect();
  const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
  if (topics.length > 0) await admin.deleteTopics({ topics });
  await admin.disconnect();
});

test(
  `${PER_TOPIC} random and mutated messages per topic: no crash, every bad one dead-lettered once with a reason, every good one handled once`,
  { timeout: 600_000 },
  async () => {
    console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} replays it)`);
    const handled = new Map<TopicId, Map<string, number>>(topicIds.map((t) => [t, new Map()]));
    const expectedGood = new Map<TopicId, Set<string>>();
    const expectedBad = new Map<TopicId, number>();
    const crashes: unknown[] = [];
    const producer = bus.kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    for (const topic of topicIds) {
      const { messages, huge } = await plan(topic);
      expectedGood.set(topic, new Set(messages.filter((m) => m.good).map((m) => m.good!)));
      expectedBad.set(topic, messages.filter((m) => m.bad).length + huge.length);
      const name = topicNameOf(config, topic);
      for (let i = 0; i < messages.length; i += 1000)
        await producer.send({ topic: name, messages: messages.slice(i, i + 1000).map((m) => m.message) });
      // 10 MB of one letter crosses Kafka's 1 MB limit only compressed, as a real producer could send it.
      for (const h of huge) await producer.send({ topic: name, compression: CompressionTypes.GZIP, messages: [h.message] });
    }
    await producer.disconnect();

    const groups = new Map<TopicId, string>();
    const started = Date.now();
    for (const topic of topicIds) {
      const groupId = `it-fuzz-${topic}-${run}`;
      groups.set(topic, groupId);
      const subscriber = await bus.subscribe({
        topic,
        groupId,
        fromBeginning: true,
        handle: async (event) => {
          const seen = handled.get(topic)!;
          seen.set(event.event_id, (seen.get(event.event_id) ?? 0) + 1);
        },
      });
      (subscriber as unknown as { consumer: { on(event: string, fn: (e: unknown) => void): void } }).consumer.on('consumer.crash', (e) =>
        crashes.push(e),
      );
    }

    // Read the dead-letter topic back: count per origin topic, every letter with a reason.
    const letters = new Map<string, { reason: string; group: string }[]>();
    const reader = bus.kafka.consumer({ groupId: `it-fuzz-dlq-${run}`, maxBytesPerPartition: 8 * 1024 * 1024 });
    await reader.connect();
    await reader.subscribe({ topic: topicNameOf(config, 'deadLetter'), fromBeginning: true });
    await reader.run({
      eachMessage: async ({ message }) => {
        const header = (name: string) => message.headers?.[name]?.toString() ?? '';
        const origin = header(DeadLetterHeaders.originTopic);
        letters.set(origin, [
          ...(letters.get(origin) ?? []),
          { reason: header(DeadLetterHeaders.reason), group: header(DeadLetterHeaders.consumerGroup) },
        ]);
      },
    });
    const done = () =>
      topicIds.every(
        (t) =>
          handled.get(t)!.size >= expectedGood.get(t)!.size && (letters.get(topicNameOf(config, t))?.length ?? 0) >= expectedBad.get(t)!,
      );
    const deadline = Date.now() + 480_000;
    while (!done() && Date.now() < deadline) await sleep(500);
    await sleep(3000); // anything handled or parked twice would show up now
    await reader.disconnect();
    const seconds = (Date.now() - started) / 1000;
    console.log(`fuzz: ${topicIds.length * PER_TOPIC} messages consumed and settled in ${seconds.toFixed(1)} s`);

    assert.deepEqual(crashes, [], 'no consumer crashed');
    for (const topic of topicIds) {
      const seen = handled.get(topic)!;
      assert.deepEqual(new Set(seen.keys()), expectedGood.get(topic), `${topic}: exactly the good events are handled`);
      assert.deepEqual(
        [...seen.values()].filter((n) => n !== 1),
        [],
        `${topic}: each good event handled once`,
      );
      const parked = letters.get(topicNameOf(config, topic)) ?? [];
      assert.equal(parked.length, expectedBad.get(topic), `${topic}: every bad message dead-lettered exactly once`);
      assert.ok(
        parked.every((l) => l.reason !== '' && l.group === groups.get(topic)),
        `${topic}: each letter has a reason and its group`,
      );
      const reasons = new Set(parked.map((l) => l.reason));
      for (const reason of [
        'bad_magic_byte',
        'truncated_message',
        'unknown_schema_id',
        'schema_mismatch',
        'undecodable_payload',
        'semantically_invalid',
      ])
        assert.ok(reasons.has(reason), `${topic}: some letter has reason ${reason} (got ${[...reasons].join(', ')})`);
    }
  },
);
