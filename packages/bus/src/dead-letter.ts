import type { Producer, IHeaders } from 'kafkajs';
import type { PoisonReason } from './errors.ts';

/** Headers a dead-lettered message carries, so an operator can find and replay it. */
export const DeadLetterHeaders = {
  reason: 'x-dead-letter-reason',
  detail: 'x-dead-letter-detail',
  originTopic: 'x-dead-letter-origin-topic',
  originPartition: 'x-dead-letter-origin-partition',
  originOffset: 'x-dead-letter-origin-offset',
  consumerGroup: 'x-dead-letter-consumer-group',
  failedAt: 'x-dead-letter-failed-at',
  /** Set when the value was cut to fit the topic: the original size in bytes. */
  originalBytes: 'x-dead-letter-original-bytes',
  /** Set when the key was cut: the original size in bytes. */
  originalKeyBytes: 'x-dead-letter-original-key-bytes',
  /** Set when copied headers were cut or left out: how many of each. */
  headersTruncated: 'x-dead-letter-headers-truncated',
} as const;

/**
 * The original headers are the sender's, so they are bounded like the value: a message whose
 * headers alone exceed the topic's size limit would fail to park and stall its partition.
 * A value longer than this is cut and ends with TRUNCATION_MARKER.
 */
export const MAX_DEAD_LETTER_HEADER_BYTES = 8 * 1024;
/** All copied header names and values together; headers past it are left out (and counted). */
export const MAX_DEAD_LETTER_HEADERS_TOTAL_BYTES = 64 * 1024;
/** The failure description (it may quote the payload); cut like a header value. */
export const MAX_DEAD_LETTER_DETAIL_BYTES = 2 * 1024;
/** Likewise the key, which is kept (it decides the partition) but may be anything. */
export const MAX_DEAD_LETTER_KEY_BYTES = 8 * 1024;
export const TRUNCATION_MARKER = '...[truncated]';

/**
 * A poison message can be larger than a Kafka message may be (it arrived compressed, or the
 * dead-letter topic has a smaller limit): beyond this the parked value is cut to a prefix and the
 * original size recorded, so parking never fails and never blocks the consumer.
 */
export const MAX_DEAD_LETTER_VALUE_BYTES = 512 * 1024;

export interface DeadLetter {
  reason: PoisonReason;
  detail: string;
  topic: string;
  partition: number;
  offset: string;
  group: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders | undefined;
}

/** `value` cut to at most `max` bytes, ending with the marker when cut. */
export function truncateBytes(value: Buffer, max: number): Buffer {
  if (value.length <= max) return value;
  const marker = Buffer.from(TRUNCATION_MARKER, 'utf8');
  return Buffer.concat([value.subarray(0, Math.max(0, max - marker.length)), marker]);
}

/** `text` cut to at most `max` UTF-8 bytes on a character boundary, ending with the marker when cut. */
export function truncateText(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  let end = Math.max(0, max - Buffer.byteLength(TRUNCATION_MARKER));
  // Step back over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return `${bytes.subarray(0, end).toString('utf8')}${TRUNCATION_MARKER}`;
}

/** The original headers, each value and all of them together within the dead-letter bounds. */
export function boundedHeaders(headers: IHeaders | undefined): { headers: IHeaders; cut: number; dropped: number } {
  const result: IHeaders = {};
  let total = 0;
  let cut = 0;
  let dropped = 0;
  const bound = (value: Buffer | string): Buffer | string => {
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8');
    if (bytes.length <= MAX_DEAD_LETTER_HEADER_BYTES) return value;
    cut += 1;
    return truncateBytes(bytes, MAX_DEAD_LETTER_HEADER_BYTES);
  };
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const nameBytes = Buffer.byteLength(name, 'utf8');
    const bounded = Array.isArray(value) ? value.map(bound) : bound(value);
    const size = nameBytes + (Array.isArray(bounded) ? bounded : [bounded]).reduce((sum, v) => sum + Buffer.byteLength(v), 0);
    // A header name is not cut (it would become another header): an overlong one is left out.
    if (nameBytes > MAX_DEAD_LETTER_HEADER_BYTES || total + size > MAX_DEAD_LETTER_HEADERS_TOTAL_BYTES) {
      dropped += 1;
      continue;
    }
    total += size;
    result[name] = bounded;
  }
  return { headers: result, cut, dropped };
}

/**
 * Copies the original bytes to the dead-letter topic with why and where they came from; value,
 * key, headers and detail are bounded (and marked when cut) so that parking cannot fail on size.
 */
export async function sendToDeadLetter(producer: Producer, deadLetterTopic: string, letter: DeadLetter): Promise<void> {
  const oversized = letter.value !== null && letter.value.length > MAX_DEAD_LETTER_VALUE_BYTES;
  const longKey = letter.key !== null && letter.key.length > MAX_DEAD_LETTER_KEY_BYTES;
  const copied = boundedHeaders(letter.headers);
  await producer.send({
    topic: deadLetterTopic,
    acks: -1,
    messages: [
      {
        key: longKey ? truncateBytes(letter.key!, MAX_DEAD_LETTER_KEY_BYTES) : letter.key,
        value: oversized ? letter.value!.subarray(0, MAX_DEAD_LETTER_VALUE_BYTES) : letter.value,
        headers: {
          ...copied.headers,
          ...(oversized ? { [DeadLetterHeaders.originalBytes]: String(letter.value!.length) } : {}),
          ...(longKey ? { [DeadLetterHeaders.originalKeyBytes]: String(letter.key!.length) } : {}),
          ...(copied.cut + copied.dropped > 0
            ? { [DeadLetterHeaders.headersTruncated]: `${copied.cut} cut, ${copied.dropped} left out` }
            : {}),
          [DeadLetterHeaders.reason]: letter.reason,
          [DeadLetterHeaders.detail]: truncateText(letter.detail, MAX_DEAD_LETTER_DETAIL_BYTES),
          [DeadLetterHeaders.originTopic]: letter.topic,
          [DeadLetterHeaders.originPartition]: String(letter.partition),
          [DeadLetterHeaders.originOffset]: letter.offset,
          [DeadLetterHeaders.consumerGroup]: letter.group,
          [DeadLetterHeaders.failedAt]: new Date().toISOString(),
        },
      },
    ],
  });
}
