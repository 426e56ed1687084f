/**
 * The four workers of one loop run, each its own child process with the run's settings: a unique
 * BUS_TOPIC_PREFIX and ES_INDEX_PREFIX (so concurrent runs never see each other), consumer groups of
 * its own, logs to files under the run directory. Any worker can be SIGKILLed and restarted, and the
 * identifier and effector can run as several replicas (members of one consumer group).
 */
import { join } from 'node:path';
import { qdrantEnv } from '@rag-immune/stack';
import { randomBytes } from 'node:crypto';
import type { StackEndpoints } from '@rag-immune/stack';
import { ManagedProcess, freePort, logMessage } from '../processes.ts';

export type WorkerKind = 'sentinel' | 'identifier' | 'effector' | 'memory';
export const WORKER_KINDS: readonly WorkerKind[] = ['memory', 'identifier', 'effector', 'sentinel'];

export interface ImmuneSystemOptions {
  runDir: string;
  endpoints: StackEndpoints;
  /** Unique per run: topic prefix `<namespace>.`, ES index / Qdrant collection prefix `<namespace>`. */
  namespace: string;
  onlineUrl: string;
  baselineUrl: string;
  /** The online RAG's Qdrant collection (what the effector snapshots before touching it). */
  onlineCollection: string;
  probesFile: string;
  probeIntervalSeconds: number;
  effectorMode?: 'observe' | 'approve' | 'auto';
  replicas?: Partial<Record<WorkerKind, number>>;
  /** Start only these kinds (default all four). */
  only?: WorkerKind[];
  /** Extra or overriding variables per worker kind (test hooks, thresholds). */
  env?: Partial<Record<WorkerKind, Record<string, string>>>;
  /**
   * BUS_PROCESSED_EVENTS of the consuming workers (identifier, effector, memory): `elasticsearch` shares
   * their handled events between replicas and restarts; default each process's own memory.
   */
  processedEvents?: 'memory' | 'elasticsearch';
}

/** The workers that consume events as a group (the sentinel only publishes). */
const CONSUMERS: readonly WorkerKind[] = ['identifier', 'effector', 'memory'];

export interface WorkerInstance {
  kind: WorkerKind;
  name: string;
  port: number;
  process: ManagedProcess;
  url: string;
}

const ENTRY: Record<WorkerKind, string> = {
  sentinel: 'services/sentinel/src/main.ts',
  identifier: 'services/identifier/src/main.ts',
  effector: 'services/effector/src/main.ts',
  memory: 'services/memory/src/main.ts',
};

export class ImmuneSystem {
  readonly instances: WorkerInstance[] = [];
  /** Bearer tokens of the workers' HTTP APIs (CLI-style calls from tests). */
  readonly tokens: Record<WorkerKind, string>;
  private memoryPort = 0;
  private identifierPort = 0;

  constructor(readonly options: ImmuneSystemOptions) {
    const token = () => randomBytes(16).toString('hex');
    this.tokens = { sentinel: token(), identifier: token(), effector: token(), memory: token() };
  }

  get topicPrefix(): string {
    return `${this.options.namespace}.`;
  }

  get indexPrefix(): string {
    return this.options.namespace;
  }

  /** The variables every worker gets: the stack and the run's namespace. */
  commonEnv(): Record<string, string> {
    const { endpoints } = this.options;
    return {
      KAFKA_BROKERS: endpoints.kafkaBrokers.join(','),
      SCHEMA_REGISTRY_URL: endpoints.schemaRegistryUrl,
      ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
      ...qdrantEnv(endpoints),
      BUS_TOPIC_PREFIX: this.topicPrefix,
      ES_INDEX_PREFIX: this.indexPrefix,
      LOG_LEVEL: 'info',
    };
  }

