/**
 * Test harness on the real stack: an isolated namespace (topic prefix, ES index prefix), the
 * identifier's environment, a report collector on the real reports topic, the identifier run as
 * its own process, and cleanup of what the test created.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { EventBus, busDefaults, parseBusConfig, type BusConfig } from '@rag-immune/bus';
import type { RootCauseReport } from '@rag-immune/contracts';
import { endpoints } from '../stack.ts';

export interface Namespace {
  run: string;
  topicPrefix: string;
  indexPrefix: string;
  busConfig: BusConfig;
}

export function namespace(label: string): Namespace {
  const run = randomUUID().slice(0, 8);
  const topicPrefix = `it-${label}-${run}-`;
  return {
    run,
    topicPrefix,
    indexPrefix: `it-${label}-${run}`,
    busConfig: parseBusConfig({
      ...busDefaults('development'),
      clientId: `it-${label}-${run}`,
      brokers: endpoints.kafkaBrokers,
      schemaRegistryUrl: endpoints.schemaRegistryUrl,
      topicPrefix,
    }),
  };
}

export function identifierEnv(
  ns: Namespace,
  rag: { online: string; baseline: string },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
    SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
    BUS_TOPIC_PREFIX: ns.topicPrefix,
    ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
    ES_INDEX_PREFIX: ns.indexPrefix,
    IDENTIFIER_ONLINE_RAG_URL: rag.online,
    IDENTIFIER_BASELINE_RAG_URL: rag.baseline,
    IDENTIFIER_GROUP_ID: `it-identifier-${ns.run}`,
    IDENTIFIER_PORT: '0',
    IDENTIFIER_CLEAN_ROUNDS_TO_CLOSE: '1',
    IDENTIFIER_MAX_WAIT_SECONDS: '20',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Every report published in the namespace, from the beginning of the topic. */
export async function collectReports(ns: Namespace): Promise<{ reports: RootCauseReport[]; bus: EventBus }> {
  const bus = new EventBus(ns.busConfig);
  await bus.start(['probes', 'reports', 'actions']);
  const reports: RootCauseReport[] = [];
  await bus.subscribe({
    topic: 'reports',
    groupId: `it-reports-${ns.run}`,
    fromBeginning: true,
    onPoison: 'skip',
    handle: async (report) => void reports.push(report),
  });
  return { reports, bus };
}

/** The identifier as its own process (npx tsx services/identifier/src/main.ts); resolves once it logs "identifier listening". */
export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  logs: string[];
  stop(): Promise<void>;
}

/** A deployable run as its own process, resolved once it logs `<name> listening` with its port. */
async function spawnService(name: string, entry: string, env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  let buffer = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${logs.slice(-5).join('\n')}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        logs.push(line);
        try {
          const parsed = JSON.parse(line) as { msg?: string; port?: number };
          if (parsed.msg === `${name} listening` && parsed.port) {
            clearTimeout(timer);
            resolve(parsed.port);
          }
        } catch {
          // not JSON: keep it in the logs
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}: ${logs.slice(-5).join('\n')}`));
    });
  });
  return {
    child,
    port,
    logs,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export function spawnIdentifier(env: Record<string, string>): Promise<ServiceProcess> {
  return spawnService('identifier', 'services/identifier/src/main.ts', env);
}

/** The trace intake as the deployable it is (a service's tests never import another service). */
export function spawnTraceIntake(env: Record<string, string>): Promise<ServiceProcess> {
  return spawnService('trace intake', 'services/trace-intake/src/main.ts', env);
}

/** Drops the namespace's ES indices and Kafka topics. */
export async function cleanup(ns: Namespace): Promise<void> {
  const es = new Client({ node: endpoints.elasticsearchUrl });
  await es.indices.delete({ index: `${ns.indexPrefix}-*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
  await es.close();
  const bus = new EventBus(ns.busConfig);
  const admin = bus.kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(ns.topicPrefix));
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
  } finally {
    await admin.disconnect();
  }
}
