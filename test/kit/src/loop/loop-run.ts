/**
 * One closed-loop run on the real local stack: a run directory, a namespace, the reference RAG pair
 * as two processes, the probe file, the four workers as processes, and the recorder that follows
 * the three topics and the workers' `[HEALING]` lines. The demo, the healing benchmark and the loop
 * integration tests all start the immune system this way.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino, destination } from 'pino';
import { busConfigFromEnv } from '@rag-immune/bus';
import { loadStackConfig, repoRoot, stackEndpoints, type StackEndpoints } from '@rag-immune/stack';
import { startRagPairProcesses, type RagPairProcesses } from './rag-pair.ts';
import { startLangchainRagPairProcesses, type LangchainRagPairOptions } from './langchain-rag-pair.ts';
import { selectLoopProbes, writeProbeFile, type LoopProbes } from './probes.ts';
import { ImmuneSystem, type ImmuneSystemOptions, type WorkerKind } from './immune-system.ts';
import { LoopRecorder } from './timeline.ts';
import { waitForResults } from './wait-for-results.ts';
import { newNamespace, removeNamespace, removeSnapshots } from './namespace.ts';
import { startTraceIntakeProcess, type TraceIntakeProcess } from './trace-intake.ts';
import type { TrialContext } from './trial.ts';

export interface LoopRunOptions {
  /** Names the run directory and the namespace. */
  label: string;
  packages?: number;
  probeCount?: number;
  probeIntervalSeconds?: number;
  effectorMode?: ImmuneSystemOptions['effectorMode'];
  replicas?: ImmuneSystemOptions['replicas'];
  only?: ImmuneSystemOptions['only'];
  env?: ImmuneSystemOptions['env'];
  /** Where the consuming workers remember handled events (default memory; `elasticsearch` for replicas). */
  processedEvents?: ImmuneSystemOptions['processedEvents'];
  /** Progress lines for a person (the demo); default silent. */
  say?: (line: string) => void;
  /** Run directory (default `.runs/<UTC time>-<namespace>`). */
  runDir?: string;
  /** Keep the namespace's topics, indices and collections after close (to inspect them). */
  keepNamespace?: boolean;
  /**
   * The RAG under watch: the reference RAG (default), or the LangChain RAG on Gemma (its traces only
   * through the intake, both sides sampling; options of ./langchain-rag-pair.ts).
   */
  rag?: { kind: 'reference' } | ({ kind: 'langchain' } & Pick<LangchainRagPairOptions, 'modelPath' | 'samplesPerProbe' | 'sampleAlpha'>);
  /**
   * Live traffic as the sentinel's second input (issue 38, reference RAG): the trace intake runs as
   * a process, the online RAG exports every answer's spans to it, and the sentinel's traffic watcher
   * is on (TRAFFIC_WATCH=1, loop-sized settings below, `sentinelEnv` over them). Users are the
   * caller's: a TrafficGenerator against `rag.onlineUrl` (./traffic-trial.ts).
   */
  traffic?: { sentinelEnv?: Record<string, string> };
}

/**
 * The traffic watcher's settings in a loop run: the README's defaults are for production volumes
 * (30 answers to profile a segment, a poll every 2 s, FCS on a fifth of the answers); a loop's
 * segments see a few answers a second, on a shared 2-core machine. The alarm budget is the default's.
 */
export const LOOP_TRAFFIC_ENV: Readonly<Record<string, string>> = {
  TRAFFIC_WATCH: '1',
  TRAFFIC_POLL_MS: '1000',
  TRAFFIC_SETTLE_MS: '1500',
  TRAFFIC_VISIBILITY_MS: '1000',
  TRAFFIC_PROFILE_ANSWERS: '10',
  TRAFFIC_FCS_SHARE: '0.1',
  // A loop trial must not wait the production cool-down before a segment it rejected may alarm again.
  TRAFFIC_COOLDOWN_S: '60',
};

/** Per-kind worker variables: the RAG pair's first, the run's own options over them. */
function mergeWorkerEnv(...layers: (ImmuneSystemOptions['env'] | undefined)[]): ImmuneSystemOptions['env'] {
  const merged: NonNullable<ImmuneSystemOptions['env']> = {};
  for (const layer of layers)
    for (const [kind, env] of Object.entries(layer ?? {}) as [WorkerKind, Record<string, string>][])
      merged[kind] = { ...merged[kind], ...env };
  return merged;
}

export class LoopRun {
  readonly namespace: string;
  readonly runDir: string;
  readonly endpoints: StackEndpoints;
  rag!: RagPairProcesses;
  probes!: LoopProbes;
  system!: ImmuneSystem;
  recorder!: LoopRecorder;
  /** The trace intake, when the run watches traffic. */
  intake?: TraceIntakeProcess;
  readonly startedAt = Date.now();

