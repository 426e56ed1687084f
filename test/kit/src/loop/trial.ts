/**
 * One fault trial on a running loop: inject a fault (through the RAG's admin API, or as an operator's
 * write into Qdrant or deploy where it has none; never undone here: only the workers may heal it),
 * then watch what the workers publish until the repair is verified, the effector escalates, or time
 * runs out; and the figures of the benchmark table from it.
 */
import { callFaultAdmin } from '@rag-immune/rag-contract';
import type { ProbeResult, RepairAction, RootCauseReport } from '@rag-immune/contracts';
import { expectationOf, injectionBody, touchedProbes, type FaultPlan } from './faults.ts';
import {
  damageVectors,
  ingestUnpublishedVersion,
  isOperatorFault,
  swapDocumentIds,
  type OnlineIndex,
  type OperatorFaultKind,
} from './operator-faults.ts';
import { deployFault, deployStaleFeed, isDeployFault, type RedeployOnline } from './deploy-faults.ts';
import { harmedProbes, probeOutcomes, type FaultEffectCheck } from './fault-effect.ts';
import type { LoopProbes } from './probes.ts';
import type { HealingLine, LoopRecorder } from './timeline.ts';
import { sleep } from '../wait.ts';

export interface TrialContext {
  onlineUrl: string;
  recorder: LoopRecorder;
  probes: LoopProbes;
  probeIntervalMs: number;
  /** The RAG's admin token, when it has one. */
  ragToken?: string;
  /** The online RAG's Qdrant collection: operator faults are written there, not through the admin API. */
  onlineIndex?: OnlineIndex;
  /** Redeploys the online RAG with changed settings (deploy faults: a regressed prompt, a stale feed). */
  redeployOnline?: RedeployOnline;
  /**
   * false: the RAG has no fault API (the LangChain RAG); a knowledge-source-failure (stale) is then
   * deployed as an operator's stale primary feed through redeployOnline. Default true.
   */
  faultApi?: boolean;
  /**
   * How to tell whether a fault did harm: the probes' answers (default), their retrieved chunks (a RAG
   * that samples), or not at all ('off': every fault is taken as harmful).
   */
  faultEffectCheck?: FaultEffectCheck | 'off';
}

export interface ActionSummary {
  actionId: string;
  intent: string;
  tool: string;
  attempt: number;
  statuses: string[];
  snapshotId: string | null;
  verification: RepairAction['verification'];
  failure: RepairAction['failure'];
}

export interface TrialResult {
  plan: FaultPlan;
  body: Record<string, unknown>;
  affectedKnowledgeIds: string[] | null;
  touched: string[];
  injectStartedAt: number;
  /** When the admin call returned: the fault is fully in effect; elapsed times count from here. */
  injectedAt: number;
  /**
   * The probes whose answer (or retrieval) the fault changed, asked right before and after the
   * injection; null when not checked. Empty: the fault was harmless here and expects no action.
   */
  harmed: string[] | null;
  detectedAt?: number;
  firstAnomaly?: ProbeResult;
  incidents: string[];
  firstReport?: RootCauseReport;
  firstReportAt?: number;
  correctReportAt?: number;
  finalReport?: RootCauseReport;
  /** The last report names the right cause (seen kinds) or abstains / names the right component (unseen). */
  localised: boolean;
  actions: ActionSummary[];
  rollbacks: number;
  escalated: boolean;
  verifiedAt?: number;
  verifiedIntent?: string;
  /** A repair verified as success whose intent does not heal this fault. */
  wrongRepairVerified: boolean;
  /** The sentinel's first full clean round of the touched probes after the verified repair. */
  sentinelRecoveredAt?: number;
  /**
   * The affected knowledge whose own probes were anomalous before the (last) verified repair, or
   * before the trial ended when none was: what a report could have named. A repair that covers the
   * whole index can heal a damaged id before its probe's turn in the round comes.
   */
  seenKnowledgeIds: string[];
  rememberedAt?: number;
  /**
   * Repair tools waiting for a person's grant (the effector's "waits for a human grant" line): a
   * recommendation (a hookless RAG's operator step) or an irreversible tool; `at` is when it first waited.
   */
  awaitingGrant: { tool: string; at: number }[];
  /**
   * `harmless`: the fault changed no probe's answer, and nothing acted on it. `recommended`: the
   * report named the cause and the repair waits for a person's grant (nothing is approved here).
   */
  outcome: 'healed' | 'escalated' | 'recommended' | 'abstained' | 'undetected' | 'timeout' | 'harmless';
  endedAt: number;
}

