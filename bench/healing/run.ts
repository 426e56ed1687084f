/**
 * The fault-matrix benchmark (npm run bench:healing): the real local stack, the reference RAG pair
 * and the four workers as processes. First clean rounds with no fault (every report or action is a
 * false alarm), then for each fault kind (the six the identifier was built for and the unseen
 * evaluation-only kind, plus the two operator faults written straight into Qdrant) several trials with varied scope, fault mode and seed. Each trial starts
 * from a fresh online RAG on the same URL (the workers keep running: memory accumulates cases),
 * injects the fault and only watches. Figures: time to detection, to a correct RootCauseReport, to
 * verified recovery (MTTR), repair success, actions, rollbacks, localisation accuracy.
 *
 *   npm run bench:healing -- [--trials 5] [--kinds a,b] [--clean-rounds 20] [--interval 4]
 *                            [--packages 25] [--probes 10] [--timeout 240] [--out bench/healing/RESULTS.md]
 *                            [--compound a+b,c:mode+d] [--compound-trials N] [--sentinel-env KEY=V,KEY=V]
 *
 * Compound pairs run --compound-trials trials each (default --trials, at least 1: `--trials 0` runs
 * the pairs alone), each with its own seed and each kind's modes in turn; a pair's faults go in the
 * way the RAG takes them (fault API, or an operator's write into Qdrant or deploy; a redeploy first,
 * since its start re-syncs the index from the feeds), on different documents. In a cycle, a second
 * redeploying kind (a regressed prompt after a stale feed) gets a fresh online RAG first. Until issue 39 every pair ran once whatever --trials said: `npm run bench:healing`
 * (--trials 3) now runs its three reference pairs 3 times each. --sentinel-env sets the sentinel's
 * variables over the RAG pair's (the pooled test's SENTINEL_POOLED_TEST, SENTINEL_SAMPLES_MAX,
 * SENTINEL_KNOWLEDGE_POOL, ..._ALPHA); the results header lists them. Every probe result's RAG calls
 * are counted: per result in the clean phase (also from the sentinel's /metrics) and per trial.
 *
 * `--rag langchain` watches the LangChain RAG on Gemma 3 270M instead (LoopRun's `rag` option: both
 * sides sample, the sentinel and the verification run the sampled test, traces only through the
 * intake). It has no fault API, so only the operator faults apply: written straight into Qdrant, or
 * the online RAG redeployed with a regressed prompt (prompt-regressed) or a stale primary feed
 * (knowledge-source-failure:stale); a kind may name its mode (`vectors-overwritten:deleted`). Its
 * defaults: every one of those kinds, 10 probes every 20 s, k = 5 samples a side, alpha 0.005,
 * timeout 480 s, the compound pairs vectors-overwritten+attribution-swap,
 * unpublished-knowledge+vectors-overwritten and vectors-overwritten+prompt-regressed, out
 * bench/healing/langchain-<date>.md. Issue 39's full matrix (>= 600 clean results, 3 trials of each):
 *
 *   npx tsx bench/healing/run.ts --rag langchain --trials 3 --clean-rounds 60
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpus, loadavg, totalmem } from 'node:os';
import { repoRoot } from '@rag-immune/stack';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { ALL_FAULT_KINDS, expectationOf, type FaultPlan } from '@rag-immune/test-kit/loop/faults';
import { runTrial, type TrialResult } from '@rag-immune/test-kit/loop/trial';
import { OPERATOR_FAULT_KINDS, QDRANT_FAULT_KINDS, isOperatorFault } from '@rag-immune/test-kit/loop/operator-faults';
import { isDeployFault } from '@rag-immune/test-kit/loop/deploy-faults';
import { installedModelPath } from '@rag-immune/langchain-rag';
import type { ProbeResult } from '@rag-immune/contracts';
import { parseCompoundPairs, redeploys, runCompoundTrial, type CompoundTrialResult } from '@rag-immune/test-kit/loop/compound-trial';
import { parseEnvPairs } from '@rag-immune/test-kit/loop/env-pairs';
import { callsPerResultText, countRagCalls, metricValue, type RagCallCount } from '@rag-immune/test-kit/loop/rag-calls';

const { values: args } = parseArgs({
  options: {
    // The RAG under watch: `reference` (the project's own) or `langchain` (Gemma 3 270M, sampling).
    rag: { type: 'string', default: 'reference' },
    trials: { type: 'string', default: '5' },
    // The fault API's kinds, and the operator faults written straight into Qdrant (issue 30);
    // `kind:mode` pins a mode (otherwise trial i takes the kind's mode i).
    kinds: { type: 'string' },
    'clean-rounds': { type: 'string', default: '20' },
    interval: { type: 'string' },
    packages: { type: 'string', default: '25' },
    probes: { type: 'string' },
    timeout: { type: 'string' },
    out: { type: 'string' },
    isolate: { type: 'boolean', default: false },
    // Compound trials (issue 30): pairs of faults injected together, `a+b,c+d` (a kind may pin its
    // mode, `vectors-overwritten:deleted+attribution-swap`); '' for none.
    compound: { type: 'string' },
    // Trials per compound pair, each with its own seed (and the kinds' modes in turn); default --trials, at least 1.
    'compound-trials': { type: 'string' },
    // The sentinel's variables over the RAG pair's, `KEY=VALUE,KEY=VALUE` (e.g. the pooled test's
    // SENTINEL_POOLED_TEST, SENTINEL_SAMPLES_MAX, SENTINEL_KNOWLEDGE_POOL, SENTINEL_KNOWLEDGE_POOL_ALPHA).
    'sentinel-env': { type: 'string' },
    // LangChain RAG only: the Gemma GGUF, calls a side per probe, the sampled test's significance.
    model: { type: 'string' },
    samples: { type: 'string', default: '5' },
    alpha: { type: 'string', default: '0.005' },
  },
});
if (args.rag !== 'reference' && args.rag !== 'langchain') throw new Error(`--rag must be reference or langchain, got ${args.rag}`);
const langchain = args.rag === 'langchain';
// Each RAG's defaults: the LangChain RAG generates on one CPU thread, k calls a side per probe, so
// fewer probes, a longer interval and a longer trial (its loop test: verified ~210-240 s after the fault).
const defaults = langchain
  ? {
      // Every fault it can have (issue 39): the Qdrant writes, both modes of vectors-overwritten, the
      // regressed prompt and the stale-feed deploy.
      kinds:
        'vectors-overwritten:garbage,vectors-overwritten:deleted,unpublished-knowledge,attribution-swap,prompt-regressed,knowledge-source-failure:stale',
      interval: '20',
      probes: '10',
      timeout: '480',
      out: `bench/healing/langchain-${new Date().toISOString().slice(0, 10)}.md`,
      // Two Qdrant writes on different documents (one cause each, the same repair intent), and a write
      // with a regressed prompt deployed over it (the redeploy keeps the index it serves: two repairs).
      compound: 'vectors-overwritten+attribution-swap,unpublished-knowledge+vectors-overwritten,vectors-overwritten+prompt-regressed',
    }
  : {
      // The reference RAG takes no redeploy settings: only the operator faults written into Qdrant.
      kinds: [...ALL_FAULT_KINDS, ...QDRANT_FAULT_KINDS].join(','),
      interval: '4',
      probes: '10',
      timeout: '240',
      out: 'bench/healing/RESULTS.md',
      compound: 'reranker-drift+knowledge-source-failure,parser-bug+vector-index-corruption,reranker-drift+vector-index-corruption',
    };
const values = {
  ...args,
  kinds: args.kinds ?? defaults.kinds,
  interval: args.interval ?? defaults.interval,
  probes: args.probes ?? defaults.probes,
  timeout: args.timeout ?? defaults.timeout,
  out: args.out ?? defaults.out,
  compound: args.compound ?? defaults.compound,
};
const modelPath = values.model ?? process.env.LLM_MODEL_PATH ?? installedModelPath();
if (langchain && !existsSync(modelPath))
  throw new Error(`--rag langchain: Gemma 3 270M is not at ${modelPath}: run scripts/install-gemma.sh`);

/** One row of the matrix: a fault kind, with its mode when pinned. */
interface FaultSpec {
  kind: string;
  mode?: string;
  label: string;
}
const trialsPerKind = Number(values.trials);
const specs: FaultSpec[] = values.kinds
  .split(',')
  .filter(Boolean)
  .map((text) => {
    const [kind, mode] = text.split(':') as [string, string | undefined];
    const expectation = expectationOf(kind);
    if (mode !== undefined && !expectation.modes.includes(mode))
      throw new Error(`--kinds: ${kind} has modes ${expectation.modes.join(', ')}, not ${mode}`);
    // A stale feed is the one fault-API kind the LangChain RAG takes, as a deploy (FEED_PRIMARY_STALE_*).
    const staleFeedDeploy = kind === 'knowledge-source-failure' && mode === 'stale';
    if (langchain && !isOperatorFault(kind) && !staleFeedDeploy)
      throw new Error(
        `--rag langchain has no fault API: --kinds takes only ${OPERATOR_FAULT_KINDS.join(', ')} and knowledge-source-failure:stale (a stale-feed deploy), not ${text}`,
      );
    if (!langchain && isDeployFault(kind))
      throw new Error(`--kinds: ${kind} redeploys the LangChain RAG with a regressed prompt: only with --rag langchain`);
    return { kind, ...(mode === undefined ? {} : { mode }), label: mode === undefined ? kind : `${kind} (${mode})` };
  });
