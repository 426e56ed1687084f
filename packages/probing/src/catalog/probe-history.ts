import { randomUUID } from 'node:crypto';
import type { EventBus } from '@rag-immune/bus';
import { Topics } from '@rag-immune/contracts';

/**
 * Reads the online FCS of every probe run since `sinceMs` back from rag-sentinel-probes (the
 * topic is the history: retention covers the rotation window), in a throwaway consumer group so
 * no worker's offsets move. Stops once every partition is read to the end it had when we began.
 */
export async function readOnlineFcsHistory(bus: EventBus, sinceMs: number, timeoutMs = 120_000): Promise<Map<string, number[]>> {
  return (await readProbeHistory(bus, sinceMs, timeoutMs)).fcs;
}

/** What the probes topic says since `sinceMs`: the online FCS per probe, and the segments traffic replays named. */
export interface ProbeHistory {
  fcs: Map<string, number[]>;
  /** Segment (knowledge id) → ProbeResults of origin traffic naming it: the traffic watcher flagged it. */
  trafficSegments: Map<string, number>;
}

/** As readOnlineFcsHistory, with the traffic watcher's replays counted per segment (the probe-set rotation). */
export async function readProbeHistory(bus: EventBus, sinceMs: number, timeoutMs = 120_000): Promise<ProbeHistory> {
  const topic = Topics.probes.name;
  const admin = bus.kafka.admin();
  await admin.connect();
  const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, { low: Number(p.low), high: Number(p.high) }]));
  await admin.disconnect();
  const pending = new Set([...ends].filter(([, o]) => o.high > o.low).map(([partition]) => partition));
  const history = new Map<string, number[]>();
  const trafficSegments = new Map<string, number>();
  if (pending.size === 0) return { fcs: history, trafficSegments };

  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const subscriber = await bus.subscribe({
    topic: 'probes',
    groupId: `immune-probe-history-${randomUUID()}`,
    fromBeginning: true,
    onPoison: 'skip',
    handle: async (event) => {
      const fcs = event.online.signals?.fcs;
      if (event.occurred_at >= sinceMs && event.origin === 'traffic' && event.segment)
        trafficSegments.set(event.segment, (trafficSegments.get(event.segment) ?? 0) + 1);
      if (event.occurred_at >= sinceMs && fcs !== null && fcs !== undefined)
        history.set(event.probe_id, [...(history.get(event.probe_id) ?? []), fcs]);
    },
    hooks: {
      onSettled: (delivery) => {
        const end = ends.get(delivery.partition);
        if (end !== undefined && Number(delivery.offset) >= end.high - 1) pending.delete(delivery.partition);
        if (pending.size === 0) finish();
      },
    },
  });
  const timer = setTimeout(finish, timeoutMs);
  await done;
  clearTimeout(timer);
  await subscriber.stop();
  if (pending.size > 0) throw new Error(`history incomplete: partitions ${[...pending].join(', ')} not read within ${timeoutMs} ms`);
  return { fcs: history, trafficSegments };
}