  constructor(readonly options: LoopRunOptions) {
    this.namespace = newNamespace(options.label);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
    this.runDir = options.runDir ?? join(repoRoot(), '.runs', `${stamp}-${this.namespace}`);
    mkdirSync(this.runDir, { recursive: true });
    this.endpoints = stackEndpoints(loadStackConfig());
  }

  get probeIntervalMs(): number {
    return (this.options.probeIntervalSeconds ?? 4) * 1000;
  }

  get context(): TrialContext {
    return {
      onlineUrl: this.rag.onlineUrl,
      recorder: this.recorder,
      probes: this.probes,
      probeIntervalMs: this.probeIntervalMs,
      onlineIndex: {
        qdrantUrl: this.endpoints.qdrantUrl,
        qdrantApiKey: this.endpoints.qdrantApiKey,
        collection: this.rag.collections.online,
        ...this.rag.payloadLayout,
      },
      redeployOnline: (env) => this.redeployOnline(env),
      // The LangChain RAG has no fault API: its stale feed is an operator's deploy.
      faultApi: this.options.rag?.kind !== 'langchain',
      // The LangChain RAG samples its answers: its fault effect would be checked on retrieval, which
      // costs two rounds of Gemma calls per trial; its trials inject faults that always do harm.
      faultEffectCheck: this.options.rag?.kind === 'langchain' ? 'off' : 'answers',
    };
  }

  private startRagPair(packages: number): Promise<RagPairProcesses> {
    const rag = this.options.rag ?? { kind: 'reference' };
    const common = {
      qdrantUrl: this.endpoints.qdrantUrl,
      qdrantApiKey: this.endpoints.qdrantApiKey,
      packages,
      label: this.namespace,
      runDir: this.runDir,
    };
    if (rag.kind === 'reference')
      return startRagPairProcesses({ ...common, ...(this.intake ? { otlpTracesUrl: this.intake.tracesUrl } : {}) });
    const { kind: _kind, ...sampling } = rag;
    return startLangchainRagPairProcesses({ ...common, ...sampling, elasticsearchUrl: this.endpoints.elasticsearchUrl });
  }

  async start(): Promise<void> {
    const say = this.options.say ?? (() => undefined);
    const packages = this.options.packages ?? 25;
    const ragName =
      this.options.rag?.kind === 'langchain' ? 'LangChain RAG on Gemma 3 270M (sampling; traces via the intake)' : 'reference RAG';
    // The LangChain pair runs its own intake under the run's namespace (every answer's spans go there):
    // the watcher reads its users' index, so only the reference pair needs one started here.
    if (this.options.traffic && this.options.rag?.kind !== 'langchain') {
      this.intake = await startTraceIntakeProcess({ runDir: this.runDir, endpoints: this.endpoints, namespace: this.namespace });
      say(`trace intake ${this.intake.tracesUrl} (users' spans redacted into ${this.namespace}-otlp-user-spans)`);
    }
    say(`${ragName} pair (online + baseline frozen now), ${packages} Debian packages, separate processes`);
    this.rag = await this.startRagPair(packages);
    say(`online ${this.rag.onlineUrl}  baseline ${this.rag.baselineUrl}  (${this.rag.knowledgeIds.size} knowledge ids)`);
    this.probes = selectLoopProbes(this.rag.knowledgeIds, this.options.probeCount ?? 10);
    const probesFile = join(this.runDir, 'probes.jsonl');
    writeProbeFile(probesFile, this.probes.probes);
    this.system = new ImmuneSystem({
      runDir: this.runDir,
      endpoints: this.endpoints,
      namespace: this.namespace,
      onlineUrl: this.rag.onlineUrl,
      baselineUrl: this.rag.baselineUrl,
      onlineCollection: this.rag.collections.online,
      probesFile,
      probeIntervalSeconds: this.options.probeIntervalSeconds ?? 4,
      effectorMode: this.options.effectorMode ?? 'auto',
      ...(this.options.replicas ? { replicas: this.options.replicas } : {}),
      env: mergeWorkerEnv(
        this.rag.workerEnv,
        this.options.traffic
          ? {
              sentinel: {
                ...LOOP_TRAFFIC_ENV,
                // Promoted replays re-run at the golden probes' pace: their clean results close the incident.
                TRAFFIC_PROMOTED_INTERVAL_S: String(this.options.probeIntervalSeconds ?? 4),
                ...this.options.traffic.sentinelEnv,
              },
            }
          : undefined,
        this.options.env,
      ),
      ...(this.options.only ? { only: this.options.only } : {}),
      ...(this.options.processedEvents ? { processedEvents: this.options.processedEvents } : {}),
    });
    const busConfig = busConfigFromEnv({ ...this.system.commonEnv() }, 'loop-recorder');
    const harnessLog = pino({ level: 'info' }, destination({ dest: join(this.runDir, 'harness.log'), sync: false }));
    this.recorder = new LoopRecorder(busConfig, () => this.system.processes(), harnessLog);
    await this.recorder.start();
    say(
      `workers: memory, identifier, effector (${this.options.effectorMode ?? 'auto'}), sentinel (${this.probes.probes.length} probes every ${this.options.probeIntervalSeconds ?? 4} s); logs in ${this.runDir}`,
    );
    await this.system.start();
  }

