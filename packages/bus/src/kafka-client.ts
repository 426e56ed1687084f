import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Kafka, logLevel, type LogEntry, type SASLOptions } from 'kafkajs';
import type { Logger } from 'pino';
import type { BusConfig } from './config.ts';

/** kafkajs TLS options from the configured PEM files (read once, at client creation). */
export function kafkaSslOptions(ssl: NonNullable<BusConfig['ssl']>): ConnectionOptions {
  return {
    rejectUnauthorized: ssl.rejectUnauthorized,
    ...(ssl.caFile ? { ca: [readFileSync(ssl.caFile, 'utf8')] } : {}),
    ...(ssl.certFile ? { cert: readFileSync(ssl.certFile, 'utf8') } : {}),
    ...(ssl.keyFile ? { key: readFileSync(ssl.keyFile, 'utf8') } : {}),
  };
}

/** A kafkajs client whose own log lines go through the worker's pino logger; TLS and SASL as configured. */
export function createKafka(
  config: Pick<BusConfig, 'clientId' | 'brokers'> & Partial<Pick<BusConfig, 'ssl' | 'sasl'>>,
  logger?: Logger,
): Kafka {
  return new Kafka({
    clientId: config.clientId,
    brokers: config.brokers,
    ...(config.ssl ? { ssl: kafkaSslOptions(config.ssl) } : {}),
    ...(config.sasl ? { sasl: { ...config.sasl } as SASLOptions } : {}),
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
