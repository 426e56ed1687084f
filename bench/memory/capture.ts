/**
 * Captures a case history for bench/memory from the topics of a real loop run: every RootCauseReport
 * and RepairAction under a topic prefix (the run's namespace), from the beginning, as JSON Lines
 * `{"topic": "reports"|"actions", "event": {...}}` in bench/memory/cases/. Stops after --idle seconds
 * without a new event.
 *
 *   npx tsx bench/memory/capture.ts --prefix <namespace>. [--out bench/memory/cases/<name>.jsonl] [--idle 20]
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { EventBus, busConfigFromEnv } from '@rag-immune/bus';
import { repoRoot } from '@rag-immune/stack';
import { endpoints } from '@rag-immune/test-kit/stack';

const { values } = parseArgs({
  options: {
    prefix: { type: 'string' },
    out: { type: 'string' },
    idle: { type: 'string', default: '20' },
  },
});
if (values.prefix === undefined) {
  console.error('usage: capture.ts --prefix <topic prefix> [--out file] [--idle seconds]');
  process.exit(64);
}
const out = resolve(repoRoot(), values.out ?? `bench/memory/cases/${values.prefix.replace(/[^a-zA-Z0-9_-]/g, '')}.jsonl`);
mkdirSync(dirname(out), { recursive: true });
const bus = new EventBus(
  busConfigFromEnv(
    {
      ...process.env,
      KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
      BUS_TOPIC_PREFIX: values.prefix,
    },
    `memory-capture-${randomUUID().slice(0, 8)}`,
  ),
  pino({ level: 'warn' }),
);
await bus.start(['reports', 'actions']);
let last = Date.now();
let count = 0;
const group = `memory-capture-${randomUUID()}`;
for (const topic of ['reports', 'actions'] as const) {
  await bus.subscribe({
    topic,
    groupId: `${group}-${topic}`,
    fromBeginning: true,
    onPoison: 'skip',
    handle: async (event) => {
      appendFileSync(out, `${JSON.stringify({ topic, event })}\n`);
      count += 1;
      last = Date.now();
    },
  });
}
while (Date.now() - last < Number(values.idle) * 1000) await new Promise((r) => setTimeout(r, 1000));
await bus.stop();
console.log(`${count} events written to ${out}`);
process.exit(0);