  /** Waits for `rounds` full probe rounds; returns anomalies, reports and actions seen meanwhile. */
  async cleanRounds(rounds: number): Promise<{ anomalies: number; reports: number; actions: number; results: number }> {
    const since = Date.now();
    const counts = () => ({
      anomalies: this.recorder.probes.filter((p) => p.receivedAt >= since && p.event.anomaly).length,
      reports: this.recorder.reports.filter((r) => r.receivedAt >= since).length,
      actions: this.recorder.actions.filter((a) => a.receivedAt >= since).length,
      results: this.recorder.probes.filter((p) => p.receivedAt >= since).length,
    });
    const baseMs = this.probeIntervalMs * (rounds + 2) + 60_000;
    await waitForResults({
      count: () => counts().results,
      wanted: rounds * this.probes.probes.length,
      baseMs,
      // A sampled round on a busy machine: go on while results still come, up to twice the window more.
      stallMs: this.probeIntervalMs * 2 + 60_000,
      capMs: baseMs * 3,
    });
    return counts();
  }

  /**
   * The sentinel's real period on this machine: the median time between two results of the same probe
   * (the configured interval plus jitter, stretched when the machine is busy).
   */
  observedProbePeriodMs(): number {
    const last = new Map<string, number>();
    const gaps: number[] = [];
    for (const { event } of this.recorder.probes) {
      const previous = last.get(event.probe_id);
      if (previous !== undefined) gaps.push(event.occurred_at - previous);
      last.set(event.probe_id, event.occurred_at);
    }
    if (gaps.length === 0) return this.probeIntervalMs;
    gaps.sort((a, b) => a - b);
    return gaps[Math.floor(gaps.length / 2)]!;
  }

  /** Waits until every incident the run has seen so far is closed; false on timeout. */
  async allIncidentsClosed(timeoutMs: number): Promise<boolean> {
    return this.incidentsClosed([...new Set(this.recorder.reports.map((r) => r.event.incident_id))], timeoutMs);
  }

  /** Waits for the identifier's "incident closed" [HEALING] line of each incident; false on timeout. */
  async incidentsClosed(incidents: string[], timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      this.recorder.pollLogs();
      const closed = new Set(
        this.recorder.healing.filter((h) => h.worker.startsWith('identifier') && /closed/.test(h.message)).map((h) => h.incidentId),
      );
      if (incidents.every((id) => closed.has(id))) return true;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return false;
  }

  /**
   * A fresh online RAG (no fault, no repair) on the same URL while the identifier, effector and memory
   * keep running; the sentinel pauses meanwhile so that the restart itself is not an incident.
   */
  async resetOnline(): Promise<void> {
    await this.sentinelPaused(() => this.rag.resetOnline());
  }

  /**
   * The online RAG redeployed with changed settings (a deploy fault). The sentinel pauses over the
   * restart as over a rolling deploy that never drops a call: what it then sees is the new build, not
   * the restart.
   */
  async redeployOnline(env: Record<string, string>): Promise<void> {
    await this.sentinelPaused(() => this.rag.redeployOnline(env));
  }

  private async sentinelPaused(work: () => Promise<void>): Promise<void> {
    const sentinels = this.system.instances.filter((w) => w.kind === 'sentinel');
    for (const s of sentinels) await s.process.stop();
    try {
      await work();
    } finally {
      for (const s of sentinels) await s.process.start();
    }
  }

  async close(): Promise<void> {
    await this.recorder?.stop().catch(() => undefined);
    await this.system?.stop().catch(() => undefined);
    if (this.rag && !this.options.keepNamespace) await removeSnapshots(this.endpoints, Object.values(this.rag.collections));
    await this.rag?.close().catch(() => undefined);
    await this.intake?.process.stop().catch(() => undefined);
    if (!this.options.keepNamespace) await removeNamespace(this.endpoints, this.namespace);
  }
}
