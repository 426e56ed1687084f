import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { exampleProbeResult, exampleRepairAction, exampleRootCauseReport, Topics, topicIds } from '@rag-immune/contracts';
import { EventBus } from '../../src/index.ts';
import { collectEvents, plain, stackBusConfig } from '@rag-immune/test-kit/bus';

const bus = new EventBus(stackBusConfig());

before(async () => {
  await bus.start();
});
after(async () => {
  await bus.stop();
});

test('each topic carries its events through real Kafka and the real registry unchanged', async () => {
  const run = randomUUID();
  const sent = {
    probes: exampleProbeResult(`probe-roundtrip-${run}`),
    reports: exampleRootCauseReport(`inc-roundtrip-${run}`),
    actions: exampleRepairAction(`inc-roundtrip-${run}`),
  };
  const publisher = await bus.publisher();
  for (const topic of topicIds) await publisher.publish(topic, sent[topic] as never);

  const probes = await collectEvents(bus, 'probes', (e) => e.probe_id === sent.probes.probe_id, 1);
  const reports = await collectEvents(bus, 'reports', (e) => e.incident_id === sent.reports.incident_id, 1);
  const actions = await collectEvents(bus, 'actions', (e) => e.incident_id === sent.actions.incident_id, 1);
  assert.deepEqual(plain(probes[0]), plain(sent.probes));
  assert.deepEqual(plain(reports[0]), plain(sent.reports));
  assert.deepEqual(plain(actions[0]), plain(sent.actions));
});

test('topics exist with the configured partitions, and keys route one probe to one partition', async () => {
  const admin = bus.kafka.admin();
  await admin.connect();
  const metadata = await admin.fetchTopicMetadata({ topics: topicIds.map((id) => Topics[id].name) });
  await admin.disconnect();
  const partitions = Object.fromEntries(metadata.topics.map((t) => [t.name, t.partitions.length]));
  assert.equal(partitions['rag-sentinel-probes'], 16);
  assert.equal(partitions['rag-identifiers-reports'], 6);
  assert.equal(partitions['rag-effectors-actions'], 6);

  const publisher = await bus.publisher();
  const probeId = `probe-keyed-${randomUUID()}`;
  await publisher.publishMany('probes', [exampleProbeResult(probeId), exampleProbeResult(probeId), exampleProbeResult(probeId)]);
  const partitionsSeen = new Set<number>();
  let finish: () => void = () => undefined;
  const allThree = new Promise<void>((resolve) => (finish = resolve));
  let count = 0;
  const subscriber = await bus.subscribe({
    topic: 'probes',
    groupId: `it-keyed-${randomUUID()}`,
    fromBeginning: true,
    handle: async (event, delivery) => {
      if (event.probe_id !== probeId) return;
      partitionsSeen.add(delivery.partition);
      if (++count === 3) finish();
    },
  });
  const timer = setTimeout(finish, 60_000);
  await allThree;
  clearTimeout(timer);
  await subscriber.stop();
  assert.equal(count, 3);
  assert.equal(partitionsSeen.size, 1);
});

test('an event that violates its schema is refused at the producer with the field path', async () => {
  const publisher = await bus.publisher();
  const broken = { ...exampleProbeResult(), severity: 'catastrophic' } as unknown as ReturnType<typeof exampleProbeResult>;
  await assert.rejects(publisher.publish('probes', broken), /ProbeResult is invalid at severity/);
});
