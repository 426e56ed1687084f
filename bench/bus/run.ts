/**
 * bench/bus: ProbeResult through the real Kafka and schema registry of the local stack, with the
 * bus library's own EventPublisher and EventSubscriber (Avro encode/decode through the registry,
 * idempotent producer with acks=all, at-least-once consumer with event_id deduplication).
 *
 * For 1, 4 and 16 partitions it measures:
 *   - throughput: N events published in batches as fast as the producer acknowledges them,
 *     events per second from first send until the consumer has handled the last one;
 *   - latency: events sent at a fixed rate (default 5,000/s, ten times the design's 500 probe
 *     requests per second); p50/p99/max from send to handler, same process, same clock.
 * Usage: npm run stack -- up && npm run bench:bus [-- --events 50000 --rate 5000 --seconds 10]
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { exampleProbeResult, type ProbeResult } from '@rag-immune/contracts';
import { EventBus, busDefaults, parseBusConfig } from '@rag-immune/bus';
import { sleep } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '50000' },
    rate: { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '10' },
    batch: { type: 'string', default: '250' },
    partitions: { type: 'string', default: '1,4,16' },
  },
});
const throughputEvents = Number(values.events);
const rate = Number(values.rate);
const latencySeconds = Number(values.seconds);
const batchSize = Number(values.batch);
const partitionCounts = String(values.partitions).split(',').map(Number);

const defaults = busDefaults('development');
const config = parseBusConfig({
  ...defaults,
  clientId: 'bench-bus',
  brokers: endpoints.kafkaBrokers,
  schemaRegistryUrl: endpoints.schemaRegistryUrl,
});
const bus = new EventBus(config);
await bus.start(['probes']);
const publisher = await bus.publisher();
const admin = bus.kafka.admin();
await admin.connect();

const nowMs = (): number => performance.timeOrigin + performance.now();
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** A fresh topic per measurement so earlier runs' events never mix in. */
async function freshTopic(partitions: number, purpose: string): Promise<string> {
  const name = `bench-probes-p${partitions}-${purpose}-${randomUUID().slice(0, 8)}`;
  await admin.createTopics({ topics: [{ topic: name, numPartitions: partitions, replicationFactor: 1 }], waitForLeaders: true });
  return name;
}

/** Starts a subscriber that records send-to-handle latency; resolves `done` after `expected` events. */
async function consume(topicName: string, expected: number) {
  const latencies: number[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let joined: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (joined = resolve));
  const subscriber = await bus.subscribe({
    topic: 'probes',
    topicName,
    groupId: `bench-${randomUUID()}`,
    fromBeginning: true,
    handle: async (_event: ProbeResult, delivery) => {
      const sentAt = Number(delivery.headers?.['x-bench-sent-at']?.toString());
      latencies.push(nowMs() - sentAt);
      if (latencies.length >= expected) finish();
    },
  });
  // Give the group time to settle so the first events don't wait for a rebalance.
  setTimeout(joined, 3000);
  await ready;
  return { latencies, done, subscriber };
}

const probeIds = Array.from({ length: 64 }, (_, i) => `probe-bench-${i}`);
const stamp = () => ({ 'x-bench-sent-at': String(nowMs()) });

async function measureThroughput(partitions: number) {
  const topicName = await freshTopic(partitions, 'tput');
  const { done, subscriber, latencies } = await consume(topicName, throughputEvents);
  const started = nowMs();
  const inFlight: Promise<unknown>[] = [];
  for (let sent = 0; sent < throughputEvents; sent += batchSize) {
    const batch = Array.from({ length: Math.min(batchSize, throughputEvents - sent) }, (_, i) =>
      exampleProbeResult(probeIds[(sent + i) % probeIds.length]),
    );
    inFlight.push(publisher.publishMany('probes', batch, topicName, stamp));
    if (inFlight.length >= 8) await inFlight.shift();
  }
  await Promise.all(inFlight);
  const producedMs = nowMs() - started;
  await done;
  const totalMs = nowMs() - started;
  await subscriber.stop();
  return {
    produced_per_s: Math.round(throughputEvents / (producedMs / 1000)),
    end_to_end_per_s: Math.round(latencies.length / (totalMs / 1000)),
  };
}

async function measureLatency(partitions: number) {
  const topicName = await freshTopic(partitions, 'lat');
  const total = rate * latencySeconds;
  const { done, subscriber, latencies } = await consume(topicName, total);
  // Send in 10 ms ticks: rate/100 events per tick keeps the offered load steady.
  const perTick = Math.max(1, Math.round(rate / 100));
  const started = nowMs();
  const pending: Promise<unknown>[] = [];
  for (let sent = 0; sent < total; sent += perTick) {
    const due = started + (sent / rate) * 1000;
    const wait = due - nowMs();
    if (wait > 0) await sleep(wait);
    const batch = Array.from({ length: Math.min(perTick, total - sent) }, (_, i) =>
      exampleProbeResult(probeIds[(sent + i) % probeIds.length]),
    );
    pending.push(publisher.publishMany('probes', batch, topicName, stamp));
  }
  await Promise.all(pending);
  const offeredSeconds = (nowMs() - started) / 1000;
  await done;
  await subscriber.stop();
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    offered_per_s: rate,
    achieved_send_per_s: Math.round(total / offeredSeconds),
    events: total,
    p50_ms: +percentile(sorted, 50).toFixed(1),
    p99_ms: +percentile(sorted, 99).toFixed(1),
    max_ms: +(sorted.at(-1) ?? NaN).toFixed(1),
  };
}

const results = [];
for (const partitions of partitionCounts) {
  const throughput = await measureThroughput(partitions);
  const latency = await measureLatency(partitions);
  const row = { partitions, ...throughput, latency };
  console.log(JSON.stringify(row));
  results.push(row);
}
await admin.disconnect();
await bus.stop();

const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const report = {
  benchmark: 'bench/bus',
  date: new Date().toISOString(),
  machine,
  settings: { throughputEvents, batchSize, latencyRate: rate, latencySeconds, concurrency: config.consumer.partitionsConsumedConcurrently },
  results,
};
const outDir = join(dirname(fileURLToPath(import.meta.url)), 'results');
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
console.log(`\n${machine}`);
console.log('partitions | produced ev/s | end-to-end ev/s | latency @ offered ev/s: p50 / p99 / max ms');
for (const r of results)
  console.log(
    `${String(r.partitions).padStart(10)} | ${String(r.produced_per_s).padStart(13)} | ${String(r.end_to_end_per_s).padStart(15)} | @${r.latency.offered_per_s}: ${r.latency.p50_ms} / ${r.latency.p99_ms} / ${r.latency.max_ms}`,
  );
process.exit(0);
