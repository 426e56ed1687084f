import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IHeaders } from 'kafkajs';
import type { TopicId } from '@rag-immune/contracts';
import { PoisonMessageError } from './errors.ts';

/**
 * Producer signatures on bus events. ACLs say who may write a topic; a signature says which
 * worker produced this exact message, so a consumer can refuse an event written with stolen or
 * shared Kafka credentials, or altered on the way (a replay into another topic, another key).
 *
 * The header `rag-immune-signature` carries `v2;<key id>;<signed at, epoch ms>;<base64 HMAC-SHA256>`
 * over the signing time, the encoded Avro message exactly as sent (magic byte + schema id + payload),
 * the Kafka topic name and the message key. Key ids are the producing worker's name and version
 * (e.g. `identifier@0.1.0`). The signed time lets a consumer refuse a replay older than it can
 * still de-duplicate (the topic's retention). `v1;<key id>;<base64>` (no time) is the format before
 * it: accepted only with BUS_ACCEPT_UNTIMED_SIGNATURES=true, during a rollout.
 */
export const SIGNATURE_HEADER = 'rag-immune-signature';

const VERSION = 'v2';
const UNTIMED_VERSION = 'v1';
/** Domain separation: these MACs are never valid for anything else signed with the same secret. */
const DOMAIN = Buffer.from('rag-immune-bus-signature-v2', 'utf8');
const UNTIMED_DOMAIN = Buffer.from('rag-immune-bus-signature-v1', 'utf8');
/** A signing time ahead of the consumer's clock by more than this is refused (clock skew allowed). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
const SIGNED_AT_PATTERN = /^\d{1,15}$/;
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

/**
 * Length-prefixed fields, so that no two (time, topic, key, value) tuples give the same bytes; the
 * untimed (v1) input has no time field and another domain tag.
 */
function signedInput(keyId: string, signedAt: string | null, topic: string, key: Buffer | string | null, value: Buffer | null): Buffer[] {
  const field = (bytes: Buffer | null): Buffer[] => {
    const length = Buffer.alloc(4);
    // A null key or value (a tombstone) is told apart from an empty one.
    length.writeUInt32BE(bytes === null ? 0xffffffff : bytes.length);
    return bytes === null ? [length] : [length, bytes];
  };
  return [
    ...field(signedAt === null ? UNTIMED_DOMAIN : DOMAIN),
    ...field(Buffer.from(keyId, 'utf8')),
    ...(signedAt === null ? [] : field(Buffer.from(signedAt, 'utf8'))),
    ...field(Buffer.from(topic, 'utf8')),
    ...field(key === null ? null : Buffer.isBuffer(key) ? key : Buffer.from(key, 'utf8')),
    ...field(value),
  ];
}

function mac(
  secret: string,
  keyId: string,
  signedAt: string | null,
  topic: string,
  key: Buffer | string | null,
  value: Buffer | null,
): Buffer {
  const hmac = createHmac('sha256', secret);
  for (const part of signedInput(keyId, signedAt, topic, key, value)) hmac.update(part);
  return hmac.digest();
}

/** Signs messages as one producing worker. */
export class EventSigner {
  constructor(private readonly key: SigningKey) {}

  get keyId(): string {
    return this.key.keyId;
  }

  /** The signature header's value for this message as it will be written to `topic`, signed at `signedAt` (epoch ms). */
  sign(topic: string, key: Buffer | string | null, value: Buffer | null, signedAt: number = Date.now()): string {
    const at = String(Math.trunc(signedAt));
    return `${VERSION};${this.key.keyId};${at};${mac(this.key.secret, this.key.keyId, at, topic, key, value).toString('base64')}`;
  }

  /** The untimed (v1) signature of the producers before signed times; for rollout tests only. */
  signUntimed(topic: string, key: Buffer | string | null, value: Buffer | null): string {
    return `${UNTIMED_VERSION};${this.key.keyId};${mac(this.key.secret, this.key.keyId, null, topic, key, value).toString('base64')}`;
  }
}

/** How a consumer judges signatures beyond the MAC: who may sign each topic, and how old a signature may be. */
export interface VerifyPolicy {
  /** The worker producing each topic; default DEFAULT_TOPIC_PRODUCERS. */
  producers?: Readonly<TopicProducers>;
  /** The oldest signature accepted on each topic, in ms (its retention by default, see verifierFor); absent: no limit. */
  maxAgeMs?: Partial<Record<TopicId, number>>;
  /** Accept untimed (v1) signatures: only while producers from before signed times may still be read. */
  acceptUntimed?: boolean;
  now?: () => number;
}