export interface HealingStep {
  key: string;
  at: number;
  worker: string;
  what: string;
}

/** Injects the fault and returns as soon as the admin API confirms it. */
export async function injectFault(
  ctx: TrialContext,
  plan: FaultPlan,
): Promise<Pick<TrialResult, 'plan' | 'body' | 'affectedKnowledgeIds' | 'touched' | 'injectStartedAt' | 'injectedAt' | 'harmed'>> {
  const body = injectionBody(plan, ctx.probes);
  const check = ctx.faultEffectCheck ?? 'answers';
  const outcomesBefore = check === 'off' ? undefined : await probeOutcomes(ctx.onlineUrl, ctx.probes.probes, check);
  const injectStartedAt = Date.now();
  const affected = await injectBody(ctx, plan.kind, body);
  const injectedAt = Date.now();
  const harmed =
    check === 'off' || outcomesBefore === undefined
      ? null
      : harmedProbes(outcomesBefore, await probeOutcomes(ctx.onlineUrl, ctx.probes.probes, check));
  return {
    plan,
    body,
    affectedKnowledgeIds: affected,
    touched: [...touchedProbes(plan.kind, ctx.probes, affected)],
    injectStartedAt,
    injectedAt,
    harmed,
  };
}

/**
 * Puts one fault in effect the way this RAG takes it: an operator fault written into Qdrant or
 * deployed, a stale feed deployed on a RAG without a fault API, otherwise the fault API. Returns the
 * knowledge ids it hit (null: global). A compound trial injects each of its faults through here too.
 */
export async function injectBody(ctx: TrialContext, kind: string, body: Record<string, unknown>): Promise<string[] | null> {
  if (isOperatorFault(kind))
    return injectOperatorFault(
      ctx,
      kind,
      (body.scope as { knowledge_ids: string[] } | undefined)?.knowledge_ids ?? [],
      body.mode as string,
    );
  if (ctx.faultApi === false) return deployKnowledgeFault(ctx, kind, body);
  return (
    (await callFaultAdmin(ctx.onlineUrl, 'POST', kind, body, ...(ctx.ragToken ? [ctx.ragToken] : []))).fault?.affected_knowledge_ids ?? null
  );
}

/**
 * An operator's mistake, no fault API: written straight into the online collection (the knowledge ids
 * it touched), or deployed as a new build of the online RAG (null: global).
 */
function injectOperatorFault(ctx: TrialContext, kind: OperatorFaultKind, knowledgeIds: string[], mode: string): Promise<string[] | null> {
  if (isDeployFault(kind)) return deployFault(ctx.redeployOnline, kind, mode);
  if (ctx.onlineIndex === undefined) throw new Error(`${kind} is written into Qdrant: the trial context needs onlineIndex`);
  if (kind === 'unpublished-knowledge') return ingestUnpublishedVersion(ctx.onlineIndex, knowledgeIds);
  if (kind === 'vectors-overwritten') return damageVectors(ctx.onlineIndex, knowledgeIds, mode === 'deleted' ? 'deleted' : 'garbage');
  return swapDocumentIds(ctx.onlineIndex, knowledgeIds[0]!, knowledgeIds[1]!);
}

/** A fault-API kind on a RAG without the API: only a stale feed has a deploy that causes it. */
function deployKnowledgeFault(ctx: TrialContext, kind: string, body: Record<string, unknown>): Promise<string[]> {
  if (kind !== 'knowledge-source-failure' || body.mode !== 'stale')
    throw new Error(`${kind} (${String(body.mode)}): this RAG has no fault API, and no deploy causes it`);
  const ids = (body.scope as { knowledge_ids: string[] } | undefined)?.knowledge_ids ?? [];
  return deployStaleFeed(ctx.redeployOnline, ids, body.stale_as_of as string);
}

/** Incident ids that have a report already: a trial only counts incidents opened after its injection. */
export function knownIncidents(recorder: LoopRecorder): Set<string> {
  return new Set(recorder.reports.map((r) => r.event.incident_id));
}