const interval = Number(values.interval);
const sentinelEnv = parseEnvPairs(values['sentinel-env']);
const compoundTrialsPerPair = Number(values['compound-trials'] ?? Math.max(1, trialsPerKind));
if (!Number.isInteger(compoundTrialsPerPair) || compoundTrialsPerPair < 0)
  throw new Error(`--compound-trials: a whole number, got ${values['compound-trials']}`);
const FRACTIONS = [0.5, 0.25, 0.75, 1, 0.4, 0.6, 0.3];

const log = (text: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${text}`);
const isolate = values.isolate ?? false;
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const benchDir = join(repoRoot(), '.runs', `bench-healing-${stamp}`);
mkdirSync(benchDir, { recursive: true });
let runs = 0;
const newRun = () =>
  new LoopRun({
    label: 'bench-healing',
    packages: Number(values.packages),
    probeCount: Number(values.probes),
    probeIntervalSeconds: interval,
    runDir: join(benchDir, `system-${(runs += 1)}`),
    say: log,
    ...(Object.keys(sentinelEnv).length > 0 ? { env: { sentinel: sentinelEnv } } : {}),
    ...(langchain
      ? { rag: { kind: 'langchain' as const, modelPath, samplesPerProbe: Number(values.samples), sampleAlpha: Number(values.alpha) } }
      : {}),
  });
const rawFile = join(benchDir, 'trials.jsonl');
const trials: TrialResult[] = [];
const compoundPairs = parseCompoundPairs(values.compound);
for (const pair of compoundPairs)
  for (const { kind, mode } of pair)
    if (langchain && !isOperatorFault(kind) && !(kind === 'knowledge-source-failure' && mode === 'stale'))
      throw new Error(`--compound: --rag langchain has no fault API, so not ${kind}${mode === undefined ? '' : `:${mode}`}`);
    else if (!langchain && isDeployFault(kind))
      throw new Error(`--compound: ${kind} redeploys the LangChain RAG with a regressed prompt: only with --rag langchain`);
const compoundTrials: CompoundTrialResult[] = [];
/** RAG calls behind the probe results of each trial's window (single and compound), by trial. */
const trialCalls = new Map<object, RagCallCount>();
let clean = { rounds: 0, results: 0, anomalies: 0, reports: 0, actions: 0 };
/** The clean phase's probe results (FCS of the online answers, samples per result). */
let cleanResults: ProbeResult[] = [];
interface SentinelTiming {
  fcsSeconds: number;
  fcsCalls: number;
  runSeconds: number;
  runs: number;
  /** rag_immune_sentinel_rag_calls_per_result's sum and count: RAG calls and the results they made. */
  ragCalls?: RagCallCount;
}
let cleanTiming: SentinelTiming | undefined;
/** Faults that could not be injected into this RAG (the operator fault's writes do not fit its payload). */
const notInjected: { label: string; reason: string }[] = [];
const startedAt = new Date();
const startLoad = loadavg();

// Kinds whose repair would mask a later one in the same cycle come late; the unseen kind (nothing
// heals it) last. Each cycle runs every kind once on one fresh online RAG, then the RAG is reset.
// With --isolate every trial gets its own RAG pair and its own four workers (nothing carries over).
const ORDER = [
  'vector-index-corruption',
  'reranker-drift',
  'tokenizer-anomaly',
  'parser-bug',
  'knowledge-source-failure',
  // Before answer validation (the generator repair) stays on, and before the unseen kind.
  'unpublished-knowledge',
  'attribution-swap',
  'generator-inconsistency',
  // Its repair (the generator pinned back) stays on for the rest of the cycle; nothing later depends on the prompt.
  'prompt-regressed',
  'embedding-model-swap',
];
const rankOf = (kind: string) => (ORDER.includes(kind) ? ORDER.indexOf(kind) : ORDER.length);
const cycleSpecs = [...specs].sort((a, b) => rankOf(a.kind) - rankOf(b.kind));
/** The row a trial belongs to. */
const specOf = (t: TrialResult) => cycleSpecs.find((s) => s.kind === t.plan.kind && (s.mode === undefined || s.mode === t.plan.mode));

/**
 * The probe results of a trial's window, beside the trial's worker logs: enough to tell afterwards
 * why a fault went undetected (which probes ran, what they scored, which signals fired).
 */
function dumpProbes(trial: TrialResult): void {
  const from = trial.injectStartedAt - run.probeIntervalMs * 2;
  const lines = run.recorder.probes
    .filter((p) => p.event.occurred_at >= from && p.event.occurred_at <= trial.endedAt)
    .map(({ event: p }) => ({
      at_s: Number(((p.occurred_at - trial.injectedAt) / 1000).toFixed(1)),
      probe_id: p.probe_id,
      anomaly: p.anomaly,
      signals: p.anomaly_signals,
      online_fcs: p.online.signals?.fcs ?? null,
      baseline_fcs: p.baseline.signals?.fcs ?? null,
      fcs_drop: p.comparison.fcs_drop,
      answer_agreement: p.comparison.answer_agreement,
      online_call: p.online.call_status,
    }));
  appendFileSync(
    join(run.runDir, 'trial-probes.jsonl'),
    lines.map((l) => JSON.stringify({ trial: `${trial.plan.kind}/${trial.plan.seed}`, ...l })).join('\n') + '\n',
  );
}

/** The RAG calls behind every probe result published in a trial's window (all probes, not only the touched). */
function callsIn(from: number, to: number): RagCallCount {
  return countRagCalls(run.recorder.probes.filter((p) => p.event.occurred_at >= from && p.event.occurred_at <= to).map((p) => p.event));
}

function record(trial: TrialResult): void {
  trials.push(trial);
  trialCalls.set(trial, callsIn(trial.injectStartedAt, trial.endedAt));
  dumpProbes(trial);
  appendFileSync(
    rawFile,
    `${JSON.stringify({
      ...trial,
      rag_calls: trialCalls.get(trial),
      firstAnomaly: undefined,
      firstReport: undefined,
      finalReport: trial.finalReport
        ? {
            root_cause: trial.finalReport.root_cause,
            affected_component: trial.finalReport.affected_component,
            confidence: trial.finalReport.confidence,
            report_revision: trial.finalReport.report_revision,
          }
        : null,
    })}\n`,
  );
  const s = (at?: number) => (at === undefined ? '-' : ((at - trial.injectedAt) / 1000).toFixed(1));
  log(
    `  -> ${trial.outcome}: detected ${s(trial.detectedAt)} s, correct report ${s(trial.correctReportAt)} s, verified ${s(trial.verifiedAt)} s, ` +
      `sentinel recovered ${s(trial.sentinelRecoveredAt)} s, cause ${trial.finalReport?.root_cause ?? '-'}, actions ${trial.actions.length}, ` +
      `rollbacks ${trial.rollbacks}, wrong repair verified ${trial.wrongRepairVerified}, RAG calls per result ${callsPerResultText(trialCalls.get(trial)!)}`,
  );
  writeResults(false);
}

const planOf = (kind: string, i: number, mode?: string): FaultPlan => {
  const expectation = expectationOf(kind);
  return {
    kind,
    mode: mode ?? expectation.modes[i % expectation.modes.length]!,
    fraction: FRACTIONS[i % FRACTIONS.length]!,
    seed: `bench-${i}`,
  };
};

let run = newRun();
try {
  await run.start();
  const rounds = Number(values['clean-rounds']);
  log(`${rounds} clean rounds, no fault`);
  const cleanSince = Date.now();
  const timingBefore = await sentinelTiming();
  // Round by round: cleanRounds' deadline assumes the configured interval, and a sampled round of the
  // LangChain RAG (k calls a side, one probe at a time) takes longer than that.
  const counted = { anomalies: 0, reports: 0, actions: 0, results: 0 };
  for (let r = 0; r < rounds; r += 1) {
    const round = await run.cleanRounds(1);
    for (const key of Object.keys(counted) as (keyof typeof counted)[]) counted[key] += round[key];
  }
  clean = { rounds, ...counted };
  const timingAfter = await sentinelTiming();
  cleanTiming = {
    fcsSeconds: timingAfter.fcsSeconds - timingBefore.fcsSeconds,
    fcsCalls: timingAfter.fcsCalls - timingBefore.fcsCalls,
    runSeconds: timingAfter.runSeconds - timingBefore.runSeconds,
    runs: timingAfter.runs - timingBefore.runs,
    ...(timingAfter.ragCalls && timingBefore.ragCalls
      ? {
          ragCalls: {
            calls: timingAfter.ragCalls.calls - timingBefore.ragCalls.calls,
            results: timingAfter.ragCalls.results - timingBefore.ragCalls.results,
          },
        }
      : {}),
  };
  cleanResults = run.recorder.probes.filter((p) => p.receivedAt >= cleanSince).map((p) => p.event);
  log(`clean: ${JSON.stringify(clean)}`);
  let first = true;
  for (let i = 0; i < trialsPerKind; i += 1) {
    if (!isolate && i > 0) {
      log(`cycle ${i + 1}: fresh online RAG`);
      await run.resetOnline();
      await run.cleanRounds(1);
    }
    let redeployedThisCycle = false;
    for (const spec of cycleSpecs) {
      const { kind } = spec;
      if (isolate && !first) {
        await run.close();
        run = newRun();
        await run.start();
        await run.cleanRounds(1);
      }
      first = false;
      // A redeploy starts the online RAG with every setting deployed so far this cycle, and its start
      // re-syncs the index from the feeds: a second redeploy after a stale feed (healed by a feed switch
      // that a restart forgets) would bring the stale feed back. So it gets a fresh online RAG.
      if (!isolate && redeploys(kind, !langchain)) {
        if (redeployedThisCycle) {
          log(`${spec.label}: a redeploy already ran this cycle: fresh online RAG`);
          await run.resetOnline();
          await run.cleanRounds(1);
        }
        redeployedThisCycle = true;
      }
      const plan = planOf(kind, i, spec.mode);
      log(`trial ${spec.label} #${i + 1}: ${JSON.stringify(plan)}`);
      let trial: TrialResult;
      try {
        trial = await runTrial(run.context, plan, { timeoutMs: Number(values.timeout) * 1000 });
      } catch (error) {
        // An operator fault whose writes do not fit this RAG's payload fails before writing anything.
        const reason = error instanceof Error ? error.message : String(error);
        log(`  -> not injected: ${reason}`);
        if (!notInjected.some((n) => n.label === spec.label)) notInjected.push({ label: spec.label, reason });
        writeResults(false);
        continue;
      }
      record(trial);
      // The next fault must be a new incident: let this one close (clean rounds after the repair).
      if (!isolate && trial.outcome === 'healed') await run.incidentsClosed(trial.incidents, run.probeIntervalMs * 8 + 30_000);
    }
  }
  // Compound trials: each pair on a fresh online RAG, --compound-trials times with its own seed (trial t
  // takes each kind's t-th mode unless the pair pins one); goal both causes named, both repaired, no
  // right repair undone. The first trial of pair i keeps the seed one trial per pair had (bench-compound-i).
  for (let t = 0; t < compoundTrialsPerPair; t += 1)
    for (const [i, pair] of compoundPairs.entries()) {
      const seed = t === 0 ? `bench-compound-${i}` : `bench-compound-${i}-${t}`;
      const plans = pair.map(({ kind, mode }) => ({ ...planOf(kind, t, mode), fraction: 0.25, seed }));
      log(`compound trial ${plans.map((p) => `${p.kind}:${p.mode}`).join(' + ')} #${t + 1} (${seed}): fresh online RAG`);
      await run.resetOnline();
      await run.cleanRounds(1);
      let trial: CompoundTrialResult;
      try {
        trial = await runCompoundTrial(run.context, plans, { timeoutMs: Number(values.timeout) * 1000 });
      } catch (error) {
        // A pair that cannot be injected (no documents left for the second fault) is reported, not fatal.
        const reason = error instanceof Error ? error.message : String(error);
        log(`  -> not run: ${reason}`);
        const label = `compound ${pair.map((f) => f.kind).join(' + ')}`;
        if (!notInjected.some((n) => n.label === label)) notInjected.push({ label, reason });
        continue;
      }
      compoundTrials.push(trial);
      trialCalls.set(trial, callsIn(trial.injectedAt, trial.endedAt));
      appendFileSync(rawFile, `${JSON.stringify({ compound: pair, seed, rag_calls: trialCalls.get(trial), ...trial })}\n`);
      log(
        `  -> ${trial.outcome}: causes ${trial.namedCauses.join('+') || '-'}, repaired by ${trial.repairedBy.join(' + ')}, ` +
          `right repairs undone ${trial.rightRepairsUndone.length}, actions ${trial.actions.join(' ')}, ` +
          `RAG calls per result ${callsPerResultText(trialCalls.get(trial)!)}`,
      );
      writeResults(false);
      if (trial.outcome === 'healed') await run.incidentsClosed(trial.incidents, run.probeIntervalMs * 8 + 30_000);
    }
} finally {
  await run.close();
}
writeResults(true);
log(`written ${values.out}; raw trials and worker logs in ${benchDir}`);
process.exit(0);

