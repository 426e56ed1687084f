/** Bus helpers for tests on the local stack: its configuration, unique consumer groups, collecting events. */
import { randomUUID } from 'node:crypto';
import { loadStackConfig, stackEndpoints } from '@rag-immune/stack';
import { busDefaults, parseBusConfig, type BusConfig, type EventBus } from '@rag-immune/bus';
import type { TopicEvents, TopicId } from '@rag-immune/contracts';

/** Bus configuration pointing at the local stack started by `npm run stack -- up`. */
export function stackBusConfig(overrides: Partial<BusConfig['consumer']> = {}): BusConfig {
  const endpoints = stackEndpoints(loadStackConfig());
  const defaults = busDefaults('development');
  return parseBusConfig({
    ...defaults,
    clientId: `bus-it-${process.pid}`,
    brokers: endpoints.kafkaBrokers,
    schemaRegistryUrl: endpoints.schemaRegistryUrl,
    consumer: { ...defaults.consumer, sessionTimeoutMs: 6000, initialBackoffMs: 50, maxBackoffMs: 1000, ...overrides },
  });
}

export function uniqueGroup(label: string): string {
  return `it-${label}-${randomUUID()}`;
}

/** Subscribes from the beginning and resolves with the first `count` events that match. */
export async function collectEvents<T extends TopicId>(
  bus: EventBus,
  topic: T,
  matches: (event: TopicEvents[T]) => boolean,
  count: number,
  timeoutMs = 60_000,
): Promise<TopicEvents[T][]> {
  const found: TopicEvents[T][] = [];
  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const subscriber = await bus.subscribe({
    topic,
    groupId: uniqueGroup(`collect-${topic}`),
    fromBeginning: true,
    handle: async (event) => {
      if (!matches(event)) return;
      found.push(event);
      if (found.length >= count) resolveDone();
    },
  });
  const timer = setTimeout(resolveDone, timeoutMs);
  await done;
  clearTimeout(timer);
  await subscriber.stop();
  return found;
}

/** Avro records decode to class instances; compare as plain JSON. */
export function plain<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value));
}