/** What the workers did about an injected fault, as far as the record shows now. */
export function evaluateTrial(
  ctx: TrialContext,
  injected: Awaited<ReturnType<typeof injectFault>>,
  before: Set<string>,
  now = Date.now(),
): TrialResult {
  const { recorder } = ctx;
  const expectation = expectationOf(injected.plan.kind);
  const touched = new Set(injected.touched);
  const after = (t: number) => t >= injected.injectStartedAt;
  const reports = recorder.reports.map((r) => r.event).filter((r) => after(r.occurred_at) && !before.has(r.incident_id));
  // Touched is the harness's guess (probes that expect the damaged knowledge). A fault in Qdrant also
  // shows on probes that merely retrieve a damaged chunk (an attribution swap relabels chunks that other
  // questions retrieve too): their anomalies count when the fault's own incident names them.
  const named = new Set(reports.flatMap((r) => r.affected_probes.map((p) => p.probe_id)));
  const anomalyRecords = recorder.probes.filter(
    ({ event: p }) => p.anomaly && after(p.occurred_at) && (touched.size === 0 || touched.has(p.probe_id) || named.has(p.probe_id)),
  );
  const anomalies = anomalyRecords.map((p) => p.event).sort((a, b) => a.occurred_at - b.occurred_at);
  // Detected when the first anomaly reached the bus, not when its probe started (occurred_at): a
  // sampled probe on a slow RAG runs a minute, a confirmed traffic replay several.
  const firstSeen = [...anomalyRecords].sort((a, b) => a.receivedAt - b.receivedAt)[0];
  const incidents = [...new Set(reports.map((r) => r.incident_id))];
  const actionEvents = recorder.actions.map((a) => a.event).filter((a) => incidents.includes(a.incident_id));
  const correct = (r: RootCauseReport) =>
    expectation.cause === null
      ? r.root_cause === 'unknown' || expectation.components.includes(r.affected_component)
      : r.root_cause === expectation.cause && expectation.components.includes(r.affected_component);
  const byAction = new Map<string, ActionSummary>();
  for (const a of [...actionEvents].sort((x, y) => x.occurred_at - y.occurred_at)) {
    const summary = byAction.get(a.action_id) ?? {
      actionId: a.action_id,
      intent: a.intent,
      tool: a.tool,
      attempt: a.attempt,
      statuses: [],
      snapshotId: null,
      verification: null,
      failure: null,
    };
    summary.statuses.push(a.status);
    summary.snapshotId = a.snapshot_id ?? summary.snapshotId;
    summary.verification = a.verification ?? summary.verification;
    summary.failure = a.failure ?? summary.failure;
    byAction.set(a.action_id, summary);
  }
  const actions = [...byAction.values()];
  // The last verified repair: a later report revision (grown scope) may need a second one.
  const verified = actionEvents
    .filter((a) => a.status === 'succeeded' && a.verification?.recovered === true)
    .sort((a, b) => a.occurred_at - b.occurred_at)
    .at(-1);
  const escalated = actionEvents.some((a) => a.status === 'escalated');
  const wrongRepairVerified = actionEvents.some(
    (a) => a.status === 'succeeded' && a.intent !== 'escalate_to_human' && !expectation.healingIntents.includes(a.intent),
  );
  let sentinelRecoveredAt: number | undefined;
  if (verified !== undefined && touched.size > 0) {
    // The first time every touched probe has a clean result that started after the verified repair.
    const clean = new Map<string, number>();
    for (const { event } of recorder.probes) {
      if (!touched.has(event.probe_id) || event.occurred_at <= verified.occurred_at + ctx.probeIntervalMs) continue;
      if (event.anomaly) clean.delete(event.probe_id);
      else if (!clean.has(event.probe_id)) clean.set(event.probe_id, event.occurred_at);
    }
    if (clean.size === touched.size) sentinelRecoveredAt = Math.max(...clean.values());
  }
  // Memory's line for a case whose outcome is settled (recovered, failed or escalated).
  const remembered = recorder.healing.find(
    (h) =>
      h.worker.startsWith('memory') &&
      h.incidentId !== null &&
      incidents.includes(h.incidentId) &&
      typeof h.fields.outcome === 'string' &&
      h.fields.outcome !== 'open',
  );
  const finalReport = reports.at(-1);
  const awaitingGrant: { tool: string; at: number }[] = [];
  for (const h of recorder.healing)
    if (
      h.worker.startsWith('effector') &&
      h.incidentId !== null &&
      incidents.includes(h.incidentId) &&
      typeof h.fields.tool === 'string' &&
      h.message.includes('waits for a human grant') &&
      !awaitingGrant.some((a) => a.tool === h.fields.tool)
    )
      awaitingGrant.push({ tool: h.fields.tool, at: h.at });
  const affected = new Set(injected.affectedKnowledgeIds ?? []);
  const sourceOf = new Map(ctx.probes.probes.map((p) => [p.id, p.expected_sources[0] ?? '']));
  const seenKnowledgeIds = [
    ...new Set(
      anomalies
        .filter((a) => verified === undefined || a.occurred_at <= verified.occurred_at)
        .map((a) => sourceOf.get(a.probe_id) ?? '')
        .filter((id) => affected.has(id)),
    ),
  ].sort();
  const harmless = injected.harmed !== null && injected.harmed.length === 0;
  const outcome: TrialResult['outcome'] =
    harmless && anomalies.length === 0 && incidents.length === 0 && actions.length === 0
      ? 'harmless'
      : verified !== undefined
        ? 'healed'
        : escalated
          ? 'escalated'
          : awaitingGrant.length > 0 && finalReport !== undefined && correct(finalReport)
            ? 'recommended'
            : finalReport?.root_cause === 'unknown'
              ? 'abstained'
              : anomalies.length === 0
                ? 'undetected'
                : 'timeout';
  return {
    ...injected,
    ...(firstSeen ? { detectedAt: firstSeen.receivedAt, firstAnomaly: firstSeen.event } : {}),
    incidents,
    ...(reports[0] ? { firstReport: reports[0], firstReportAt: reports[0].occurred_at } : {}),
    ...(reports.find(correct) ? { correctReportAt: reports.find(correct)!.occurred_at } : {}),
    ...(finalReport ? { finalReport } : {}),
    localised: finalReport !== undefined && correct(finalReport),
    actions,
    rollbacks: actionEvents.filter((a) => a.status === 'rolled_back').length,
    escalated,
    ...(verified ? { verifiedAt: verified.occurred_at, verifiedIntent: verified.intent } : {}),
    wrongRepairVerified,
    ...(sentinelRecoveredAt ? { sentinelRecoveredAt } : {}),
    seenKnowledgeIds,
    ...(remembered ? { rememberedAt: remembered.at } : {}),
    awaitingGrant,
    outcome,
    endedAt: now,
  };
}

