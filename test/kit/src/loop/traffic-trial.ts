/**
 * A fault trial under live traffic (issue 38): simulated users ask about some of the knowledge while
 * the loop runs; a data fault is written straight into the online collection on knowledge the users
 * ask about and that no golden probe covers; then the trial only watches: a ProbeResult with origin
 * traffic (the watcher flagged the segment and its shadow replay confirmed it), the identifier's
 * RootCauseReport, the effector's verified repair. The CI loop test, the traffic benchmark and the
 * demo share it.
 */
import type { ProbeResult } from '@rag-immune/contracts';
import { probesFromQuestions } from '@rag-immune/probing';
import { loadQuestions } from '@rag-immune/reference-rag/testing';
import { TrafficGenerator, type TrafficReport } from '../traffic/traffic-generator.ts';
import { UserQueryMix, seededRandom, type UserQuery, type UserQueryMixOptions } from '../traffic/user-queries.ts';
import { callFaultAdmin } from '@rag-immune/rag-contract';
import { sleep } from '../wait.ts';
import { harmedProbes, probeOutcomes } from './fault-effect.ts';
import { damageVectors, ingestUnpublishedVersion, swapDocumentIds, type OnlineIndex } from './operator-faults.ts';
import { STALE_AS_OF, type LoopProbes } from './probes.ts';
import { evaluateTrial, knownIncidents, type TrialContext, type TrialResult } from './trial.ts';

/**
 * The data faults a trial under traffic places on one knowledge id: the operator faults written
 * straight into Qdrant, and every knowledge-scoped fault of the reference RAG's fault API (scoped to
 * the one id; `kind:mode`).
 */
export const OPERATOR_TRAFFIC_FAULTS = [
  'vectors-overwritten:garbage',
  'vectors-overwritten:deleted',
  'unpublished-knowledge',
  'attribution-swap',
] as const;
export const FAULT_API_TRAFFIC_FAULTS = [
  'vector-index-corruption:zero',
  'vector-index-corruption:perturb',
  'vector-index-corruption:drop',
  'knowledge-source-failure:stale',
  'knowledge-source-failure:ingest-stalled',
  'parser-bug:merge-sections',
  'parser-bug:boilerplate',
  'generator-inconsistency:swap',
] as const;
export const TRAFFIC_FAULTS = [...OPERATOR_TRAFFIC_FAULTS, ...FAULT_API_TRAFFIC_FAULTS] as const;
export type TrafficFault = (typeof TRAFFIC_FAULTS)[number];

/** The golden probes' sources: a fault placed by a traffic trial never lands on one of them. */
export function goldenSources(probes: LoopProbes): Set<string> {
  return new Set(probes.probes.flatMap((p) => p.expected_sources));
}

/** A user query mix that counts, as it goes, how often each knowledge id was asked. */
export class CountingQueryMix extends UserQueryMix {
  readonly asked = new Map<string, number>();
  drawn = 0;

  override next(): UserQuery {
    const query = super.next();
    this.drawn += 1;
    if (query.knowledge_id !== null) this.asked.set(query.knowledge_id, (this.asked.get(query.knowledge_id) ?? 0) + 1);
    return query;
  }
}

export interface UserTrafficOptions {
  onlineUrl: string;
  /** The knowledge the users ask about (the labelled questions about it). */
  knowledgeIds: readonly string[];
  /** Requests per second. */
  rate: number;
  mix?: UserQueryMixOptions;
  maxInFlight?: number;
}

/** Simulated users against the online RAG until stopped (each call a plain user request: a user trace). */
export class UserTraffic {
  readonly mix: CountingQueryMix;
  private readonly abort = new AbortController();
  private readonly done: Promise<TrafficReport>;

  constructor(readonly options: UserTrafficOptions) {
    const ids = new Set(options.knowledgeIds);
    const questions = loadQuestions().filter((q) => ids.has(q.knowledge_id));
    if (questions.length === 0) throw new Error(`no labelled questions about ${[...ids].join(', ')}`);
    this.mix = new CountingQueryMix(questions, options.mix);
    this.done = new TrafficGenerator({
      mix: this.mix,
      rate: options.rate,
      maxRequests: Number.MAX_SAFE_INTEGER,
      maxDurationMs: 24 * 3_600_000,
      url: options.onlineUrl,
      headers: { 'user-agent': 'simulated-user' },
      maxInFlight: options.maxInFlight ?? 4,
      signal: this.abort.signal,
    }).run();
  }

