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
 *                            [--keep-raw bench/healing/runs]
 *
 * The results page is rendered from the run's records (test-kit loop/healing-records.ts and
 * healing-report.ts) after every trial. --keep-raw DIR copies them to DIR/<stamp>/ (run.json,
 * trials.jsonl: golden probes only, committable); bench/healing/merge.ts renders one page from
 * several kept runs, for a matrix longer than one session (the LangChain RAG's).
 *
 * Compound pairs run --compound-trials trials each (default --trials, at least 1: `--trials 0` runs
 * the pairs alone), each on a fresh online RAG (with --isolate, a fresh RAG pair and workers), each with its own seed and each kind's modes in turn; a pair's faults go in the
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
import { execFileSync } from 'node:child_process';
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
import {
  HEALING_RUN_RECORD_VERSION,
  trialRowOf,
  type HealingCleanPhase,
  type HealingRun,
  type SentinelTiming,
} from '@rag-immune/test-kit/loop/healing-records';
import { faultSpecOf, kindRank, renderHealingResults } from '@rag-immune/test-kit/loop/healing-report';

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
    // Copies the run's records (run.json, trials.jsonl) to DIR/<stamp>/ after every trial (committable:
    // golden probes only), for bench/healing/merge.ts to render one matrix from several runs.
    'keep-raw': { type: 'string' },
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

const trialsPerKind = Number(values.trials);
const specs = values.kinds
  .split(',')
  .filter(Boolean)
  .map((text) => {
    const spec = faultSpecOf(text);
    const { kind, mode } = spec;
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
    return spec;
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
const keepDir = values['keep-raw'] === undefined ? undefined : join(values['keep-raw'], stamp);
if (keepDir !== undefined) mkdirSync(keepDir, { recursive: true });
const compoundPairs = parseCompoundPairs(values.compound);
for (const pair of compoundPairs)
  for (const { kind, mode } of pair)
    if (langchain && !isOperatorFault(kind) && !(kind === 'knowledge-source-failure' && mode === 'stale'))
      throw new Error(`--compound: --rag langchain has no fault API, so not ${kind}${mode === undefined ? '' : `:${mode}`}`);
    else if (!langchain && isDeployFault(kind))
      throw new Error(`--compound: ${kind} redeploys the LangChain RAG with a regressed prompt: only with --rag langchain`);
/** This run as its records (loop/healing-records.ts): RESULTS is rendered from them after every trial. */
const record: HealingRun = {
  header: {
    version: HEALING_RUN_RECORD_VERSION,
    stamp,
    command: ['npx tsx bench/healing/run.ts', ...process.argv.slice(2)].join(' '),
    commit: gitCommit(),
    startedAt: new Date().toISOString(),
    endedAt: new Date().toISOString(),
    machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Debian 12, Node ${process.version}`,
    loadAtStart: loadavg(),
    loadAtEnd: loadavg(),
    rag: langchain ? 'langchain' : 'reference',
    ragText: langchain
      ? `the LangChain RAG (services/langchain-rag: @langchain/qdrant behind an alias, Gemma 3 270M sampling at temperature 0.7, a new seed per call;
watched only through its OTLP traces via the trace intake) over ${values.packages} Debian packages, both sides sampling: each probe result is
${values.samples} calls a side and the sampled test at alpha ${values.alpha} (sentinel and effector verification)`
      : `reference RAG over ${values.packages} Debian packages`,
    packages: Number(values.packages),
    probes: Number(values.probes),
    interval: Number(values.interval),
    ...(langchain ? { samples: Number(values.samples), alpha: Number(values.alpha) } : {}),
    isolate: values.isolate ?? false,
    sentinelSettings: {},
    sentinelEnvGiven: false,
    kinds: specs.map((s) => (s.mode === undefined ? s.kind : `${s.kind}:${s.mode}`)),
    trialsPerKind,
    compoundPairs: compoundPairs.map((pair) => pair.map((f) => (f.mode === undefined ? f.kind : `${f.kind}:${f.mode}`)).join('+')),
    compoundTrialsPerPair,
    clean: {
      rounds: 0,
      results: 0,
      anomalies: 0,
      reports: 0,
      actions: 0,
      onlineFcs: [],
      baselineFcs: [],
      samples: [],
      signals: [],
      calls: { calls: 0, results: 0 },
    },
    // Faults that could not be injected into this RAG (the operator fault's writes do not fit its payload).
    notInjected: [],
    finished: false,
  },
  trials: [],
  compounds: [],
};
const { notInjected } = record.header;

// Each cycle runs every kind once on one fresh online RAG, in HEALING_KIND_ORDER (kinds whose repair
// would mask a later one come late), then the RAG is reset. With --isolate every trial gets its own
// RAG pair and its own four workers (nothing carries over).
const cycleSpecs = [...specs].sort((a, b) => kindRank(a.kind) - kindRank(b.kind));

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

function recordTrial(trial: TrialResult): void {
  const calls = callsIn(trial.injectStartedAt, trial.endedAt);
  const row = trialRowOf(trial, calls);
  record.trials.push(row);
  dumpProbes(trial);
  appendFileSync(rawFile, `${JSON.stringify(row)}\n`);
  const s = (at?: number) => (at === undefined ? '-' : ((at - trial.injectedAt) / 1000).toFixed(1));
  log(
    `  -> ${trial.outcome}: detected ${s(trial.detectedAt)} s, correct report ${s(trial.correctReportAt)} s, verified ${s(trial.verifiedAt)} s, ` +
      `sentinel recovered ${s(trial.sentinelRecoveredAt)} s, cause ${trial.finalReport?.root_cause ?? '-'}, actions ${trial.actions.length}, ` +
      `rollbacks ${trial.rollbacks}, wrong repair verified ${trial.wrongRepairVerified}, RAG calls per result ${callsPerResultText(calls)}`,
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
  // The RAG pair exists once started: its sentinel settings (sampling), --sentinel-env over them.
  record.header.sentinelSettings = { ...run.rag.workerEnv?.sentinel, ...sentinelEnv };
  record.header.sentinelEnvGiven = Object.keys(sentinelEnv).length > 0;
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
  const timingAfter = await sentinelTiming();
  const timing: SentinelTiming = {
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
  record.header.clean = cleanPhaseOf(
    rounds,
    counted,
    run.recorder.probes.filter((p) => p.receivedAt >= cleanSince).map((p) => p.event),
    timing,
  );
  const { onlineFcs: _o, baselineFcs: _b, ...clean } = record.header.clean;
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
      recordTrial(trial);
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
      log(
        `compound trial ${plans.map((p) => `${p.kind}:${p.mode}`).join(' + ')} #${t + 1} (${seed}): ${isolate ? 'fresh RAG pair and workers' : 'fresh online RAG'}`,
      );
      // With --isolate a pair gets its own workers too, as a single fault does: the effector's
      // component breaker (6 repairs of one component in 600 s) counts across the trials of shared
      // workers, and on 2026-12-07 it escalated the third parser-bug + vector-index-corruption pair
      // after the pairs before it had reindexed six times in ten minutes.
      if (isolate && !first) {
        await run.close();
        run = newRun();
        await run.start();
      } else await run.resetOnline();
      first = false;
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
      const row = { compound: pair, seed, rag_calls: callsIn(trial.injectedAt, trial.endedAt), ...trial };
      record.compounds.push(row);
      appendFileSync(rawFile, `${JSON.stringify(row)}\n`);
      log(
        `  -> ${trial.outcome}: causes ${trial.namedCauses.join('+') || '-'}, repaired by ${trial.repairedBy.join(' + ')}, ` +
          `right repairs undone ${trial.rightRepairsUndone.length}, actions ${trial.actions.join(' ')}, ` +
          `RAG calls per result ${callsPerResultText(row.rag_calls)}`,
      );
      writeResults(false);
      if (trial.outcome === 'healed') await run.incidentsClosed(trial.incidents, run.probeIntervalMs * 8 + 30_000);
    }
} finally {
  await run.close();
}
record.header.finished = true;
writeResults(true);
log(`written ${values.out}; raw trials and worker logs in ${benchDir}${keepDir ? `, records kept in ${keepDir}` : ''}`);
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

/** The clean phase's record: its counts and what its probe results gave (numbers only). */
function cleanPhaseOf(
  rounds: number,
  counted: { anomalies: number; reports: number; actions: number; results: number },
  results: readonly ProbeResult[],
  timing: SentinelTiming,
): HealingCleanPhase {
  const fcs = (side: 'online' | 'baseline') => results.map((r) => r[side].signals?.fcs).filter((x): x is number => typeof x === 'number');
  return {
    rounds,
    ...counted,
    onlineFcs: fcs('online'),
    baselineFcs: fcs('baseline'),
    samples: [...new Set(results.map((r) => r.comparison.samples ?? 1))],
    signals: results.flatMap((r) => r.anomaly_signals),
    calls: countRagCalls(results),
    timing,
  };
}

function gitCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot(), encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repoRoot(), encoding: 'utf8' }).trim();
    return dirty === '' ? commit : `${commit} (with uncommitted changes)`;
  } catch {
    return 'unknown';
  }
}

/** Writes RESULTS from the records so far (after every trial, so an interrupted run leaves its figures), and the kept copy. */
function writeResults(final: boolean): void {
  record.header.endedAt = new Date().toISOString();
  record.header.loadAtEnd = loadavg();
  if (keepDir !== undefined) {
    writeFileSync(join(keepDir, 'run.json'), `${JSON.stringify(record.header, null, 2)}\n`);
    writeFileSync(join(keepDir, 'trials.jsonl'), [...record.trials, ...record.compounds].map((row) => `${JSON.stringify(row)}\n`).join(''));
  }
  const markdown = renderHealingResults([record], {
    rawRecords: keepDir ?? join('.runs', `bench-healing-${stamp}`, 'trials.jsonl'),
  });
  writeFileSync(values.out, markdown);
  if (final) console.log(`\n${markdown}`);
}
