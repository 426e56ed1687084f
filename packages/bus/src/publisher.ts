import type { Kafka, Producer, RecordMetadata } from 'kafkajs';
import type { Logger } from 'pino';
import { Topics, type TopicEvents, type TopicId } from '@rag-immune/contracts';
import type { SchemaCatalog } from './schema-catalog.ts';
import type { BusMetrics } from './metrics.ts';

/**
 * Publishes typed events: validated and Avro-encoded with the registered schema id, keyed as the
 * topic prescribes, through an idempotent producer that waits for all in-sync replicas.
 */
export class EventPublisher {
  private readonly producer: Producer;

  constructor(
    kafka: Kafka,
    private readonly catalog: SchemaCatalog,
    private readonly metrics?: BusMetrics,
    private readonly logger?: Logger,
  ) {
    // One request in flight keeps per-partition order across retries; batching carries throughput.
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }

  publish<T extends TopicId>(topic: T, event: TopicEvents[T]): Promise<RecordMetadata[]> {
    return this.publishMany(topic, [event]);
  }

  /**
   * Sends the events as one batch. `topicName` writes a copy under another name (benchmarks,
   * replays); the schema and key are still the contract's.
   */
  async publishMany<T extends TopicId>(
    topic: T,
    events: readonly TopicEvents[T][],
    topicName: string = Topics[topic].name,
    headers: (event: TopicEvents[T]) => Record<string, string> = () => ({}),
  ): Promise<RecordMetadata[]> {
    if (events.length === 0) return [];
    const keyOf = Topics[topic].keyOf as (event: TopicEvents[T]) => string;
    const messages = await Promise.all(
      events.map(async (event) => ({
        key: keyOf(event),
        value: await this.catalog.encode(topic, event),
        headers: { ...headers(event), 'x-event-id': event.event_id, 'x-producer': `${event.producer.service}@${event.producer.version}` },
      })),
    );
    const metadata = await this.producer.send({ topic: topicName, acks: -1, messages });
    this.metrics?.published.inc({ topic: topicName }, events.length);
    this.logger?.debug({ topic: topicName, count: events.length }, 'events published');
    return metadata;
  }
}
