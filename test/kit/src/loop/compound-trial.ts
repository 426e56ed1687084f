/**
 * A compound trial: two designed faults injected together (a deploy and a feed outage on the same
 * night, or an operator's write into Qdrant and a regressed prompt deployed), scoped faults on
 * different documents. The goal: both causes named, both repaired and
 * verified, no repair that healed something undone, and the sentinel seeing every touched probe
 * clean again. What the workers did is read from the three topics, as for a single-fault trial.
 */
import type { RepairAction, RootCause } from '@rag-immune/contracts';
import { expectationOf, injectionBody, touchedProbes, type FaultPlan } from './faults.ts';
import { injectBody, knownIncidents, type TrialContext } from './trial.ts';
import type { LoopProbes } from './probes.ts';
import { isDeployFault } from './deploy-faults.ts';
import { sleep } from '../wait.ts';

export interface InjectedFault {
  plan: FaultPlan;
  body: Record<string, unknown>;
  affectedKnowledgeIds: string[] | null;
  touched: string[];
}

export interface CompoundTrialResult {
  faults: InjectedFault[];
  injectedAt: number;
  detectedAt?: number;
  incidents: string[];
  /** Every cause a report named (top level or a finding), in the order first named. */
  namedCauses: RootCause[];
  /**
   * Per fault (in plan order): the intent of a kept repair that heals it (verified recovered, or kept as
   * a partial recovery whose rest another cause's repair healed: the sentinel's clean round decides), if any.
   */
  repairedBy: (string | null)[];
  /** Repairs undone although their verification healed a probe and worsened none: a right repair taken back. */
  rightRepairsUndone: { tool: string; intent: string; healed: string[] }[];
  /** Repairs kept as a partial recovery. */
  partials: { tool: string; intent: string }[];
  escalated: boolean;
  sentinelRecoveredAt?: number;
  outcome: 'healed' | 'partly_healed' | 'escalated' | 'timeout';
  actions: string[];
  endedAt: number;
}

/** One fault of a compound pair: a kind, with its mode when pinned (`vectors-overwritten:deleted`). */
export interface CompoundFault {
  kind: string;
  mode?: string;
}

/**
 * `--compound`'s pairs: `a+b,c+d`, each kind optionally `kind:mode`; '' for none. Throws on a pair
 * that is not two known kinds, or a mode its kind does not take.
 */
export function parseCompoundPairs(text: string): CompoundFault[][] {
  return text
    .split(',')
    .filter(Boolean)
    .map((pair) => {
      const faults = pair.split('+').map((item) => {
        const [kind, mode] = item.split(':') as [string, string | undefined];
        const { modes } = expectationOf(kind);
        if (mode !== undefined && !modes.includes(mode)) throw new Error(`--compound: ${kind} has modes ${modes.join(', ')}, not ${mode}`);
        return mode === undefined ? { kind } : { kind, mode };
      });
      if (faults.length !== 2) throw new Error(`--compound: a pair is two kinds joined by +, got ${pair}`);
      return faults;
    });
}

/**
 * A scoped fault's body moved off the knowledge another fault of the pair already hit (`taken`): as
 * many documents as its plan asked for, none taken. An attribution swap keeps its shape (a probed
 * changelog document and a probed apt document of another package) where the free ids allow. A body
 * with no knowledge scope (a global fault) is returned as it is.
 */
export function disjointScope(
  kind: string,
  body: Record<string, unknown>,
  probes: LoopProbes,
  taken: ReadonlySet<string>,
): Record<string, unknown> {
  const scope = body.scope as { knowledge_ids?: string[] } | undefined;
  if (!scope?.knowledge_ids) return body;
  const probed = [...new Set(probes.probes.map((p) => p.expected_sources[0] as string))].filter((id) => id !== undefined && !taken.has(id));
  let ids: string[];
  if (kind === 'attribution-swap') {
    if (scope.knowledge_ids.every((id) => !taken.has(id))) return body;
    const subject = (id: string) => id.slice(id.indexOf('/') + 1);
    const first = probed.find((id) => id.startsWith('changelog/')) ?? probed[0];
    const other =
      first === undefined
        ? undefined
        : (probed.find((id) => id.startsWith('apt/') && subject(id) !== subject(first)) ?? probed.find((id) => id !== first));
    ids = first === undefined || other === undefined ? [] : [first, other];
  } else {
    ids = scope.knowledge_ids.filter((id) => !taken.has(id));
    ids.push(...probed.filter((id) => !ids.includes(id)).slice(0, scope.knowledge_ids.length - ids.length));
  }
  if (ids.length === 0) throw new Error(`${kind}: no document left that the other fault does not touch`);
  return { ...body, scope: { ...scope, knowledge_ids: ids } };
}

/**
 * Whether a fault redeploys the online RAG (a regressed prompt; a stale feed on a RAG without a fault
 * API). A redeploy over the same index syncs it from the feeds at start (services/langchain-rag: only
 * the ids whose chunks differ), which would undo a Qdrant write made before it.
 */
export function redeploys(kind: string, faultApi: boolean): boolean {
  return isDeployFault(kind) || (!faultApi && kind === 'knowledge-source-failure');
}

/**
 * The order a pair's faults go in: redeploys first (so that no later start re-syncs a write away),
 * otherwise the plan's. Indices into the plans.
 */
export function injectionOrder(kinds: readonly string[], faultApi: boolean): number[] {
  const indices = kinds.map((_, i) => i);
  return [...indices.filter((i) => redeploys(kinds[i]!, faultApi)), ...indices.filter((i) => !redeploys(kinds[i]!, faultApi))];
}