// ---- figures ----
/** The sentinel's cumulative FCS scoring time and probe run time, from its /metrics. */
async function sentinelTiming(): Promise<SentinelTiming> {
  const sentinel = run.system.instances.find((i) => i.kind === 'sentinel');
  if (sentinel === undefined) throw new Error('no sentinel in this run');
  const text = await (await fetch(`${sentinel.url}/metrics`)).text();
  const value = (name: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    if (line === undefined) throw new Error(`the sentinel's /metrics has no ${name}`);
    return Number(line.slice(name.length + 1));
  };
  const [callsSum, callsCount] = [
    metricValue(text, 'rag_immune_sentinel_rag_calls_per_result_sum'),
    metricValue(text, 'rag_immune_sentinel_rag_calls_per_result_count'),
  ];
  return {
    fcsSeconds: value('rag_immune_fcs_score_seconds_sum'),
    fcsCalls: value('rag_immune_fcs_score_seconds_count'),
    runSeconds: value('rag_immune_sentinel_probe_run_seconds_sum'),
    runs: value('rag_immune_sentinel_probe_run_seconds_count'),
    ...(callsSum !== undefined && callsCount !== undefined ? { ragCalls: { calls: callsSum, results: callsCount } } : {}),
  };
}

/**
 * The clean phase's FCS of the online and baseline answers, the samples behind each result, and the
 * share of the sentinel's probe run time spent scoring FCS (its scorer's timer over its run timer).
 */
