import { Command, InvalidArgumentError } from 'commander';
import { EventBus, DEAD_LETTER_TOPIC, DeadLetterHeaders, topicNameOf } from '@rag-immune/bus';
import { Topics, topicIds, type TopicId } from '@rag-immune/contracts';
import { randomUUID } from 'node:crypto';
import { cliBusConfig } from '../connection.ts';
import { emit } from '../output.ts';
import { CliError, ExitCode } from '../exit-codes.ts';

function parseTopic(value: string): TopicId {
  const match = topicIds.find((id) => id === value || Topics[id].name === value);
  if (match === undefined)
    throw new InvalidArgumentError(`unknown topic "${value}"; expected one of ${topicIds.join(', ')} or their full names`);
  return match;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** Resolves after `max` events or `timeoutMs` of silence, whichever comes first. */
function untilDone(max: number | undefined, idleMs: number | undefined) {
  let seen = 0;
  let timer: NodeJS.Timeout | undefined;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const arm = () => {
    if (idleMs === undefined) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(finish, idleMs);
  };
  arm();
  return {
    done,
    count(): void {
      seen += 1;
      if (max !== undefined && seen >= max) finish();
      else arm();
    },
    get seen() {
      return seen;
    },
  };
}

/** One dead letter as read from the topic: each consumer group that fails a message parks its own copy. */
export interface ParkedLetter {
  partition: number;
  offset: string;
  reason: string | null;
  detail: string | null;
  origin: { topic: string | null; partition: string | null; offset: string | null };
  group: string | null;
  failedAt: string | null;
  bytes: number;
}

/** A poison message once, with every group that parked it (and why, if the groups disagree). */
export interface PoisonMessage {
  origin: ParkedLetter['origin'];
  reason: string | null;
  detail: string | null;
  bytes: number;
  firstFailedAt: string | null;
  groups: { group: string | null; reason: string | null; failedAt: string | null; partition: number; offset: string }[];
}

/** Folds the copies of one poison message (same origin topic, partition and offset) into one entry, in first-seen order. */
export function groupDeadLetters(letters: readonly ParkedLetter[]): PoisonMessage[] {
  const byOrigin = new Map<string, PoisonMessage>();
  for (const letter of letters) {
    const key = `${letter.origin.topic}\u0000${letter.origin.partition}\u0000${letter.origin.offset}`;
    let message = byOrigin.get(key);
    if (message === undefined) {
      message = {
        origin: letter.origin,
        reason: letter.reason,
        detail: letter.detail,
        bytes: letter.bytes,
        firstFailedAt: letter.failedAt,
        groups: [],
      };
      byOrigin.set(key, message);
    }
    if (letter.failedAt !== null && (message.firstFailedAt === null || letter.failedAt < message.firstFailedAt))
      message.firstFailedAt = letter.failedAt;
    message.groups.push({
      group: letter.group,
      reason: letter.reason,
      failedAt: letter.failedAt,
      partition: letter.partition,
      offset: letter.offset,
    });
  }
  return [...byOrigin.values()];
}

export function eventsCommand(): Command {
  const events = new Command('events').description(
    'Read the immune system event topics (rag-sentinel-probes, rag-identifiers-reports, rag-effectors-actions)',
  );

  events
    .command('tail')
    .description('Print decoded events of a topic as they arrive')
    .argument('<topic>', `one of ${topicIds.join(', ')}`, parseTopic)
    .option('--from-beginning', 'start at the oldest retained event', false)
    .option('--max <n>', 'stop after n events', parseCount)
    .option('--idle-timeout <ms>', 'stop after this long without an event', parseCount)
    .option('--json', 'one JSON object per line', false)
    .action(async (topic: TopicId, options: { fromBeginning: boolean; max?: number; idleTimeout?: number; json: boolean }) => {
      const bus = new EventBus(cliBusConfig());
      await bus.start([topic]).catch((error: unknown) => {
        throw new CliError(`cannot reach Kafka or the schema registry: ${String(error)}`, ExitCode.unavailable);
      });
      const progress = untilDone(options.max, options.idleTimeout);
      await bus.subscribe({
        topic,
        // A throwaway group: tailing must never move a worker group's offsets.
        groupId: `immune-cli-tail-${randomUUID()}`,
        fromBeginning: options.fromBeginning,
        onPoison: 'skip',
        handle: async (event, delivery) => {
          emit(options.json, { partition: delivery.partition, offset: delivery.offset, key: delivery.key, event }, () =>
            [`${Topics[topic].name}[${delivery.partition}]@${delivery.offset} key=${delivery.key}`, JSON.stringify(event, null, 2)].join(
              '\n',
            ),
          );
          progress.count();
        },
      });
      await progress.done;
      await bus.stop();
    });

  events
    .command('dead-letters')
    .description(
      `Print the poison messages parked in ${DEAD_LETTER_TOPIC}, each once, with why, where it came from and the consumer groups that parked it`,
    )
    .option('--max <n>', 'stop after reading n dead letters', parseCount)
    .option('--idle-timeout <ms>', 'stop after this long without a message', parseCount, 5000)
    .option('--json', 'one JSON object per line', false)
    .action(async (options: { max?: number; idleTimeout: number; json: boolean }) => {
      const config = cliBusConfig();
      const bus = new EventBus(config);
      const consumer = bus.kafka.consumer({ groupId: `immune-cli-dead-letters-${randomUUID()}` });
      await consumer.connect().catch((error: unknown) => {
        throw new CliError(`cannot reach Kafka: ${String(error)}`, ExitCode.unavailable);
      });
      await consumer.subscribe({ topic: topicNameOf(config, 'deadLetter'), fromBeginning: true });
      const progress = untilDone(options.max, options.idleTimeout);
      const letters: ParkedLetter[] = [];
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          const header = (name: string) => message.headers?.[name]?.toString() ?? null;
          const letter: ParkedLetter = {
            partition,
            offset: message.offset,
            reason: header(DeadLetterHeaders.reason),
            detail: header(DeadLetterHeaders.detail),
            origin: {
              topic: header(DeadLetterHeaders.originTopic),
              partition: header(DeadLetterHeaders.originPartition),
              offset: header(DeadLetterHeaders.originOffset),
            },
            group: header(DeadLetterHeaders.consumerGroup),
            failedAt: header(DeadLetterHeaders.failedAt),
            bytes: Number(header(DeadLetterHeaders.originalBytes) ?? message.value?.length ?? 0),
          };
          letters.push(letter);
          progress.count();
        },
      });
      await progress.done;
      await consumer.disconnect();
      // Printed once read: the copies of one message (one per group) may lie in different partitions.
      for (const poison of groupDeadLetters(letters)) {
        emit(
          options.json,
          poison,
          () =>
            `${poison.firstFailedAt} ${poison.reason} from ${poison.origin.topic}[${poison.origin.partition}]@${poison.origin.offset} ` +
            `parked by ${poison.groups.map((g) => g.group ?? '?').join(', ')}: ${poison.detail}`,
        );
      }
    });

  return events;
}
