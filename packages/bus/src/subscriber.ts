import type { Admin, Consumer, EachMessagePayload, IHeaders, Kafka, Producer } from 'kafkajs';
import type { Logger } from 'pino';
import { ExponentialBackoff, handleWhen, retry, type RetryPolicy } from 'cockatiel';
import type { TopicEvents, TopicId } from '@rag-immune/contracts';
import { topicNameOf, verifierFor, type BusConfig } from './config.ts';
import type { EventVerifier } from './signing.ts';
import type { SchemaCatalog } from './schema-catalog.ts';
import type { BusMetrics } from './metrics.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  EventClaimedElsewhereError,
  InMemoryProcessedEventStore,
  type ClaimOutcome,
  type ProcessedEventStore,
} from './processed-events.ts';
import { PoisonMessageError, describeError } from './errors.ts';
import { sendToDeadLetter } from './dead-letter.ts';
import { semanticValidator, type EventValidator } from './semantic-validation.ts';

/** How often a held event is looked at again: soon after the holder's lease ends, at most this far apart. */
const CLAIM_POLL_MIN_MS = 250;
const CLAIM_POLL_MAX_MS = 5_000;

export interface DeliveryContext {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  headers: IHeaders | undefined;
}

export type EventHandler<T extends TopicId> = (event: TopicEvents[T], delivery: DeliveryContext) => Promise<void>;

export interface SubscriptionOptions<T extends TopicId> {
  topic: T;
  /** Read a copy of the topic under another name (benchmarks, replays); defaults to the contract's topic. */
  topicName?: string;
  groupId: string;
  handle: EventHandler<T>;
  /** Defaults to per-process memory; pass a durable store to survive restarts. */
  processedEvents?: ProcessedEventStore;
  fromBeginning?: boolean;
  /**
   * What to do with a poison message: park it in the dead-letter topic (workers), or only skip it
   * (read-only tools such as `immune events tail`, which must not add dead letters of their own).
   */
  onPoison?: 'dead-letter' | 'skip';
  /**
   * A worker's own check of a decoded event, after the bus's semantic check (finite numbers,
   * non-negative durations, scores in [0, 1], no future timestamps, bounded strings): throw
   * RejectedEventError (or PoisonMessageError) to dead-letter it with the reason.
   */
  validate?: (event: TopicEvents[T]) => void;
  /** Observation points for crash tests and tracing; must not throw. */
  hooks?: {
    /** After every message, whatever became of it (handled, duplicate, dead-lettered or skipped). */
    onSettled?(delivery: DeliveryContext): void;
    afterProcessed?(eventId: string, delivery: DeliveryContext): void;
    onDuplicate?(eventId: string, delivery: DeliveryContext): void;
  };
}

/**
 * At-least-once, idempotent consumption of one topic by one consumer group:
 * - an offset is resolved (and later committed) only after its event was handled, dead-lettered or
 *   recognised as a duplicate, so a crash never skips an event;
 * - an event_id handled before (a redelivery after a crash between handling and commit) is skipped;
 * - an undecodable or schema-invalid message goes to the dead-letter topic and consumption goes on;
 * - a failing handler is retried with exponential backoff, then the message is left uncommitted and
 *   kafkajs restarts the consumer from the last committed offset, so nothing is dropped.
 */
export class EventSubscriber<T extends TopicId> {
  private readonly consumer: Consumer;
  private readonly deadLetterProducer: Producer;
  private readonly admin: Admin;
  private readonly processed: ProcessedEventStore;
  private readonly retryPolicy: RetryPolicy;
  private readonly topicName: string;
  private readonly semanticCheck: EventValidator<T>;
  private readonly verifier: EventVerifier | undefined;
  private lagTimer: NodeJS.Timeout | undefined;
  private running = false;
  /** Partitions whose start offset this member made durable since it last joined the group. */
  private readonly pinnedStarts = new Set<number>();