function timingText(): string {
  if (cleanTiming === undefined || cleanTiming.runs === 0)
    return 'FCS share of probe time: not measured (no probe run in the clean phase).';
  const t = cleanTiming;
  return (
    `FCS share of probe time: **${((100 * t.fcsSeconds) / t.runSeconds).toFixed(1)}%** (the sentinel's FCS scorer ${t.fcsSeconds.toFixed(1)} s over ` +
    `${t.fcsCalls} scoring calls, ${(t.fcsSeconds / Math.max(1, t.fcsCalls)).toFixed(3)} s each, of ${t.runSeconds.toFixed(1)} s in ${t.runs} probe runs, ` +
    `${(t.runSeconds / t.runs).toFixed(1)} s a run; from its /metrics, rag_immune_fcs_score_seconds over rag_immune_sentinel_probe_run_seconds).`
  );
}

function fcsText(): string {
  if (cleanResults.length === 0) return '';
  const quantile = (xs: number[], q: number) => {
    if (xs.length === 0) return '—';
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!.toFixed(3);
  };
  const fcs = (side: 'online' | 'baseline') =>
    cleanResults.map((r) => r[side].signals?.fcs).filter((x): x is number => typeof x === 'number');
  const [online, baseline] = [fcs('online'), fcs('baseline')];
  const samples = [...new Set(cleanResults.map((r) => r.comparison.samples ?? 1))].join(', ');
  const signals = cleanResults.flatMap((r) => r.anomaly_signals);
  const metricCalls = cleanTiming?.ragCalls;
  const calls = `RAG calls per probe result: **${callsPerResultText(countRagCalls(cleanResults))}** from the results' own counts (the pooled test's \`rag_calls\`, else k a side)${
    metricCalls
      ? `; the sentinel's /metrics (rag_immune_sentinel_rag_calls_per_result, sum over count): ${callsPerResultText(metricCalls)}`
      : ''
  }.`;
  return `${calls}
