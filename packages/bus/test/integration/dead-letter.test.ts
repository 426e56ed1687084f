import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { SchemaType } from '@kafkajs/confluent-schema-registry';
import { exampleProbeResult, Topics } from '@rag-immune/contracts';
import { EventBus, DEAD_LETTER_TOPIC, DeadLetterHeaders } from '../../src/index.ts';
import { stackBusConfig, uniqueGroup } from '@rag-immune/test-kit/bus';

const bus = new EventBus(stackBusConfig());

before(async () => {
  await bus.start();
});
after(async () => {
  await bus.stop();
});

interface ParkedLetter {
  key: string | null;
  headers: Record<string, string>;
}

async function readDeadLetters(key: string, count: number, timeoutMs = 30_000): Promise<ParkedLetter[]> {
  const consumer = bus.kafka.consumer({ groupId: uniqueGroup('dlq-reader') });
  await consumer.connect();
  await consumer.subscribe({ topic: DEAD_LETTER_TOPIC, fromBeginning: true });
  const letters: ParkedLetter[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  await consumer.run({
    eachMessage: async ({ message }) => {
      const messageKey = message.key?.toString() ?? null;
      if (messageKey !== key) return;
      const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, v?.toString() ?? '']));
      letters.push({ key: messageKey, headers });
      if (letters.length >= count) finish();
    },
  });
  const timer = setTimeout(finish, timeoutMs);
  await done;
  clearTimeout(timer);
  await consumer.disconnect();
  return letters;
}

test('garbage bytes, an unknown schema id and a foreign record type go to the dead-letter topic; later good events are still handled', async () => {
  const run = randomUUID();
  const raw = bus.kafka.producer();
  await raw.connect();
  const topic = Topics.probes.name;
  // A registered schema of another record type, to prove the consumer checks what it decodes.
  const foreign = await bus.catalog.registry.register(
    {
      type: SchemaType.AVRO,
      schema: JSON.stringify({ type: 'record', name: 'Intruder', namespace: 'test.deadletter', fields: [{ name: 'x', type: 'string' }] }),
    },
    { subject: `test-intruder-${run}-value` },
  );
  const unknownId = Buffer.from([0, 0x7f, 0xff, 0xff, 0xf0, 1, 2, 3]);
  await raw.send({
    topic,
    messages: [
      { key: run, value: Buffer.from('definitely not avro'), headers: { 'x-test-case': 'garbage' } },
      { key: run, value: unknownId, headers: { 'x-test-case': 'unknown-schema' } },
      { key: run, value: await bus.catalog.registry.encode(foreign.id, { x: 'hello' }), headers: { 'x-test-case': 'foreign' } },
      { key: run, value: null, headers: { 'x-test-case': 'empty' } },
    ],
  });
  await raw.disconnect();
  // Same key, so the same partition: the good event is behind all four poison messages.
  const good = exampleProbeResult(run);
  await (await bus.publisher()).publish('probes', good);

  const handled: string[] = [];
  let finish: () => void = () => undefined;
  const goodSeen = new Promise<void>((resolve) => (finish = resolve));
  const subscriber = await bus.subscribe({
    topic: 'probes',
    groupId: uniqueGroup('dlq'),
    fromBeginning: true,
    handle: async (event) => {
      if (event.probe_id !== run) return;
      handled.push(event.probe_id);
      finish();
    },
  });
  const timer = setTimeout(finish, 60_000);
  await goodSeen;
  clearTimeout(timer);
  await subscriber.stop();
  assert.deepEqual(handled, [run]);

  const letters = await readDeadLetters(run, 4);
  const reasons = Object.fromEntries(letters.map((l) => [l.headers['x-test-case'], l.headers[DeadLetterHeaders.reason]]));
  assert.deepEqual(reasons, {
    garbage: 'bad_magic_byte',
    'unknown-schema': 'unknown_schema_id',
    foreign: 'schema_mismatch',
    empty: 'truncated_message',
  });
  for (const letter of letters) {
    assert.equal(letter.headers[DeadLetterHeaders.originTopic], topic);
    assert.match(letter.headers[DeadLetterHeaders.originOffset] ?? '', /^\d+$/);
    assert.ok((letter.headers[DeadLetterHeaders.detail] ?? '').length > 0);
  }
});