  constructor(
    kafka: Kafka,
    private readonly catalog: SchemaCatalog,
    private readonly config: BusConfig,
    private readonly options: SubscriptionOptions<T>,
    private readonly metrics?: BusMetrics,
    private readonly logger?: Logger,
  ) {
    this.topicName = options.topicName ?? topicNameOf(config, options.topic);
    // Throws in production without BUS_VERIFY_KEYS, before anything connects.
    this.verifier = verifierFor(config);
    this.semanticCheck = semanticValidator(options.topic);
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      sessionTimeout: config.consumer.sessionTimeoutMs,
      allowAutoTopicCreation: false,
      retry: {
        retries: Number.MAX_SAFE_INTEGER,
        initialRetryTime: config.consumer.initialBackoffMs,
        maxRetryTime: config.consumer.maxBackoffMs,
      },
    });
    this.deadLetterProducer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    this.admin = kafka.admin();
    this.processed = options.processedEvents ?? new InMemoryProcessedEventStore(config.consumer.processedCacheSize);
    this.retryPolicy = retry(
      handleWhen((error) => !(error instanceof PoisonMessageError)),
      {
        maxAttempts: config.consumer.handlerAttempts - 1,
        backoff: new ExponentialBackoff({ initialDelay: config.consumer.initialBackoffMs, maxDelay: config.consumer.maxBackoffMs }),
      },
    );
    this.retryPolicy.onRetry(({ delay, ...reason }) => {
      this.metrics?.handlerErrors.inc({ topic: this.topicName, group: options.groupId, kind: 'transient' });
      const error = 'error' in reason ? reason.error : undefined;
      this.logger?.warn({ topic: this.topicName, delayMs: delay, err: error }, 'handler failed; retrying');
    });
  }

  async start(): Promise<void> {
    await Promise.all([this.consumer.connect(), this.deadLetterProducer.connect(), this.admin.connect()]);
    await this.consumer.subscribe({ topic: this.topicName, fromBeginning: this.options.fromBeginning ?? false });
    // A new assignment may move partitions: each start is made durable again (see pinStart).
    this.consumer.on(this.consumer.events.GROUP_JOIN, () => this.pinnedStarts.clear());
    this.running = true;
    await this.consumer.run({
      autoCommit: true,
      autoCommitInterval: 1000,
      partitionsConsumedConcurrently: this.config.consumer.partitionsConsumedConcurrently,
      eachMessage: (payload) => this.deliver(payload),
    });
    this.lagTimer = setInterval(() => void this.recordLag(), this.config.consumer.lagIntervalMs);
    this.lagTimer.unref();
  }

  /** Stops fetching, lets the in-flight handler finish, commits, and disconnects. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.lagTimer !== undefined) clearInterval(this.lagTimer);
    await this.consumer.disconnect();
    await Promise.all([this.deadLetterProducer.disconnect(), this.admin.disconnect()]);
  }

  private async deliver(payload: EachMessagePayload): Promise<void> {
    await this.pinStart(payload);
    await this.settle(payload);
    const { topic, partition, message } = payload;
    this.options.hooks?.onSettled?.({
      topic,
      partition,
      offset: message.offset,
      key: message.key?.toString() ?? null,
      headers: message.headers,
    });
  }

  /**
   * Before the first message of a partition is handled, its offset is committed as the group's
   * position. A partition the group never committed starts at its end (or, fromBeginning, its start);
   * if this member died handling the partition's first message, the next owner would resolve that
   * again and skip the message: a report lost on a replica's SIGKILL. Committing the offset
   * being handled (never a later one) makes the successor start at it.
   */
  private async pinStart({ topic, partition, message }: EachMessagePayload): Promise<void> {
    if (this.pinnedStarts.has(partition)) return;
    try {
      await this.consumer.commitOffsets([{ topic, partition, offset: message.offset }]);
      this.pinnedStarts.add(partition);
    } catch (error) {
      // A rebalance under way: kafkajs hands the partition over; the next owner pins it.
      this.logger?.warn({ topic, partition, offset: message.offset, err: describeError(error) }, 'start offset not committed');
    }
  }

  private async settle({ topic, partition, message, heartbeat }: EachMessagePayload): Promise<void> {
    const group = this.options.groupId;
    const delivery: DeliveryContext = {
      topic,
      partition,
      offset: message.offset,
      key: message.key?.toString() ?? null,
      headers: message.headers,
    };
    try {
      // Before decoding: bytes nobody we trust signed are not parsed, nor looked up in the registry.
      // ...and only by the worker that produces this topic (BUS_TOPIC_PRODUCERS).
      this.verifier?.verifyFrom(this.options.topic, topic, message.key, message.value, message.headers);
      const event = await this.retryPolicy.execute(() => this.catalog.decode(this.options.topic, message.value));
      this.semanticCheck(event);
      this.options.validate?.(event);
      const claim = this.processed.claim?.bind(this.processed);
      const state =
        claim === undefined
          ? (await this.processed.has(event.event_id))
            ? 'processed'
            : 'claimed'
          : await this.claimWhenFree(() => this.retryPolicy.execute(() => claim(event.event_id)), heartbeat);
      if (state === 'processed') {
        this.metrics?.consumed.inc({ topic, group, outcome: 'duplicate' });
        this.logger?.info({ topic, partition, offset: message.offset, eventId: event.event_id }, 'duplicate event skipped');
        this.options.hooks?.onDuplicate?.(event.event_id, delivery);
        return;
      }
      const stopTimer = this.metrics?.handlerDuration.startTimer({ topic, group });
      try {
        await this.retryPolicy.execute(() => this.options.handle(event, delivery));
      } catch (error) {
        await this.processed.release?.(event.event_id).catch(() => undefined);
        throw error;
      }
      stopTimer?.();
      await this.processed.markProcessed(event.event_id);
      this.metrics?.consumed.inc({ topic, group, outcome: 'handled' });
      this.options.hooks?.afterProcessed?.(event.event_id, delivery);
    } catch (error) {
      if (error instanceof PoisonMessageError && this.options.onPoison === 'skip') {
        this.logger?.warn({ topic, partition, offset: message.offset, reason: error.reason }, 'poison message skipped');
        return;
      }
      if (error instanceof PoisonMessageError) {
        await sendToDeadLetter(this.deadLetterProducer, topicNameOf(this.config, 'deadLetter'), {
          reason: error.reason,
          detail: error.message,
          topic,
          partition,
          offset: message.offset,
          group,
          key: message.key,
          value: message.value,
          headers: message.headers,
        });
        this.metrics?.handlerErrors.inc({ topic, group, kind: 'poison' });
        this.metrics?.consumed.inc({ topic, group, outcome: 'dead_lettered' });
        this.logger?.warn(
          { topic, partition, offset: message.offset, reason: error.reason, detail: error.message },
          'message dead-lettered',
        );
        return;
      }
      this.metrics?.handlerErrors.inc({ topic, group, kind: 'exhausted' });
      this.logger?.error(
        { topic, partition, offset: message.offset, err: describeError(error) },
        'handler retries exhausted; message left for redelivery',
      );
      throw error;
    }
  }

  /**
   * Another replica holds the event: it finishes it (then it is a duplicate) or it died and its claim
   * expires. Waits for either, heartbeating so the group keeps this member, instead of failing the
   * message into kafkajs' restart loop; the partition waits behind the event either way.
   */
  private async claimWhenFree(claim: () => Promise<ClaimOutcome>, heartbeat: () => Promise<void>): Promise<ClaimOutcome> {
    for (;;) {
      try {
        return await claim();
      } catch (error) {
        if (!(error instanceof EventClaimedElsewhereError) || !this.running) throw error;
        const wait = Math.min(CLAIM_POLL_MAX_MS, Math.max(CLAIM_POLL_MIN_MS, (error.leaseUntil ?? 0) - Date.now() + CLAIM_POLL_MIN_MS));
        this.logger?.info({ topic: this.topicName, waitMs: wait, reason: error.message }, 'event claimed by another replica; waiting');
        await sleep(wait);
        await heartbeat();
      }
    }
  }

  private async recordLag(): Promise<void> {
    try {
      const [committed] = await this.admin.fetchOffsets({ groupId: this.options.groupId, topics: [this.topicName] });
      const ends = await this.admin.fetchTopicOffsets(this.topicName);
      for (const end of ends) {
        const done = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
        const start = done === '-1' ? Number(end.low) : Number(done);
        this.metrics?.consumerLag.set(
          { topic: this.topicName, partition: String(end.partition), group: this.options.groupId },
          Math.max(0, Number(end.high) - start),
        );
      }
    } catch (error) {
      this.logger?.debug({ err: describeError(error) }, 'consumer lag not measured this round');
    }
  }
}
