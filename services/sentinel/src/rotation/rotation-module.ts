/**
 * Assembles the probe-set rotation from its configuration and the sentinel's own parts: the probe
 * file, the bus (the probes topic is the probes' history), the online RAG's knowledge lookup, the
 * users' redacted traces in Elasticsearch (only with the traffic watcher's switch on), the identifier's
 * incidents, and the probe-set builder measuring candidates against the frozen baseline.
 */
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { EventBus } from '@rag-immune/bus';
import {
  ProbeCatalog,
  ProbeSetBuilder,
  defaultProbeSetOptions,
  parseProbeFile,
  readProbeHistory,
  type FactConsistencyPort,
  type RagPort,
} from '@rag-immune/probing';
import { defaultRedactor } from '@rag-immune/redaction';
import { RagHttpError } from '@rag-immune/rag-contract';
import { createElasticsearchClient, elasticsearchConnection } from '@rag-immune/worker-runtime';
import type { TrafficEnv } from '../traffic/config.ts';
import { UserTraceReader, userSpanIndex } from '../traffic/user-trace-reader.ts';
import type { RotationEnv } from './config.ts';
import { IdentifierIncidents } from './identifier-incidents.ts';
import { ProbeRotation, type RotationOptions, type RotationPorts } from './probe-rotation.ts';
import { ProposalStore } from './proposal.ts';
import { TrafficDigest } from './traffic-digest.ts';

export interface RotationParts {
  probesFile: string;
  bus: EventBus;
  /** The online RAG: its GET /knowledge/{id} says whether a probe's source is gone. */
  online: RagPort;
  /** The frozen baseline: the builder measures each candidate's answer and source against it. */
  baseline: RagPort;
  fcs: FactConsistencyPort;
  logger?: Logger;
  /** The running sentinel's switch to an accepted probe set. */
  applied?: RotationPorts['applied'];
}

export function proposalFile(config: Pick<RotationEnv, 'ROTATION_PROPOSAL_FILE'>, probesFile: string): string {
  return config.ROTATION_PROPOSAL_FILE ?? `${probesFile}.proposals.json`;
}

/** The users' query clusters of the window, read once from the intake's user spans (bounded by maxTraces). */
export async function readTrafficClusters(reader: Pick<UserTraceReader, 'poll'>, lowScore: number, maxTraces: number) {
  const digest = new TrafficDigest(lowScore);
  // The intake redacted the text already; redacting again costs little and keeps a pattern it missed out of the file.
  const redactor = defaultRedactor();
  for (let polls = 0; polls < 10_000 && digest.answers < maxTraces; polls++) {
    const { answers, unreadable } = await reader.poll();
    for (const answer of answers.slice(0, maxTraces - digest.answers))
      digest.add({ ...answer, trace: { ...answer.trace, query: redactor.redactText(answer.trace.query) } });
    if (answers.length === 0 && unreadable === 0) break;
  }
  return { answers: digest.answers, clusters: digest.clusters() };
}

export function probeRotation(config: RotationEnv, traffic: TrafficEnv, parts: RotationParts): ProbeRotation {
  return new ProbeRotation(
    rotationPorts(config, traffic, parts),
    new ProposalStore(proposalFile(config, parts.probesFile)),
    rotationOptions(config),
    parts.logger,
  );
}

export function rotationOptions(config: RotationEnv): RotationOptions {
  return {
    intervalMs: config.ROTATION_INTERVAL_DAYS * 86_400_000,
    minRuns: config.ROTATION_MIN_RUNS,
    unmovingAbove: config.ROTATION_UNMOVING_ABOVE,
    maxRetireShare: config.ROTATION_MAX_RETIRE_SHARE,
    minAsks: config.ROTATION_MIN_ASKS,
    fragileShare: config.ROTATION_FRAGILE_SHARE,
    maxFrequent: config.ROTATION_MAX_ADD_FREQUENT,
    maxFragile: config.ROTATION_MAX_ADD_FRAGILE,
  };
}

