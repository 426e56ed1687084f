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
    .description(`Print messages parked in ${DEAD_LETTER_TOPIC} with why and where they came from`)
    .option('--max <n>', 'stop after n messages', parseCount)
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
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          const header = (name: string) => message.headers?.[name]?.toString() ?? null;
          const letter = {
            partition,
            offset: message.offset,
            reason: header(DeadLetterHeaders.reason),
            detail: header(DeadLetterHeaders.detail),
            origin: {
              topic: header(DeadLetterHeaders.originTopic),
              partition: header(DeadLetterHeaders.originPartition),
              offset: header(DeadLetterHeaders.originOffset),
            },
            failedAt: header(DeadLetterHeaders.failedAt),
            bytes: message.value?.length ?? 0,
          };
          emit(
            options.json,
            letter,
            () =>
              `${letter.failedAt} ${letter.reason} from ${letter.origin.topic}[${letter.origin.partition}]@${letter.origin.offset}: ${letter.detail}`,
          );
          progress.count();
        },
      });
      await progress.done;
      await consumer.disconnect();
    });

  return events;
}