/**
 * Checks signatures against the configured keys. Several keys at once make rotation possible:
 * consumers accept the old and the new key while producers switch over.
 */
export class EventVerifier {
  private readonly keys: Map<string, string>;
  private readonly producers: Readonly<TopicProducers>;
  private readonly now: () => number;

  constructor(
    keys: readonly SigningKey[],
    private readonly policy: VerifyPolicy = {},
  ) {
    this.keys = new Map(keys.map((k) => [k.keyId, k.secret]));
    this.producers = policy.producers ?? DEFAULT_TOPIC_PRODUCERS;
    this.now = policy.now ?? Date.now;
  }

  /**
   * Verifies a message of contract topic `topicId` (read from Kafka topic `topicName`, which may carry
   * a prefix): its signature, its age against the topic's limit, and that its key belongs to the
   * topic's producer; returns the key id. A key every consumer holds (they hold all producers' keys)
   * is otherwise good for any topic.
   */
  verifyFrom(
    topicId: TopicId,
    topicName: string,
    key: Buffer | string | null,
    value: Buffer | null,
    headers: IHeaders | undefined,
  ): string {
    const keyId = this.verify(topicName, key, value, headers, this.policy.maxAgeMs?.[topicId]);
    const worker = workerOfKeyId(keyId);
    const producer = this.producers[topicId];
    if (worker !== producer)
      throw new PoisonMessageError(
        'wrong_producer',
        `signed by "${keyId}" (worker ${worker}), but ${topicId} events are produced by ${producer} only`,
      );
    return keyId;
  }

  /**
   * Returns the key id that signed the message; throws PoisonMessageError (dead-letter it) otherwise.
   * `maxAgeMs`: a signature older than this is refused (a replay the consumer may no longer de-duplicate).
   */
  verify(topic: string, key: Buffer | string | null, value: Buffer | null, headers: IHeaders | undefined, maxAgeMs?: number): string {
    const raw = headers?.[SIGNATURE_HEADER];
    if (raw === undefined) throw new PoisonMessageError('unsigned', `no ${SIGNATURE_HEADER} header`);
    // Two signature headers: which one counts would be the attacker's choice.
    if (Array.isArray(raw)) throw new PoisonMessageError('bad_signature', `${raw.length} ${SIGNATURE_HEADER} headers`);
    const parts = raw.toString('utf8').split(';');
    const untimed = parts.length === 3 && parts[0] === UNTIMED_VERSION;
    const timed = parts.length === 4 && parts[0] === VERSION && SIGNED_AT_PATTERN.test(parts[2] ?? '');
    if (!untimed && !timed)
      throw new PoisonMessageError(
        'bad_signature',
        `malformed ${SIGNATURE_HEADER} header (expected ${VERSION};<key id>;<signed at ms>;<base64>)`,
      );
    const keyId = parts[1] ?? '';
    const signedAt = timed ? (parts[2] ?? '') : null;
    const encoded = parts.at(-1) ?? '';
    const secret = this.keys.get(keyId);
    // The id is quoted (bounded, it is not secret) so an operator sees which key to add or retire.
    if (secret === undefined)
      throw new PoisonMessageError('unknown_signing_key', `signing key "${keyId.slice(0, 128)}" is not among the verify keys`);
    const given = Buffer.from(encoded, 'base64');
    const expected = mac(secret, keyId, signedAt, topic, key, value);
    // The length is public (always 32); the bytes are compared in constant time.
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, expected))
      throw new PoisonMessageError('bad_signature', `signature by "${keyId}" does not match the message, topic and key`);
    if (signedAt === null) {
      if (this.policy.acceptUntimed !== true)
        throw new PoisonMessageError(
          'untimed_signature',
          `signature by "${keyId}" carries no signing time (${UNTIMED_VERSION}); accepted only with BUS_ACCEPT_UNTIMED_SIGNATURES=true during a rollout`,
        );
      return keyId;
    }
    const now = this.now();
    const at = Number(signedAt);
    if (at > now + MAX_CLOCK_SKEW_MS)
      throw new PoisonMessageError('future_signature', `signed by "${keyId}" at ${new Date(at).toISOString()}, ahead of this clock`);
    if (maxAgeMs !== undefined && now - at > maxAgeMs)
      throw new PoisonMessageError(
        'expired_signature',
        `signed by "${keyId}" at ${new Date(at).toISOString()}, older than the ${maxAgeMs} ms a replay can be told apart (BUS_SIGNATURE_MAX_AGE_MS, default the topic's retention)`,
      );
    return keyId;
  }
}