export interface WatchOptions {
  timeoutMs: number;
  /** After a verified repair: also wait for the sentinel's clean round and memory's case (bounded). */
  settleMs?: number;
  /** Leave out [HEALING] lines that repeat an event (the demo's terminal). */
  concise?: boolean;
  /** Called with each new healing step as it appears. */
  onStep?: (step: HealingStep) => void;
}

/** Injects one fault and watches until it is healed (and the healing confirmed), escalated, or timed out. */
export async function runTrial(ctx: TrialContext, plan: FaultPlan, options: WatchOptions): Promise<TrialResult> {
  const before = knownIncidents(ctx.recorder);
  const injected = await injectFault(ctx, plan);
  const shown = new Set<string>();
  const emit = (result: TrialResult) => {
    for (const step of healingSteps(ctx.recorder, result, { concise: options.concise ?? false })) {
      if (shown.has(step.key)) continue;
      shown.add(step.key);
      options.onStep?.(step);
    }
  };
  const deadline = injected.injectedAt + options.timeoutMs;
  let settledSince: number | undefined;
  for (;;) {
    await sleep(250);
    ctx.recorder.pollLogs();
    const result = evaluateTrial(ctx, injected, before);
    emit(result);
    // A recommendation waits for a person: nobody approves it here, so the trial ends where the loop hands over.
    const finished =
      (result.outcome === 'healed' && result.sentinelRecoveredAt !== undefined && result.rememberedAt !== undefined) ||
      result.outcome === 'escalated' ||
      result.outcome === 'recommended';
    if (finished) return result;
    if (result.outcome === 'harmless' && Date.now() - injected.injectedAt > harmlessWatchMs(ctx)) return result;
    if (result.outcome === 'healed' || (result.outcome === 'abstained' && result.actions.length === 0)) {
      settledSince ??= Date.now();
      // Long enough for the sentinel's next full round and memory's case on a busy machine.
      const settle = options.settleMs ?? ctx.probeIntervalMs * 6 + 45_000;
      if (Date.now() - settledSince > settle) return evaluateTrial(ctx, injected, before);
    }
    if (Date.now() > deadline) return evaluateTrial(ctx, injected, before);
  }
}

