import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';
import type { BusConfig } from './config.ts';

/** A kafkajs client whose own log lines go through the worker's pino logger. */
export function createKafka(config: Pick<BusConfig, 'clientId' | 'brokers'>, logger?: Logger): Kafka {
  return new Kafka({
    clientId: config.clientId,
    brokers: config.brokers,
    connectionTimeout: 3000,
    retry: { initialRetryTime: 300, retries: 8 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log }: LogEntry) => {
        if (logger === undefined) return;
        const { message, ...fields } = log;
        if (level === logLevel.ERROR) logger.error({ kafkajs: fields }, message);
        else if (level === logLevel.WARN) logger.warn({ kafkajs: fields }, message);
        else logger.debug({ kafkajs: fields }, message);
      },
  });
}
