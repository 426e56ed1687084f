export { EventBus, processedEventStoreKind, type EventBusDeps } from './event-bus.ts';
export { EventPublisher } from './publisher.ts';
export { EventSubscriber, type SubscriptionOptions, type EventHandler, type DeliveryContext } from './subscriber.ts';
export { SchemaCatalog } from './schema-catalog.ts';
export { ensureTopics, plannedTopics } from './topic-admin.ts';
export { createKafka, kafkaSslOptions } from './kafka-client.ts';
export { BusMetrics } from './metrics.ts';
export {
  DeadLetterHeaders,
  sendToDeadLetter,
  boundedHeaders,
  truncateBytes,
  MAX_DEAD_LETTER_VALUE_BYTES,
  MAX_DEAD_LETTER_HEADER_BYTES,
  MAX_DEAD_LETTER_HEADERS_TOTAL_BYTES,
  MAX_DEAD_LETTER_DETAIL_BYTES,
  MAX_DEAD_LETTER_KEY_BYTES,
  TRUNCATION_MARKER,
  type DeadLetter,
} from './dead-letter.ts';
export {
  EventSigner,
  EventVerifier,
  SIGNATURE_HEADER,
  DEFAULT_TOPIC_PRODUCERS,
  workerOfKeyId,
  type SigningKey,
  type TopicProducers,
} from './signing.ts';
export { InMemoryProcessedEventStore, FileProcessedEventStore, type ProcessedEventStore, type ClaimOutcome } from './processed-events.ts';
export {
  ElasticsearchProcessedEventStore,
  EventClaimedElsewhereError,
  type ElasticsearchProcessedEventStoreOptions,
} from './elasticsearch-processed-events.ts';
export { semanticValidator, DEFAULT_SEMANTIC_LIMITS, type SemanticLimits, type EventValidator } from './semantic-validation.ts';
export { PoisonMessageError, RejectedEventError, type PoisonReason } from './errors.ts';
export { onTerminationSignal } from './shutdown.ts';
export {
  busDefaults,
  busConfigFromEnv,
  parseBusConfig,
  signerFor,
  verifierFor,
  InvalidConfigError,
  DEAD_LETTER_TOPIC,
  topicNameOf,
  type BusConfig,
  type TopicSettings,
} from './config.ts';
