import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { topicIds, type TopicId } from '@rag-immune/contracts';
import type { BusConfig } from './config.ts';
import { createKafka } from './kafka-client.ts';
import { SchemaCatalog } from './schema-catalog.ts';
import { ensureTopics } from './topic-admin.ts';
import { EventPublisher } from './publisher.ts';
import { EventSubscriber, type SubscriptionOptions } from './subscriber.ts';
import { BusMetrics } from './metrics.ts';

/**
 * A worker's connection to the immune system's event backbone. `start` creates the topics and
 * registers the schemas before anything is produced or consumed, so a worker whose contracts
 * are incompatible with what is deployed refuses to start instead of writing unreadable events.
 */
export class EventBus {
  readonly kafka: Kafka;
  readonly catalog: SchemaCatalog;
  readonly metrics: BusMetrics;
  private publisherInstance: EventPublisher | undefined;
  private readonly subscribers: EventSubscriber<TopicId>[] = [];

  constructor(
    readonly config: BusConfig,
    private readonly logger?: Logger,
    metrics?: BusMetrics,
  ) {
    this.kafka = createKafka(config, logger);
    this.catalog = SchemaCatalog.forUrl(config.schemaRegistryUrl, logger, config.schemaRegistryAuth);
    this.metrics = metrics ?? new BusMetrics();
  }

  /** Creates the topics and registers the schemas; resolves with each topic's schema id. */
  async start(topics: readonly TopicId[] = topicIds): Promise<Map<TopicId, number>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      await ensureTopics(admin, this.config, this.logger);
    } finally {
      await admin.disconnect();
    }
    return this.catalog.registerAll(topics);
  }

  async publisher(): Promise<EventPublisher> {
    if (this.publisherInstance === undefined) {
      this.publisherInstance = new EventPublisher(this.kafka, this.catalog, this.metrics, this.logger, this.config.topicPrefix);
      await this.publisherInstance.connect();
    }
    return this.publisherInstance;
  }

  async subscribe<T extends TopicId>(options: SubscriptionOptions<T>): Promise<EventSubscriber<T>> {
    const subscriber = new EventSubscriber(this.kafka, this.catalog, this.config, options, this.metrics, this.logger);
    this.subscribers.push(subscriber as unknown as EventSubscriber<TopicId>);
    await subscriber.start();
    return subscriber;
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscribers.map((s) => s.stop()));
    await this.publisherInstance?.disconnect();
  }
}