/**
 * How long a harmless fault is watched for an action that should not come: a few full probe rounds,
 * so that a sentinel that (wrongly) flags it has had its chance.
 */
export function harmlessWatchMs(ctx: Pick<TrialContext, 'probeIntervalMs'>): number {
  return ctx.probeIntervalMs * 5 + 20_000;
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '-' : x.toFixed(2));

/** [HEALING] lines that say again what a RootCauseReport or RepairAction on Kafka already shows. */
const REPEATS_AN_EVENT = [
  /^verdict /,
  /^incident (repairing|verified|failed)\b/,
  /^repair \S+ (started|verified)/,
  /updated by (action|report) /,
];

/** The healing steps of a trial in time order: what the demo prints and the HTML report draws. */
export function healingSteps(recorder: LoopRecorder, trial: TrialResult, options: { concise?: boolean } = {}): HealingStep[] {
  const steps: HealingStep[] = [];
  const incidents = new Set(trial.incidents);
  steps.push({
    key: 'injected',
    at: trial.injectedAt,
    worker: 'harness',
    what: `fault ${trial.plan.kind}${trial.body.mode ? ` (${String(trial.body.mode)})` : ''} injected; ${
      trial.affectedKnowledgeIds ? `${trial.affectedKnowledgeIds.length} knowledge ids` : 'global'
    }, ${trial.touched.length} probes touched${trial.harmed === null ? '' : `, ${trial.harmed.length} answers changed`}`,
  });
  if (trial.firstAnomaly) {
    const a = trial.firstAnomaly;
    steps.push({
      key: 'detected',
      at: a.occurred_at,
      worker: 'sentinel',
      what: `detected: ${a.probe_id} ${a.severity} [${a.anomaly_signals.join(',')}] FCS ${pct(a.online.signals?.fcs)} vs ${pct(a.baseline.signals?.fcs)}`,
    });
  }
  for (const line of recorder.healing) {
    if (line.incidentId === null || !incidents.has(line.incidentId)) continue;
    if (options.concise && REPEATS_AN_EVENT.some((pattern) => pattern.test(line.message))) continue;
    steps.push({ key: `log:${line.worker}:${line.at}:${line.message}`, at: line.at, worker: line.worker, what: line.message });
  }
  for (const { event: r } of recorder.reports) {
    if (!incidents.has(r.incident_id)) continue;
    steps.push({
      key: `report:${r.event_id}`,
      at: r.occurred_at,
      worker: 'identifier',
      what: `report r${r.report_revision} ${r.incident_id}: cause ${r.root_cause} (${r.affected_component}) confidence ${r.confidence.toFixed(2)}, ${r.claims.length} claims${
        r.open_questions.length ? `, ${r.open_questions.length} open questions` : ''
      }`,
    });
  }
  for (const { event: a } of recorder.actions) {
    if (!incidents.has(a.incident_id)) continue;
    // The started step carries only the before-figures; the verdict step has both.
    const v = a.status === 'started' ? null : a.verification;
    const detail = [
      a.snapshot_id ? `snapshot ${a.snapshot_id}` : '',
      v ? `FCS ${pct(v.fcs_before)} -> ${pct(v.fcs_after)}, IC ${pct(v.ic_before)} -> ${pct(v.ic_after)}, recovered ${v.recovered}` : '',
      a.failure ? `${a.failure.reason}: ${a.failure.message}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    steps.push({
      key: `action:${a.event_id}`,
      at: a.occurred_at,
      worker: 'effector',
      what: `repair ${a.intent} ${a.status} (attempt ${a.attempt})${detail ? `: ${detail}` : ''}`,
    });
  }
  if (trial.sentinelRecoveredAt) {
    steps.push({
      key: 'recovered',
      at: trial.sentinelRecoveredAt,
      worker: 'sentinel',
      what: `recovered: all ${trial.touched.length} touched probes clean again`,
    });
  }
  return steps.sort((a, b) => a.at - b.at);
}

export type { HealingLine };