  /** Stops sending; resolves with every request's outcome once the calls in flight are back. */
  stop(): Promise<TrafficReport> {
    this.abort.abort();
    return this.done;
  }
}

/** Knowledge ids with labelled questions, in a seeded random order (the users' interests). */
export function knowledgeWithQuestions(knowledgeIds: Iterable<string>, seed: number): string[] {
  const ids = new Set(knowledgeIds);
  const asked = [...new Set(loadQuestions().map((q) => q.knowledge_id))].filter((id) => ids.has(id)).sort();
  const random = seededRandom(seed);
  for (let i = asked.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [asked[i], asked[j]] = [asked[j]!, asked[i]!];
  }
  return asked;
}

export interface TrafficFaultPlan {
  fault: TrafficFault;
  /** The knowledge id the fault is placed on (never a golden probe's source). */
  target: string;
  /** attribution-swap: the other document (another asked, unprobed id). */
  partner?: string;
}

/**
 * Picks the fault's place at random among `candidates` (knowledge the users asked about often enough
 * for the watcher to know it) minus the golden probes' sources; throws when none is left.
 */
export function placeTrafficFault(
  fault: TrafficFault,
  candidates: readonly string[],
  probes: LoopProbes,
  random: () => number = Math.random,
  options: { excludeProbedPackages?: boolean } = {},
): TrafficFaultPlan {
  const golden = goldenSources(probes);
  // Stricter: no golden probe on any document of the same package either (a probe on changelog/x
  // retrieves apt/x's chunks too, and may see the fault before any user does).
  const probedPackages = new Set([...golden].map((id) => id.slice(id.indexOf('/') + 1)));
  const open = candidates.filter(
    (id) =>
      !golden.has(id) &&
      !(options.excludeProbedPackages === true && probedPackages.has(id.slice(id.indexOf('/') + 1))) &&
      // A knowledge source fails for the documents it feeds: the changelog feed is the one with versions that move.
      (!fault.startsWith('knowledge-source-failure') || id.startsWith('changelog/')),
  );
  if (open.length === 0) throw new Error(`no asked knowledge outside the golden probes' sources among ${candidates.join(', ')}`);
  const target = open[Math.floor(random() * open.length)]!;
  if (fault !== 'attribution-swap') return { fault, target };
  // A changelog and an apt document of two packages, as the golden-probe trials swap them.
  const subject = (id: string) => id.slice(id.indexOf('/') + 1);
  const family = (id: string) => id.slice(0, id.indexOf('/'));
  const others = open.filter((id) => id !== target && subject(id) !== subject(target));
  const partner = others.find((id) => family(id) !== family(target)) ?? others[0];
  if (partner === undefined) throw new Error('attribution-swap needs two asked, unprobed documents of two packages');
  return { fault, target, partner };
}

/** Whether the fault is made through the RAG's fault API (else it is written into Qdrant). */
export function isFaultApiTrafficFault(fault: TrafficFault): boolean {
  return (FAULT_API_TRAFFIC_FAULTS as readonly string[]).includes(fault);
}

/**
 * Places the fault: through the online RAG's fault API scoped to the one knowledge id, or written
 * into the online collection. Returns the knowledge ids it touched.
 */
export async function injectTrafficFault(
  index: OnlineIndex,
  plan: TrafficFaultPlan,
  rag: { onlineUrl: string; ragToken?: string } = { onlineUrl: '' },
): Promise<string[]> {
  if (isFaultApiTrafficFault(plan.fault)) {
    const [kind, mode] = plan.fault.split(':') as [string, string];
    const body: Record<string, unknown> = { mode, scope: { knowledge_ids: [plan.target] } };
    if (kind === 'knowledge-source-failure') body.stale_as_of = STALE_AS_OF;
    const answer = await callFaultAdmin(rag.onlineUrl, 'POST', kind, body, ...(rag.ragToken ? [rag.ragToken] : []));
    return answer.fault?.affected_knowledge_ids ?? [plan.target];
  }
  if (plan.fault === 'unpublished-knowledge') return ingestUnpublishedVersion(index, [plan.target]);
  if (plan.fault === 'attribution-swap') return swapDocumentIds(index, plan.target, plan.partner!);
  return damageVectors(index, [plan.target], plan.fault === 'vectors-overwritten:deleted' ? 'deleted' : 'garbage');
}