/**
 * Injects both faults, each the way this RAG takes it (fault API, or an operator's write into Qdrant
 * or deploy: ./trial.ts's injectBody), a redeploy first; the later scoped fault avoids the earlier's
 * documents. A redeploy keeps the index it serves, so a Qdrant write after it stays. Returns the
 * faults in plan order.
 */
async function injectBoth(ctx: TrialContext, plans: readonly FaultPlan[]): Promise<{ faults: InjectedFault[]; injectedAt: number }> {
  const faults: InjectedFault[] = [];
  const taken = new Set<string>();
  for (const i of injectionOrder(
    plans.map((p) => p.kind),
    ctx.faultApi !== false,
  )) {
    const plan = plans[i]!;
    const body = disjointScope(plan.kind, injectionBody(plan, ctx.probes), ctx.probes, taken);
    const affected = await injectBody(ctx, plan.kind, body);
    for (const id of affected ?? []) taken.add(id);
    faults[i] = { plan, body, affectedKnowledgeIds: affected, touched: [...touchedProbes(plan.kind, ctx.probes, affected)] };
  }
  return { faults, injectedAt: Date.now() };
}

export function evaluateCompound(
  ctx: TrialContext,
  injected: { faults: InjectedFault[]; injectedAt: number; startedAt: number },
  before: Set<string>,
  now = Date.now(),
): CompoundTrialResult {
  const { recorder } = ctx;
  const touched = new Set(injected.faults.flatMap((f) => f.touched));
  const after = (t: number) => t >= injected.startedAt;
  // Detected when the first anomaly reached the bus (trial.ts says why).
  const anomalies = recorder.probes
    .filter(({ event: p }) => p.anomaly && after(p.occurred_at) && touched.has(p.probe_id))
    .sort((a, b) => a.receivedAt - b.receivedAt);
  const reports = recorder.reports.map((r) => r.event).filter((r) => after(r.occurred_at) && !before.has(r.incident_id));
  const incidents = [...new Set(reports.map((r) => r.incident_id))];
  const namedCauses: RootCause[] = [];
  for (const r of reports)
    for (const cause of [r.root_cause, ...(r.findings ?? []).map((f) => f.root_cause)])
      if (cause !== 'unknown' && !namedCauses.includes(cause)) namedCauses.push(cause);
  const actions = recorder.actions
    .map((a) => a.event)
    .filter((a) => incidents.includes(a.incident_id))
    .sort((a, b) => a.occurred_at - b.occurred_at);
  const recovered = actions.filter(
    (a) => a.status === 'succeeded' && (a.verification?.recovered === true || a.verification?.outcome === 'partial'),
  );
  const repairedBy = injected.faults.map(
    (f) => recovered.find((a) => expectationOf(f.plan.kind).healingIntents.includes(a.intent))?.intent ?? null,
  );
  const verdictOf = new Map<string, RepairAction>();
  for (const a of actions) if (a.status === 'failed' && a.verification) verdictOf.set(a.action_id, a);
  const rightRepairsUndone = actions
    .filter((a) => a.status === 'rolled_back')
    .flatMap((a) => {
      const v = verdictOf.get(a.action_id)?.verification;
      const healed = (v?.healed_probe_ids ?? []).filter((id) => touched.has(id));
      return v && healed.length > 0 && (v.worsened_probe_ids ?? []).length === 0 ? [{ tool: a.tool, intent: a.intent, healed }] : [];
    });
  const lastRepair = recovered.at(-1);
  let sentinelRecoveredAt: number | undefined;
  if (repairedBy.every((r) => r !== null) && lastRepair) {
    const clean = new Map<string, number>();
    for (const { event } of recorder.probes) {
      if (!touched.has(event.probe_id) || event.occurred_at <= lastRepair.occurred_at + ctx.probeIntervalMs) continue;
      if (event.anomaly) clean.delete(event.probe_id);
      else if (!clean.has(event.probe_id)) clean.set(event.probe_id, event.occurred_at);
    }
    if (clean.size === touched.size) sentinelRecoveredAt = Math.max(...clean.values());
  }
  const escalated = actions.some((a) => a.status === 'escalated');
  const healed = repairedBy.every((r) => r !== null);
  return {
    faults: injected.faults,
    injectedAt: injected.injectedAt,
    ...(anomalies[0] ? { detectedAt: anomalies[0].receivedAt } : {}),
    incidents,
    namedCauses,
    repairedBy,
    rightRepairsUndone,
    partials: actions
      .filter((a) => a.status === 'succeeded' && a.verification?.outcome === 'partial')
      .map((a) => ({ tool: a.tool, intent: a.intent })),
    escalated,
    ...(sentinelRecoveredAt ? { sentinelRecoveredAt } : {}),
    outcome: healed ? 'healed' : repairedBy.some((r) => r !== null) ? 'partly_healed' : escalated ? 'escalated' : 'timeout',
    actions: actions.map(
      (a) => `${a.tool}:${a.status}${a.verification?.outcome && a.status !== 'started' ? `(${a.verification.outcome})` : ''}`,
    ),
    endedAt: now,
  };
}

/** Injects the faults together and watches until both are healed and the sentinel sees it, or time runs out. */
export async function runCompoundTrial(
  ctx: TrialContext,
  plans: readonly FaultPlan[],
  options: { timeoutMs: number },
): Promise<CompoundTrialResult> {
  const before = knownIncidents(ctx.recorder);
  const startedAt = Date.now();
  const injected = { ...(await injectBoth(ctx, plans)), startedAt };
  const deadline = injected.injectedAt + options.timeoutMs;
  for (;;) {
    await sleep(250);
    ctx.recorder.pollLogs();
    const result = evaluateCompound(ctx, injected, before);
    if (result.outcome === 'healed' && result.sentinelRecoveredAt !== undefined) return result;
    if (Date.now() > deadline) return result;
  }
}