Samples a side per result: ${samples}. FCS of the online answers: p50 ${quantile(online, 0.5)}, p99 ${quantile(online, 0.99)} (${online.length} results with an FCS);
baseline: p50 ${quantile(baseline, 0.5)}, p99 ${quantile(baseline, 0.99)}. Anomaly signals: ${signals.length === 0 ? 'none' : signals.join(', ')}.
${timingText()}
`;
}

/** Per kind: how often the final report named each cause ("none": no report). */
function namedCausesText(): string {
  const lines = cycleSpecs.flatMap((spec) => {
    const ts = trials.filter((t) => specOf(t) === spec);
    if (ts.length === 0) return [];
    const counts = new Map<string, number>();
    for (const t of ts) counts.set(t.finalReport?.root_cause ?? 'none', (counts.get(t.finalReport?.root_cause ?? 'none') ?? 0) + 1);
    const expected = expectationOf(spec.kind).cause ?? 'unknown (unseen kind: abstain or name the component)';
    return [`- ${spec.label} (expected ${expected}): ${[...counts].map(([cause, n]) => `${cause} ${n}/${ts.length}`).join(', ')}`];
  });
  return lines.join('\n');
}

function indexDiffRow(t: TrialResult): string {
  const d = t.finalReport?.index_diff ?? null;
  const cause = t.finalReport ? `${t.finalReport.root_cause} ${t.finalReport.confidence.toFixed(2)}` : '—';
  if (d === null) return `| ${t.plan.kind} | ${t.plan.mode ?? '-'} | ${cause} | — | | | | | | | | | |`;
  const cosine = d.min_vector_cosine === null ? '' : ` (${d.min_vector_cosine.toFixed(3)})`;
  return `| ${t.plan.kind} | ${t.plan.mode ?? '-'} | ${cause} | ${d.knowledge_ids.length} | ${d.online_points} / ${d.baseline_points} | ${d.missing} | ${d.added_unexpected} | ${d.relabelled} | ${d.payload_changed} | ${d.text_changed} | ${d.vectors_moved}${cosine} | ${d.explained_by.join(', ') || '—'} | ${d.unexplained.join(', ') || '—'} |`;
}

/** RAG calls per probe result in a trial's window. */
function callsPerResult(t: object): string {
  return callsPerResultOf([t]);
}

/** RAG calls per probe result over trials' windows together (a kind's row: its trials' calls over their results). */
function callsPerResultOf(ts: readonly object[]): string {
  const counts = ts.map((t) => trialCalls.get(t)).filter((c): c is RagCallCount => c !== undefined);
  const [calls, results] = [counts.reduce((a, c) => a + c.calls, 0), counts.reduce((a, c) => a + c.results, 0)];
  return results === 0 ? '—' : (calls / results).toFixed(1);
}

/** The sentinel's settings this run set: the RAG pair's (sampling) and --sentinel-env over them; the rest are its defaults. */
function sentinelSettingsText(): string {
  const settings = { ...run.rag.workerEnv?.sentinel, ...sentinelEnv };
  const keys = Object.keys(settings).sort();
  return keys.length === 0
    ? "Sentinel settings: its defaults (services/sentinel's README)."
    : `Sentinel settings (the RAG pair's${Object.keys(sentinelEnv).length > 0 ? `, --sentinel-env over them` : ''}; the rest its defaults): ${keys.map((k) => `\`${k}=${settings[k]}\``).join(', ')}.`;
}

