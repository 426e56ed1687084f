import type { Client } from '@elastic/elasticsearch';
import type { Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { topicIds, type TopicId } from '@rag-immune/contracts';
import { InvalidConfigError, signerFor, verifierFor, type BusConfig } from './config.ts';
import { ElasticsearchProcessedEventStore } from './elasticsearch-processed-events.ts';
import { createKafka } from './kafka-client.ts';
import { SchemaCatalog } from './schema-catalog.ts';
import { ensureTopics } from './topic-admin.ts';
import { EventPublisher } from './publisher.ts';
import { EventSubscriber, type SubscriptionOptions } from './subscriber.ts';
import { BusMetrics } from './metrics.ts';

/** What a worker lends the bus for BUS_PROCESSED_EVENTS=elasticsearch: its own client and index prefix. */
export interface EventBusDeps {
  elasticsearch?: Client;
  /** ES_INDEX_PREFIX: the shared store's index is `<prefix>-processed-events`. */
  indexPrefix?: string;
}

/**
 * Which processed-event store a subscription gets: the one it passes; else, for a worker's
 * subscription, the configured kind, by default the shared (Elasticsearch) one in production: a
 * replayed event is refused as a duplicate for the topic's retention (as long as its signature is
 * accepted), not only within one process's life. Read-only subscriptions (onPoison 'skip': CLI tail,
 * history reads) handle nothing a replica could repeat, so they keep per-process memory.
 */
export function processedEventStoreKind(
  config: Pick<BusConfig, 'processedEvents' | 'profile'>,
  options: Pick<SubscriptionOptions<TopicId>, 'processedEvents' | 'onPoison'>,
): 'given' | 'memory' | 'elasticsearch' {
  if (options.processedEvents !== undefined) return 'given';
  if (options.onPoison === 'skip') return 'memory';
  return config.processedEvents ?? (config.profile === 'production' ? 'elasticsearch' : 'memory');
}

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
  private readonly sharedStores: ElasticsearchProcessedEventStore[] = [];

  constructor(
    readonly config: BusConfig,
    private readonly logger?: Logger,
    metrics?: BusMetrics,
    private readonly deps: EventBusDeps = {},
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
      const signer = signerFor(this.config); // production: refuses without BUS_SIGNING_KEY
      this.publisherInstance = new EventPublisher(this.kafka, this.catalog, this.metrics, this.logger, this.config.topicPrefix, signer);
      await this.publisherInstance.connect();
    }
    return this.publisherInstance;
  }

  async subscribe<T extends TopicId>(options: SubscriptionOptions<T>): Promise<EventSubscriber<T>> {
    // Production without BUS_VERIFY_KEYS is refused first (the subscriber checks again), before any store is set up.
    verifierFor(this.config);
    let subscription = options;
    if (processedEventStoreKind(this.config, options) === 'elasticsearch') {
      if (this.deps.elasticsearch === undefined)
        throw new InvalidConfigError([
          {
            key: 'BUS_PROCESSED_EVENTS',
            message:
              'elasticsearch (set, or the production default) but this process gives the bus no Elasticsearch client; BUS_PROCESSED_EVENTS=memory opts out',
          },
        ]);
      // Created lazily: Elasticsearch down at start-up delays handling (retried), not the worker's start.
      const store = ElasticsearchProcessedEventStore.create({
        client: this.deps.elasticsearch,
        consumerGroup: options.groupId,
        ...(this.deps.indexPrefix !== undefined ? { indexPrefix: this.deps.indexPrefix } : {}),
        // Remember an event as long as the topic can redeliver it.
        retentionMs: this.config.topics[options.topic].retentionMs,
        ...(this.config.processedEventsLeaseMs !== undefined ? { leaseMs: this.config.processedEventsLeaseMs } : {}),
        ...(this.logger ? { logger: this.logger } : {}),
      });
      this.sharedStores.push(store);
      subscription = { ...options, processedEvents: store };
    }
    const subscriber = new EventSubscriber(this.kafka, this.catalog, this.config, subscription, this.metrics, this.logger);
    this.subscribers.push(subscriber as unknown as EventSubscriber<TopicId>);
    await subscriber.start();
    return subscriber;
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscribers.map((s) => s.stop()));
    await this.publisherInstance?.disconnect();
    for (const store of this.sharedStores) store.close();
  }
}
