import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IHeaders } from 'kafkajs';
import type { TopicId } from '@rag-immune/contracts';
import { PoisonMessageError } from './errors.ts';

/**
 * Producer signatures on bus events. ACLs say who may write a topic; a signature says which
 * worker produced this exact message, so a consumer can refuse an event written with stolen or
 * shared Kafka credentials, or altered on the way (a replay into another topic, another key).
 *
 * The header `rag-immune-signature` carries `v1;<key id>;<base64 HMAC-SHA256>` over the encoded
 * Avro message exactly as sent (magic byte + schema id + payload), the Kafka topic name and the
 * message key. Key ids are the producing worker's name and version (e.g. `identifier@0.1.0`).
 */
export const SIGNATURE_HEADER = 'rag-immune-signature';

const VERSION = 'v1';
/** Domain separation: these MACs are never valid for anything else signed with the same secret. */
const DOMAIN = Buffer.from('rag-immune-bus-signature-v1', 'utf8');
const MAC_BYTES = 32;
/** Key ids appear in headers and in `id:secret,...` lists: none of the separators. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9._@+-]{1,128}$/;
/** HMAC-SHA256 keys shorter than this are guessable; `openssl rand -base64 32` gives 44 characters. */
export const MIN_SECRET_LENGTH = 32;

export interface SigningKey {
  keyId: string;
  secret: string;
}

/**
 * Which worker produces each topic. A valid signature only says that a worker we trust wrote the
 * message; this says which worker may write which topic, so a compromised sentinel (or effector)
 * cannot sign a RootCauseReport and steer a repair.
 */
export type TopicProducers = Record<TopicId, string>;

/** The system's producers: the sentinel probes, the identifier reports, the effector acts. */
export const DEFAULT_TOPIC_PRODUCERS: Readonly<TopicProducers> = Object.freeze({
  probes: 'sentinel',
  reports: 'identifier',
  actions: 'effector',
});

/** The worker a key id names: its part before `@` (`identifier@0.2.0` → `identifier`), or the whole id. */
export function workerOfKeyId(keyId: string): string {
  const at = keyId.indexOf('@');
  return at < 0 ? keyId : keyId.slice(0, at);
}

/** Length-prefixed fields, so that no two (topic, key, value) triples give the same bytes. */
function signedInput(keyId: string, topic: string, key: Buffer | string | null, value: Buffer | null): Buffer[] {
  const field = (bytes: Buffer | null): Buffer[] => {
    const length = Buffer.alloc(4);
    // A null key or value (a tombstone) is told apart from an empty one.
    length.writeUInt32BE(bytes === null ? 0xffffffff : bytes.length);
    return bytes === null ? [length] : [length, bytes];
  };
  return [
    ...field(DOMAIN),
    ...field(Buffer.from(keyId, 'utf8')),
    ...field(Buffer.from(topic, 'utf8')),
    ...field(key === null ? null : Buffer.isBuffer(key) ? key : Buffer.from(key, 'utf8')),
    ...field(value),
  ];
}

function mac(secret: string, keyId: string, topic: string, key: Buffer | string | null, value: Buffer | null): Buffer {
  const hmac = createHmac('sha256', secret);
  for (const part of signedInput(keyId, topic, key, value)) hmac.update(part);
  return hmac.digest();
}

/** Signs messages as one producing worker. */
export class EventSigner {
  constructor(private readonly key: SigningKey) {}

  get keyId(): string {
    return this.key.keyId;
  }

  /** The signature header's value for this message as it will be written to `topic`. */
  sign(topic: string, key: Buffer | string | null, value: Buffer | null): string {
    return `${VERSION};${this.key.keyId};${mac(this.key.secret, this.key.keyId, topic, key, value).toString('base64')}`;
  }
}

/**
 * Checks signatures against the configured keys. Several keys at once make rotation possible:
 * consumers accept the old and the new key while producers switch over.
 */
export class EventVerifier {
  private readonly keys: Map<string, string>;

  constructor(
    keys: readonly SigningKey[],
    private readonly producers: Readonly<TopicProducers> = DEFAULT_TOPIC_PRODUCERS,
  ) {
    this.keys = new Map(keys.map((k) => [k.keyId, k.secret]));
  }

  /**
   * Verifies a message of contract topic `topicId` (read from Kafka topic `topicName`, which may carry
   * a prefix) and that its key belongs to the topic's producer; returns the key id. A key every
   * consumer holds (they hold all producers' keys) is otherwise good for any topic.
   */
  verifyFrom(
    topicId: TopicId,
    topicName: string,
    key: Buffer | string | null,
    value: Buffer | null,
    headers: IHeaders | undefined,
  ): string {
    const keyId = this.verify(topicName, key, value, headers);
    const worker = workerOfKeyId(keyId);
    const producer = this.producers[topicId];
    if (worker !== producer)
      throw new PoisonMessageError(
        'wrong_producer',
        `signed by "${keyId}" (worker ${worker}), but ${topicId} events are produced by ${producer} only`,
      );
    return keyId;
  }

  /** Returns the key id that signed the message; throws PoisonMessageError (dead-letter it) otherwise. */
  verify(topic: string, key: Buffer | string | null, value: Buffer | null, headers: IHeaders | undefined): string {
    const raw = headers?.[SIGNATURE_HEADER];
    if (raw === undefined) throw new PoisonMessageError('unsigned', `no ${SIGNATURE_HEADER} header`);
    // Two signature headers: which one counts would be the attacker's choice.
    if (Array.isArray(raw)) throw new PoisonMessageError('bad_signature', `${raw.length} ${SIGNATURE_HEADER} headers`);
    const parts = raw.toString('utf8').split(';');
    const [version, keyId, encoded] = parts;
    if (parts.length !== 3 || version !== VERSION || keyId === undefined || encoded === undefined)
      throw new PoisonMessageError('bad_signature', `malformed ${SIGNATURE_HEADER} header (expected ${VERSION};<key id>;<base64>)`);
    const secret = this.keys.get(keyId);
    // The id is quoted (bounded, it is not secret) so an operator sees which key to add or retire.
    if (secret === undefined)
      throw new PoisonMessageError('unknown_signing_key', `signing key "${keyId.slice(0, 128)}" is not among the verify keys`);
    const given = Buffer.from(encoded, 'base64');
    const expected = mac(secret, keyId, topic, key, value);
    // The length is public (always 32); the bytes are compared in constant time.
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, expected))
      throw new PoisonMessageError('bad_signature', `signature by "${keyId}" does not match the message, topic and key`);
    return keyId;
  }
}