/** Writes RESULTS.md from the trials so far (after every trial, so an interrupted run leaves its figures). */
function writeResults(final: boolean): void {
  const secondsSince = (t: TrialResult, at?: number) => (at === undefined ? undefined : (at - t.injectedAt) / 1000);
  const stats = (xs: (number | undefined)[]) => {
    const v = xs.filter((x): x is number => x !== undefined);
    if (v.length === 0) return '—';
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
    return `${mean.toFixed(1)} ± ${sd.toFixed(1)} s${v.length < xs.length ? ` (${v.length}/${xs.length})` : ''}`;
  };
  const pct = (n: number, d: number) => (d === 0 ? '—' : `${Math.round((100 * n) / d)}% (${n}/${d})`);
  const rows: string[] = [];
  for (const spec of cycleSpecs) {
    const ts = trials.filter((t) => specOf(t) === spec);
    if (ts.length === 0) continue;
    const unseen = expectationOf(spec.kind).cause === null;
    rows.push(
      `| ${spec.label}${unseen ? ' (unseen)' : ''} | ${ts.length} | ${stats(ts.map((t) => secondsSince(t, t.detectedAt)))} | ${stats(ts.map((t) => secondsSince(t, t.correctReportAt)))} | ${
        unseen ? '—' : stats(ts.map((t) => secondsSince(t, t.verifiedAt)))
      } | ${pct(ts.filter((t) => t.localised).length, ts.length)} | ${
        unseen
          ? `no wrong repair verified: ${pct(ts.filter((t) => !t.wrongRepairVerified).length, ts.length)}`
          : pct(ts.filter((t) => t.outcome === 'healed').length, ts.length)
      } | ${unseen ? '—' : pct(ts.filter((t) => t.sentinelRecoveredAt !== undefined).length, ts.length)} | ${(ts.reduce((a, t) => a + t.actions.length, 0) / ts.length).toFixed(1)} | ${ts.reduce((a, t) => a + t.rollbacks, 0)} | ${[...new Set(ts.map((t) => t.outcome))].join(', ')} | ${callsPerResultOf(ts)} |`,
    );
  }
  const perTrial = trials.map((t) => {
    const s = (at?: number) => secondsSince(t, at)?.toFixed(1) ?? '—';
    return `| ${t.plan.kind} | ${t.plan.mode} | ${t.plan.fraction} | ${t.plan.seed} | ${t.touched.length} | ${s(t.detectedAt)} | ${s(t.firstReportAt)} | ${s(t.correctReportAt)} | ${s(t.verifiedAt)} | ${
      t.finalReport ? `${t.finalReport.root_cause} ${t.finalReport.confidence.toFixed(2)}` : '—'
    } | ${t.actions.map((a) => `${a.intent}:${a.statuses.at(-1)}`).join(' ') || '—'} | ${t.outcome} | ${callsPerResult(t)} |`;
  });
  const compoundRows = compoundTrials.map((t) => {
    const s = (at?: number) => (at === undefined ? '—' : ((at - t.injectedAt) / 1000).toFixed(1));
    const causes = t.faults.map((f) => expectationOf(f.plan.kind).cause);
    const named = causes.filter((c) => c !== null && t.namedCauses.includes(c)).length;
    return `| ${t.faults.map((f) => `${f.plan.kind}/${f.plan.mode ?? '-'}`).join(' + ')} | ${s(t.detectedAt)} | ${named}/${causes.length} (${t.namedCauses.join(', ') || '—'}) | ${t.repairedBy.map((r) => r ?? '—').join(' + ')} | ${t.rightRepairsUndone.length} | ${t.partials.length} | ${s(t.sentinelRecoveredAt)} | ${t.actions.join(' ') || '—'} | ${t.outcome} | ${callsPerResult(t)} |`;
  });
  const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Debian 12, Node ${process.version}; load average (1/5/15 min) ${load(startLoad)} at the start, ${load(loadavg())} when written`;
  const ragText = langchain
    ? `the LangChain RAG (services/langchain-rag: @langchain/qdrant behind an alias, Gemma 3 270M sampling at temperature 0.7, a new seed per call;
watched only through its OTLP traces via the trace intake) over ${values.packages} Debian packages, both sides sampling: each probe result is
${values.samples} calls a side and the sampled test at alpha ${values.alpha} (sentinel and effector verification)`
    : `reference RAG over ${values.packages} Debian packages`;
  const markdown = `# bench/healing results${langchain ? ': the LangChain RAG (Gemma 3 270M, sampled)' : ''}

\`npm run stack -- up && npx tsx bench/healing/run.ts ${process.argv.slice(2).join(' ')}\` (the command as run; \`npm run bench:healing\` is the full matrix${langchain ? ' on the reference RAG' : ''})
(\`bench/healing/run.ts\`; raw per-trial records in \`.runs/bench-healing-<time>/trials.jsonl\`, worker logs beside it).

${final ? '' : `**Partial: ${trials.length + notInjected.length} of ${trialsPerKind * specs.length} trials done when this was written.**\n\n`}Run of ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}, sharing the machine with the local stack
(Kafka, schema registry, Elasticsearch, the Qdrant server the stack runs, Prometheus) and other work. Probe interval **${interval} s**
(the seed's: 10 min), ${values.probes} golden probes, ${ragText}, effector in \`auto\` mode.
${sentinelSettingsText()}
${
  isolate
    ? 'Every trial runs on its own fresh RAG pair and its own four workers (nothing carries over from one fault to the next),\nafter one clean round; the fault is '
    : 'Trials run in cycles: each cycle injects every kind once, in the order below, on one fresh online RAG on the same URL\n(the identifier, effector and memory keep running; memory accumulates cases), each fault after the previous incident closed,\n'
}${
    langchain
      ? 'written straight into the online Qdrant collection through its alias, or deployed as a new build of the online RAG (no fault API)'
      : 'injected through the admin API'
  } and never undone by the benchmark. Times are seconds after the fault was in effect; "detected" is when the first anomaly reached the bus (before 2026-12-07, its probe's start: about 0.3 s earlier on the reference RAG, a sampled probe's minute on the LangChain RAG).

## Clean rounds (no fault)

${clean.rounds} rounds, ${clean.results} probe results: **${clean.anomalies} anomalies, ${clean.reports} reports, ${clean.actions} repair actions**.
${fcsText()}
${
  notInjected.length === 0
    ? ''
    : `\n## Faults not injected into this RAG\n\n${notInjected.map((n) => `- ${n.label}: ${n.reason}`).join('\n')}\n`
}
## Fault matrix

