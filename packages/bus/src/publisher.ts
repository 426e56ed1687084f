import type { Kafka, Message, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { Topics, type TopicEvents, type TopicId } from '@rag-immune/contracts';
import type { SchemaCatalog } from './schema-catalog.ts';
import type { BusMetrics } from './metrics.ts';
import { SIGNATURE_HEADER, type EventSigner } from './signing.ts';

/** One caller's messages waiting for the next request. */
interface PendingSend {
  topic: string;
  messages: Message[];
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Messages per produce request. Keeps each partition's record batch well under the broker's
 * default 1 MB message.max.bytes for ProbeResult-sized events (~0.6 KB).
 */
const MAX_MESSAGES_PER_REQUEST = 1000;

/**
 * Publishes typed events: validated and Avro-encoded with the registered schema id, keyed as the
 * topic prescribes, through an idempotent producer that waits for all in-sync replicas.
 *
 * The producer keeps one request in flight, which preserves per-partition order across retries.
 * To still carry thousands of events per second, calls made while a request is in flight are
 * grouped into the next request (group commit): a caller's promise resolves once the request
 * that carried its events is acknowledged, and a caller's events are never split across requests.
 */
export class EventPublisher {
  private readonly producer: Producer;
  private readonly pending: PendingSend[] = [];
  private sending = false;

  constructor(
    kafka: Kafka,
    private readonly catalog: SchemaCatalog,
    private readonly metrics?: BusMetrics,
    private readonly logger?: Logger,
    /** BusConfig.topicPrefix: the default topic names are the contract's under this prefix. */
    private readonly topicPrefix = '',
    /** Signs every message as this worker (see signing.ts); undefined = unsigned (development only). */
    private readonly signer?: EventSigner,
  ) {
    this.producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  disconnect(): Promise<void> {
    return this.producer.disconnect();
  }

  publish<T extends TopicId>(topic: T, event: TopicEvents[T]): Promise<void> {
    return this.publishMany(topic, [event]);
  }

  /**
   * Publishes the events; resolves when all of them are acknowledged by all in-sync replicas.
   * `topicName` writes a copy under another name (benchmarks, replays); the schema and key are
   * still the contract's.
   */
  async publishMany<T extends TopicId>(
    topic: T,
    events: readonly TopicEvents[T][],
    topicName: string = `${this.topicPrefix}${Topics[topic].name}`,
    headers: (event: TopicEvents[T]) => Record<string, string> = () => ({}),
  ): Promise<void> {
    if (events.length === 0) return;
    const keyOf = Topics[topic].keyOf as (event: TopicEvents[T]) => string;
    const messages = await Promise.all(
      events.map(async (event) => {
        const key = keyOf(event);
        const value = await this.catalog.encode(topic, event);
        return {
          key,
          value,
          headers: {
            ...headers(event),
            'x-event-id': event.event_id,
            'x-producer': `${event.producer.service}@${event.producer.version}`,
            // Over the exact bytes sent and the topic they are sent to; set last so no caller header replaces it.
            ...(this.signer ? { [SIGNATURE_HEADER]: this.signer.sign(topicName, key, value) } : {}),
          },
        };
      }),
    );
    await new Promise<void>((resolve, reject) => {
      this.pending.push({ topic: topicName, messages, resolve, reject });
      if (!this.sending) void this.sendPending();
    });
    this.metrics?.published.inc({ topic: topicName }, events.length);
    this.logger?.debug({ topic: topicName, count: events.length }, 'events published');
  }

  private async sendPending(): Promise<void> {
    this.sending = true;
    while (this.pending.length > 0) {
      const request: PendingSend[] = [];
      let size = 0;
      while (
        this.pending.length > 0 &&
        (request.length === 0 || size + (this.pending[0]?.messages.length ?? 0) <= MAX_MESSAGES_PER_REQUEST)
      ) {
        const next = this.pending.shift() as PendingSend;
        request.push(next);
        size += next.messages.length;
      }
      const byTopic = new Map<string, Message[]>();
      for (const send of request) byTopic.set(send.topic, [...(byTopic.get(send.topic) ?? []), ...send.messages]);
      try {
        await this.producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
        request.forEach((send) => send.resolve());
      } catch (error) {
        request.forEach((send) => send.reject(error));
      }
    }
    this.sending = false;
  }
}
