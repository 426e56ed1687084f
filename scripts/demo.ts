/**
 * The demo (npm run demo): with the local stack up, one incident's events flow through the three
 * Avro topics and a poison message is parked in the dead-letter topic while consumption goes on.
 * Later issues replace the hand-made events with the real sentinel, identifier and effector.
 */
import { randomUUID } from 'node:crypto';
import {
  eventEnvelope,
  exampleProbeResult,
  exampleRepairAction,
  exampleRootCauseReport,
  Topics,
  type TopicId,
} from '@rag-immune/contracts';
import { EventBus, busConfigFromEnv, DEAD_LETTER_TOPIC } from '@rag-immune/bus';
import { loadStackConfig, stackEndpoints } from '@rag-immune/stack';

const endpoints = stackEndpoints(loadStackConfig());
const config = busConfigFromEnv(
  { ...process.env, KAFKA_BROKERS: endpoints.kafkaBrokers.join(','), SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl },
  'demo',
);
const bus = new EventBus(config);
const schemaIds = await bus.start();
console.log(`Kafka ${endpoints.kafkaBrokers.join(',')} · schema registry ${endpoints.schemaRegistryUrl}`);
for (const [topic, id] of schemaIds) console.log(`  ${Topics[topic].name}-value registered as schema id ${id}`);

const incident = `inc-demo-${randomUUID().slice(0, 8)}`;
const probe = exampleProbeResult(`probe-demo-${incident}`);
const report = { ...exampleRootCauseReport(incident), probe_event_ids: [probe.event_id] };
const repair = { ...exampleRepairAction(incident), report_event_id: report.event_id };
// One repair, three lifecycle steps: each step is its own event with the same action_id.
const planned = { ...repair, ...eventEnvelope('effector', '0.1.0'), status: 'planned' as const, verification: null };
const started = { ...repair, ...eventEnvelope('effector', '0.1.0'), status: 'started' as const, verification: null };
const succeeded = { ...repair, ...eventEnvelope('effector', '0.1.0'), status: 'succeeded' as const };
const expected = 5;
let seen = 0;
let finish: () => void = () => undefined;
const allSeen = new Promise<void>((resolve) => (finish = resolve));

const describe: Record<TopicId, (event: never) => string> = {
  probes: (e: typeof probe) =>
    `ProbeResult     probe=${e.probe_id} fcs online=${e.online.signals?.fcs} baseline=${e.baseline.signals?.fcs} anomaly=${e.anomaly} severity=${e.severity}`,
  reports: (e: typeof report) =>
    `RootCauseReport incident=${e.incident_id} cause=${e.root_cause} component=${e.affected_component} confidence=${e.confidence} claims=${e.claims.length}`,
  actions: (e: typeof succeeded) =>
    `RepairAction    incident=${e.incident_id} ${e.intent} -> ${e.status} snapshot=${e.snapshot_id}${e.verification ? ` fcs ${e.verification.fcs_before} -> ${e.verification.fcs_after}` : ''}`,
};
for (const topic of ['probes', 'reports', 'actions'] as const) {
  await bus.subscribe({
    topic,
    groupId: `demo-${randomUUID()}`,
    fromBeginning: true,
    handle: async (event, delivery) => {
      const mine = 'incident_id' in event ? event.incident_id === incident : event.probe_id === probe.probe_id;
      if (!mine) return;
      console.log(`  <- ${delivery.topic}[${delivery.partition}]@${delivery.offset}  ${describe[topic](event as never)}`);
      seen += 1;
      if (seen >= expected) finish();
    },
  });
}

const publisher = await bus.publisher();
console.log(`\nIncident ${incident}: publishing a probe anomaly, a root-cause report and a repair lifecycle`);
await publisher.publish('probes', probe);
await publisher.publish('reports', report);
await publisher.publishMany('actions', [planned, started, succeeded]);
const raw = bus.kafka.producer();
await raw.connect();
await raw.send({ topic: Topics.probes.name, messages: [{ key: probe.probe_id, value: Buffer.from('not an avro event') }] });
await raw.disconnect();
console.log(`  (also sent one undecodable message to ${Topics.probes.name}; it goes to ${DEAD_LETTER_TOPIC})\n`);

const timeout = setTimeout(() => {
  console.error(`only ${seen} of ${expected} events arrived within 60 s`);
  process.exit(1);
}, 60_000);
await allSeen;
clearTimeout(timeout);
await bus.stop();
console.log(`\nAll ${expected} events arrived. See parked messages with: npx immune events dead-letters`);
process.exit(0);