"RAG calls / result": the RAG calls (both sides, every probe) behind each probe result published from the injection to the
trial's end, over the kind's trials; what the sampled mode spends while a fault is on.

| fault | trials | detection | correct report | verified recovery (MTTR) | localisation | repair success | sentinel saw recovery | actions / trial | rollbacks | outcomes | RAG calls / result |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

## What each fault was named, and what the index diff said changed

Per kind, the final report's cause over its trials; per trial, the index diff the last report carried (the identifier's
own read of the online and baseline Qdrant collections for the knowledge it implicates; "—": no diff read, a fault
with no knowledge scope or none implicated). Columns count chunks: missing, added (versions the baseline lacks, valid
before its pin), relabelled (same text, other id), payload (version or validity changed), text (rewritten in place),
vectors (moved: cosine < 0.999, min cosine in brackets); "explained by" the catalogue causes whose signature it shows,
"unexplained" the changes none explains.

${namedCausesText()}

| fault | mode | final cause | ids diffed | points online / baseline | missing | added | relabelled | payload | text | vectors (min cos) | explained by | unexplained |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${trials.map(indexDiffRow).join('\n')}

## Compound trials (two faults at once)

Each on a fresh online RAG, ${compoundTrialsPerPair} trial(s) per pair with their own seeds; scoped faults on different documents (a quarter of the probed knowledge each).
Goal: both causes named, both repaired, no repair that healed a probe (and worsened none) undone, the sentinel seeing every touched probe clean.
"RAG calls / result": the calls behind each probe result published from the injection to the trial's end (every probe, both sides).

| faults | detected | causes named | repaired by | right repairs undone | partial recoveries kept | sentinel saw recovery | actions | outcome | RAG calls / result |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${compoundRows.join('\n') || '| (none run) | | | | | | | | | |'}

## The seed's table (003 §4.3, staging, probe interval 10 min)

| fault | detection | localisation | repair success | MTTR |
| --- | --- | --- | --- | --- |
| knowledge source failure | 9.2 ± 1.3 min | 100% | 100% | 4.1 min |
| model (reranker) drift | 3.7 ± 0.8 min | 92% | 100% | 2.3 min |
| vector index corruption | 1.5 ± 0.4 min | 100% | 100% | 1.8 min |

## Every trial

| fault | mode | fraction | seed | touched probes | detected | first report | correct report | verified | final cause | actions (last status) | outcome | RAG calls / result |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${perTrial.join('\n')}
`;
  writeFileSync(values.out, markdown);
  if (final) console.log(`\n${markdown}`);
}
