import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';
import type { Logger } from 'pino';
import { Topics, loadTopicSchema, subjectOf, type TopicEvents, type TopicId } from '@rag-immune/contracts';
import { PoisonMessageError, describeError } from './errors.ts';

/** Confluent wire format: magic byte 0, 4-byte big-endian schema id, Avro body. */
const WIRE_HEADER_BYTES = 5;

/**
 * The registered Avro schemas of the three topics. Registers each topic's schema under
 * `<topic>-value` at start-up (the registry refuses an incompatible change, which stops the worker
 * before it writes anything), then encodes with the registered id and decodes any registered
 * writer version into this build's reader schema.
 */
export class SchemaCatalog {
  private readonly ids = new Map<TopicId, number>();
  private readonly readerTypes = new Map<TopicId, avro.Type>();
  /** Writer-to-reader resolvers by writer schema id; building one costs far more than a decode. */
  private readonly resolvers = new Map<number, avro.Resolver>();
  /** Schema ids the registry answered 404 for, until when: a flood of garbage must not become a flood of registry calls. */
  private readonly unknownIds = new Map<number, number>();

  constructor(
    readonly registry: SchemaRegistry,
    private readonly logger?: Logger,
  ) {}

  static forUrl(url: string, logger?: Logger, auth?: { username: string; password: string }): SchemaCatalog {
    return new SchemaCatalog(
      new SchemaRegistry({ host: url, retry: { retries: 3, initialRetryTimeInSecs: 0.2 }, ...(auth ? { auth: { ...auth } } : {}) }),
      logger,
    );
  }

  /** Registers (idempotently) the schemas of the given topics; throws on incompatibility. */
  async registerAll(topics: readonly TopicId[]): Promise<Map<TopicId, number>> {
    for (const topic of topics) {
      const schema = loadTopicSchema(topic);
      const id = await this.registerSubject(subjectOf(topic), schema);
      this.ids.set(topic, id);
      this.readerTypes.set(topic, avro.Type.forSchema(schema as avro.Schema));
      this.logger?.info({ topic: Topics[topic].name, subject: subjectOf(topic), schemaId: id }, 'schema registered');
    }
    return new Map(this.ids);
  }

  /**
   * Registers `schema` under `subject` and gives it the BACKWARD rule, tolerating a concurrent
   * registrant. Two workers starting together on a fresh registry both see no rule, both register
   * and both create the rule: the registry answers the second with 409 "rule already exists", or,
   * when one reads the rule between the other's registration and its rule creation, reports the
   * subject's rule as NONE. Both are retried after a short pause: by then the other registrant's
   * rule exists and is compared, the same schema id comes back, and a subject whose rule really
   * differs still fails (every attempt sees the same rule).
   */
  async registerSubject(subject: string, schema: object): Promise<number> {
    const attempts = 4;
    for (let attempt = 1; ; attempt += 1) {
      try {
        const { id } = await this.registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(schema) }, { subject });
        return id;
      } catch (error) {
        const racing =
          (error as { status?: number }).status === 409 || (error as Error).name === 'ConfluentSchemaRegistryCompatibilityError';
        if (!racing || attempt >= attempts) throw error;
        this.logger?.info({ subject, attempt, err: describeError(error) }, 'concurrent schema registration; checking the rule again');
        await new Promise((resolve) => setTimeout(resolve, 150 * attempt));
      }
    }
  }

  schemaId(topic: TopicId): number {
    const id = this.ids.get(topic);
    if (id === undefined) throw new Error(`schema of ${topic} not registered: call registerAll first`);
    return id;
  }

  /** Validates before encoding so a bad event fails at the producer with the field path. */
  async encode<T extends TopicId>(topic: T, event: TopicEvents[T]): Promise<Buffer> {
    const type = this.readerTypes.get(topic);
    if (type === undefined) throw new Error(`schema of ${topic} not registered: call registerAll first`);
    const invalidPaths: string[] = [];
    if (!type.isValid(event, { errorHook: (path) => invalidPaths.push(path.join('.') || '(root)') }))
      throw new TypeError(`${Topics[topic].recordName} is invalid at ${invalidPaths.join(', ')}`);
    return this.registry.encode(this.schemaId(topic), event);
  }

  /**
   * Decodes a message of `topic`. Throws PoisonMessageError for what can never decode; other
   * errors (registry unreachable) are transient and propagate as they are.
   */
  async decode<T extends TopicId>(topic: T, buffer: Buffer | null): Promise<TopicEvents[T]> {
    if (!this.readerTypes.has(topic)) throw new Error(`schema of ${topic} not registered: call registerAll first`);
    if (buffer === null || buffer.length < WIRE_HEADER_BYTES)
      throw new PoisonMessageError('truncated_message', `message of ${buffer?.length ?? 0} bytes is shorter than the wire header`);
    if (buffer[0] !== 0) throw new PoisonMessageError('bad_magic_byte', `magic byte is ${buffer[0]}, expected 0`);
    const writerId = buffer.readInt32BE(1);
    const unknownUntil = this.unknownIds.get(writerId);
    if (unknownUntil !== undefined && unknownUntil > Date.now())
      throw new PoisonMessageError('unknown_schema_id', `schema id ${writerId} is not in the registry`);
    let writer: avro.Type;
    try {
      writer = (await this.registry.getSchema(writerId)) as unknown as avro.Type;
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 404) {
        // Remembered briefly (a schema registered a moment later is found after the minute).
        if (this.unknownIds.size >= 10_000) this.unknownIds.clear();
        this.unknownIds.set(writerId, Date.now() + 60_000);
        throw new PoisonMessageError('unknown_schema_id', `schema id ${writerId} is not in the registry`);
      }
      throw error;
    }
    if (writer.name !== Topics[topic].recordName)
      throw new PoisonMessageError(
        'schema_mismatch',
        `schema id ${writerId} is ${writer.name ?? 'an unnamed type'}, topic ${Topics[topic].name} carries ${Topics[topic].recordName}`,
      );
    const reader = this.readerTypes.get(topic) as avro.Type;
    try {
      let resolver = this.resolvers.get(writerId);
      if (resolver === undefined) {
        resolver = reader.createResolver(writer);
        this.resolvers.set(writerId, resolver);
      }
      return reader.fromBuffer(buffer.subarray(WIRE_HEADER_BYTES), resolver) as TopicEvents[T];
    } catch (error) {
      throw new PoisonMessageError('undecodable_payload', `schema id ${writerId}: ${describeError(error)}`);
    }
  }
}
