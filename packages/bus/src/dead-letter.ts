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
} as const;

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

/** Copies the original bytes unchanged to the dead-letter topic with why and where they came from. */
export async function sendToDeadLetter(producer: Producer, deadLetterTopic: string, letter: DeadLetter): Promise<void> {
  const oversized = letter.value !== null && letter.value.length > MAX_DEAD_LETTER_VALUE_BYTES;
  await producer.send({
    topic: deadLetterTopic,
    acks: -1,
    messages: [
      {
        key: letter.key,
        value: oversized ? letter.value!.subarray(0, MAX_DEAD_LETTER_VALUE_BYTES) : letter.value,
        headers: {
          ...letter.headers,
          ...(oversized ? { [DeadLetterHeaders.originalBytes]: String(letter.value!.length) } : {}),
          [DeadLetterHeaders.reason]: letter.reason,
          [DeadLetterHeaders.detail]: letter.detail.slice(0, 2000),
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