export interface TrafficTrialResult {
  plan: TrafficFaultPlan;
  /** What the workers did, as the golden-probe trials evaluate it (any anomaly after the fault counts). */
  trial: TrialResult;
  /** The first anomalous ProbeResult with origin traffic after the fault: detection from traffic, confirmed by replay. */
  firstTrafficAnomaly?: ProbeResult;
  trafficDetectedAt?: number;
  /** Anomalous traffic results published (each a replayed user query the replay confirmed). */
  trafficAnomalies: number;
  /** Anomalous golden-probe results after the fault (a golden probe that happens to retrieve the damaged chunk). */
  goldenAnomalies: number;
  /** The labelled questions about the faulted knowledge, asked right before and after the fault, and how many answers changed. */
  userQuestions: number;
  userAnswersChanged: number;
  /** The fault changed no answer to a question about its knowledge, and nothing was detected: users saw nothing to catch. */
  harmless: boolean;
}

export interface TrafficWatchOptions {
  timeoutMs: number;
  /** After a verified repair: how long to wait for memory's case (default 30 s). */
  settleMs?: number;
  /** A fault that changed no user answer is watched this long for an alarm that should not come (default 90 s). */
  harmlessWatchMs?: number;
  /** Give up when nothing at all (no anomaly, golden or traffic) was seen this long after the fault (default: the timeout). */
  detectionTimeoutMs?: number;
  /** Called at each poll (the demo prints new steps). */
  onPoll?: (result: TrafficTrialResult) => void;
}

function trafficView(
  ctx: TrialContext,
  plan: TrafficFaultPlan,
  trial: TrialResult,
  effect: { userQuestions: number; userAnswersChanged: number },
): TrafficTrialResult {
  const afterRecords = ctx.recorder.probes.filter(({ event: p }) => p.anomaly && p.occurred_at >= trial.injectStartedAt);
  const after = afterRecords.map((p) => p.event);
  // Detected from traffic when the confirmed replay's anomaly reached the bus (its probes started minutes earlier on a slow RAG).
  const traffic = afterRecords.filter((p) => p.event.origin === 'traffic').sort((a, b) => a.receivedAt - b.receivedAt);
  return {
    plan,
    trial,
    ...(traffic[0] ? { firstTrafficAnomaly: traffic[0].event, trafficDetectedAt: traffic[0].receivedAt } : {}),
    trafficAnomalies: traffic.length,
    goldenAnomalies: after.filter((p) => p.origin !== 'traffic').length,
    ...effect,
    harmless: effect.userAnswersChanged === 0 && after.length === 0 && trial.incidents.length === 0,
  };
}