  /** A worker's own variables (names from each worker's config.ts / README). */
  workerEnv(kind: WorkerKind, port: number, name: string = kind): Record<string, string> {
    const o = this.options;
    const group = `${o.namespace}-${kind}`;
    const base: Record<WorkerKind, Record<string, string>> = {
      sentinel: {
        SENTINEL_ONLINE_RAG_URL: o.onlineUrl,
        SENTINEL_BASELINE_RAG_URL: o.baselineUrl,
        SENTINEL_PROBES_FILE: o.probesFile,
        SENTINEL_INTERVAL_SECONDS: String(o.probeIntervalSeconds),
        SENTINEL_JITTER: '0.1',
        SENTINEL_CALL_TIMEOUT_MS: '30000',
        SENTINEL_HOST: '127.0.0.1',
        SENTINEL_PORT: String(port),
      },
      identifier: {
        IDENTIFIER_ONLINE_RAG_URL: o.onlineUrl,
        IDENTIFIER_BASELINE_RAG_URL: o.baselineUrl,
        IDENTIFIER_HOST: '127.0.0.1',
        IDENTIFIER_PORT: String(port),
        IDENTIFIER_API_TOKEN: this.tokens.identifier,
        IDENTIFIER_GROUP_ID: group,
        // An incident with a single anomalous result waits this long for more before it is reported.
        IDENTIFIER_MAX_WAIT_SECONDS: String(Math.max(20, o.probeIntervalSeconds * 4)),
      },
      effector: {
        EFFECTOR_ONLINE_RAG_URL: o.onlineUrl,
        EFFECTOR_BASELINE_RAG_URL: o.baselineUrl,
        EFFECTOR_QDRANT_COLLECTION: o.onlineCollection,
        ...(o.endpoints.qdrantSnapshotsPath ? { EFFECTOR_QDRANT_SNAPSHOTS_PATH: o.endpoints.qdrantSnapshotsPath } : {}),
        EFFECTOR_MEMORY_URL: `http://127.0.0.1:${this.memoryPort}`,
        EFFECTOR_MEMORY_TOKEN: this.tokens.memory,
        EFFECTOR_MODE: o.effectorMode ?? 'auto',
        EFFECTOR_HOST: '127.0.0.1',
        EFFECTOR_PORT: String(port),
        EFFECTOR_API_TOKEN: this.tokens.effector,
        EFFECTOR_GROUP_ID: group,
        // A restarted replica resumes the actions it owned (its name is stable across restarts).
        EFFECTOR_INSTANCE_ID: '__NAME__',
        EFFECTOR_LEASE_MS: '60000',
        // Every report is admitted against the identifier's own record, as in production.
        ...(this.identifierPort > 0
          ? { EFFECTOR_IDENTIFIER_URL: `http://127.0.0.1:${this.identifierPort}`, EFFECTOR_IDENTIFIER_TOKEN: this.tokens.identifier }
          : {}),
      },
      memory: {
        MEMORY_HOST: '127.0.0.1',
        MEMORY_PORT: String(port),
        MEMORY_API_TOKEN: this.tokens.memory,
        MEMORY_GROUP_ID: group,
      },
    };
    // A replica SIGKILLed mid-handling holds its claim on the event for the lease: 30 s, not 5 minutes, in a test.
    const processed: Record<string, string> =
      o.processedEvents && CONSUMERS.includes(kind)
        ? { BUS_PROCESSED_EVENTS: o.processedEvents, BUS_PROCESSED_EVENTS_LEASE_MS: '30000' }
        : {};
    const env = { ...this.commonEnv(), ...processed, ...base[kind], ...(o.env?.[kind] ?? {}) };
    for (const [key, value] of Object.entries(env)) if (value === '__NAME__') env[key] = name;
    return env;
  }

  private async instance(kind: WorkerKind, index: number, count: number): Promise<WorkerInstance> {
    const port = await freePort();
    if (kind === 'memory' && index === 1) this.memoryPort = port;
    if (kind === 'identifier' && index === 1) this.identifierPort = port;
    const name = count > 1 ? `${kind}-${index}` : kind;
    const proc = new ManagedProcess({
      name,
      entry: ENTRY[kind],
      env: this.workerEnv(kind, port, name),
      logFile: join(this.options.runDir, `${name}.log`),
      ready: logMessage(`${kind} listening`),
      healthPort: () => port,
      startTimeoutMs: 300_000,
    });
    return { kind, name, port, process: proc, url: `http://127.0.0.1:${port}` };
  }

  /**
   * Starts memory first (the effector asks it), then the identifier and effector replicas, the
   * sentinel last, so that no consumer starts after the first anomaly was published.
   */
  async start(): Promise<void> {
    for (const kind of WORKER_KINDS.filter((k) => this.options.only?.includes(k) ?? true)) {
      const count = this.options.replicas?.[kind] ?? 1;
      for (let i = 1; i <= count; i += 1) this.instances.push(await this.instance(kind, i, count));
    }
    const startAll = (kinds: WorkerKind[]) =>
      Promise.all(this.instances.filter((w) => kinds.includes(w.kind)).map((w) => w.process.start()));
    try {
      await startAll(['memory']);
      await startAll(['identifier', 'effector']);
      await startAll(['sentinel']);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  worker(name: string): WorkerInstance {
    const found = this.instances.find((w) => w.name === name);
    if (found === undefined) throw new Error(`no worker ${name}; have ${this.instances.map((w) => w.name).join(', ')}`);
    return found;
  }

  processes(): ManagedProcess[] {
    return this.instances.map((w) => w.process);
  }

  async kill(name: string): Promise<void> {
    await this.worker(name).process.kill();
  }

  async restart(name: string, env: Record<string, string | undefined> = {}): Promise<void> {
    await this.worker(name).process.restart(env);
  }

  /** Graceful stop, sentinel first (no new anomalies while the others finish). */
  async stop(): Promise<void> {
    const order: WorkerKind[] = ['sentinel', 'identifier', 'effector', 'memory'];
    for (const kind of order) await Promise.all(this.instances.filter((w) => w.kind === kind).map((w) => w.process.stop()));
  }
}