/** The rotation's ports on the real parts: probe file, probes topic, online RAG, user spans, identifier, builder. */
export function rotationPorts(config: RotationEnv, traffic: TrafficEnv, parts: RotationParts): RotationPorts {
  const incidents =
    config.ROTATION_IDENTIFIER_URL === undefined
      ? null
      : new IdentifierIncidents(config.ROTATION_IDENTIFIER_URL, config.ROTATION_IDENTIFIER_TOKEN);
  if (incidents === null)
    parts.logger?.warn('probe rotation: no ROTATION_IDENTIFIER_URL set; proposals are made without checking for open incidents');
  const es =
    traffic.TRAFFIC_WATCH === '1'
      ? createElasticsearchClient(elasticsearchConnection(traffic, { requestTimeoutMs: 30_000, maxRetries: 2 }))
      : null;
  const builderOptions = {
    ...defaultProbeSetOptions,
    runs: config.ROTATION_BUILDER_RUNS,
    fragilityThreshold: config.ROTATION_FRAGILITY,
    attributionShare: config.ROTATION_ATTRIBUTION,
  };
  const ports: RotationPorts = {
    ...(parts.applied ? { applied: parts.applied } : {}),
    loadCatalog: async () => {
      const text = await readFile(parts.probesFile, 'utf8');
      const probes = parseProbeFile(text, parts.probesFile);
      return { probes, text, active: ProbeCatalog.empty(parts.probesFile).withProbes(probes).active() };
    },
    saveCatalog: (probes) => ProbeCatalog.empty(parts.probesFile).withProbes(probes).save(),
    openIncidents: async () => (incidents === null ? [] : incidents.open()),
    history: async (sinceMs) => {
      const history = await readProbeHistory(parts.bus, sinceMs);
      return { fcs: history.fcs, flaggedSegments: new Set(history.trafficSegments.keys()) };
    },
    knowledgeExists: async (id) => {
      if (parts.online.knowledgeFreshness === undefined) return null;
      try {
        await parts.online.knowledgeFreshness(id, { timeoutMs: 10_000 });
        return true;
      } catch (error) {
        return error instanceof RagHttpError && error.status === 404 ? false : null;
      }
    },
    traffic: async (sinceMs) => {
      // The per-RAG switch: with the traffic watcher off, the users' traces are never read.
      if (es === null) return null;
      const reader = new UserTraceReader(es, {
        index: userSpanIndex(traffic.ES_INDEX_PREFIX),
        pageSize: 1000,
        maxPages: 20,
        settleMs: traffic.TRAFFIC_SETTLE_MS,
        incompleteWaitMs: traffic.TRAFFIC_INCOMPLETE_WAIT_MS,
        visibilityMs: traffic.TRAFFIC_VISIBILITY_MS,
        // The whole window is read, never jumped over.
        maxLagMs: Date.now() - sinceMs + 60_000,
        maxTracesPerPoll: 100_000,
        startAt: sinceMs,
      });
      return readTrafficClusters(reader, config.ROTATION_LOW_SCORE, config.ROTATION_MAX_TRACES);
    },
    vet: (candidates, size) =>
      new ProbeSetBuilder(
        {
          // Every candidate is a head query (headShare 1, clustered already): the builder never embeds.
          embed: () => Promise.reject(new Error('the rotation clusters candidates itself; no embedding is needed')),
          rag: parts.baseline,
          fcs: parts.fcs,
        },
        { ...builderOptions, size, headShare: 1, now: new Date() },
      ).build(candidates),
  };
  return ports;
}

/** Looks every ROTATION_CHECK_S whether a proposal is due; one look at a time. */
export function scheduleRotation(rotation: ProbeRotation, checkMs: number, logger?: Logger): { stop(): void } {
  let running = false;
  const look = () => {
    if (running) return;
    running = true;
    rotation
      .tick()
      .catch((error: unknown) => logger?.error({ err: error }, 'probe rotation check failed'))
      .finally(() => (running = false));
  };
  const timer = setInterval(look, checkMs);
  timer.unref?.();
  setTimeout(look, 1000).unref?.();
  return { stop: () => clearInterval(timer) };
}