/** Places the fault and watches until its repair is verified (and remembered), it is escalated, or time runs out. */
export async function runTrafficTrial(
  ctx: TrialContext,
  plan: TrafficFaultPlan,
  options: TrafficWatchOptions,
): Promise<TrafficTrialResult> {
  if (ctx.onlineIndex === undefined) throw new Error('a traffic trial writes its fault into Qdrant: the trial context needs onlineIndex');
  const before = knownIncidents(ctx.recorder);
  // Did the fault change what users get? The labelled questions about its knowledge, before and after.
  const placed = new Set([plan.target, ...(plan.partner ? [plan.partner] : [])]);
  const questions = probesFromQuestions(
    loadQuestions().filter((q) => placed.has(q.knowledge_id)),
    'effect',
  );
  // A sampling LLM's answers differ call to call: there, what the users' questions retrieve is the effect.
  const check = ctx.faultEffectCheck === 'off' ? 'retrieval' : (ctx.faultEffectCheck ?? 'answers');
  const answersBefore = await probeOutcomes(ctx.onlineUrl, questions, check);
  const injectStartedAt = Date.now();
  const affected = await injectTrafficFault(ctx.onlineIndex, plan, {
    onlineUrl: ctx.onlineUrl,
    ...(ctx.ragToken ? { ragToken: ctx.ragToken } : {}),
  });
  // Times count from here: the fault is in place. Asking the questions again below takes a minute on
  // a slow RAG, and users meet the fault meanwhile.
  const injectedAt = Date.now();
  const changed = harmedProbes(answersBefore, await probeOutcomes(ctx.onlineUrl, questions, check));
  const effect = { userQuestions: questions.length, userAnswersChanged: changed.length };
  const [kind, mode] = plan.fault.split(':') as [string, string | undefined];
  const injected = {
    plan: { kind, ...(mode ? { mode } : {}) },
    body: { ...(mode ? { mode } : {}), scope: { knowledge_ids: affected } },
    affectedKnowledgeIds: affected,
    // No golden probe is touched by construction: every anomaly after the fault is the fault's.
    touched: [],
    injectStartedAt,
    injectedAt,
    harmed: null,
  };
  const deadline = injected.injectedAt + options.timeoutMs;
  let verifiedSeenAt: number | undefined;
  for (;;) {
    await sleep(500);
    ctx.recorder.pollLogs();
    const view = trafficView(ctx, plan, evaluateTrial(ctx, injected, before), effect);
    options.onPoll?.(view);
    const { trial } = view;
    if (trial.outcome === 'escalated') return view;
    if (trial.outcome === 'healed') {
      verifiedSeenAt ??= Date.now();
      if (trial.rememberedAt !== undefined || Date.now() - verifiedSeenAt > (options.settleMs ?? 30_000)) return view;
    }
    if (view.harmless && Date.now() - injected.injectedAt > (options.harmlessWatchMs ?? 90_000)) return view;
    const undetectedFor = view.trial.detectedAt === undefined ? Date.now() - injected.injectedAt : 0;
    if (options.detectionTimeoutMs !== undefined && undetectedFor > options.detectionTimeoutMs) return view;
    if (Date.now() > deadline) return view;
  }
}

/** The sentinel's /metrics as name -> value, summed over labels (prom-client's text format). */
export async function scrapeMetrics(url: string): Promise<Map<string, number>> {
  const response = await fetch(`${url}/metrics`);
  if (!response.ok) throw new Error(`GET ${url}/metrics: ${response.status}`);
  const values = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const value = Number(match[2]);
    if (Number.isFinite(value)) values.set(match[1]!, (values.get(match[1]!) ?? 0) + value);
  }
  return values;
}

/** The traffic watcher's counters (./services/sentinel/src/traffic/traffic-metrics.ts) and the sentinel's CPU seconds. */
export interface WatcherFigures {
  answersRead: number;
  skipped: number;
  flagged: number;
  confirmed: number;
  rejected: number;
  replayQueries: number;
  cpuSeconds: number;
}

export async function watcherFigures(sentinelUrl: string): Promise<WatcherFigures> {
  const m = await scrapeMetrics(sentinelUrl);
  const get = (name: string) => m.get(name) ?? 0;
  return {
    answersRead: get('rag_immune_traffic_answers_read_total'),
    skipped: get('rag_immune_traffic_answers_skipped_total'),
    flagged: get('rag_immune_traffic_segments_flagged_total'),
    confirmed: get('rag_immune_traffic_segments_confirmed_total'),
    rejected: get('rag_immune_traffic_segments_rejected_total'),
    replayQueries: get('rag_immune_traffic_replay_queries_total'),
    cpuSeconds: get('rag_immune_sentinel_process_cpu_seconds_total'),
  };
}

/** Waits until the watcher has read `answers` user answers since `from` (its counter's value then); false on timeout. */
export async function waitForAnswersRead(sentinelUrl: string, from: number, answers: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const figures = await watcherFigures(sentinelUrl).catch(() => null);
    if (figures !== null && figures.answersRead - from >= answers) return true;
    await sleep(1000);
  }
  return false;
}
