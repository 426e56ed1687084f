/**
 * The traffic benchmark (issue 38; npm run bench:traffic): the real local stack, the reference RAG
 * pair, the trace intake and the four workers as processes (LoopRun's traffic option), the online
 * RAG exporting every answer's spans to the intake and the sentinel's traffic watcher on, simulated
 * users (test kit TrafficGenerator, Zipf popularity, paraphrases, some questions outside the
 * knowledge) asking about a random set of the knowledge. Per knowledge size (--packages, a list):
 *
 * 1. a quiet window with no users: the sentinel's CPU for its golden probes alone;
 * 2. a clean-traffic phase of --clean-answers traced answers: incidents must be 0; segments flagged
 *    and rejected by replay; the sentinel's CPU beyond the quiet window's, per traced answer; answers/s;
 * 3. fault trials: each fault placed on one knowledge id drawn at random among those the users asked
 *    about (often enough to be profiled) and that no golden probe covers, written straight into the
 *    online collection (the operator faults: vectors-overwritten garbage and deleted,
 *    unpublished-knowledge, attribution-swap), then only watched: detection from traffic (a
 *    ProbeResult with origin traffic, published only after the shadow replay confirmed the segment),
 *    the RootCauseReport's cause, the verified repair (MTTR). A trial follows the previous one once
 *    its incidents closed; after one that did not heal, the online RAG is reset (fresh ingest).
 *
 *   npx tsx bench/traffic/run.ts [--rag reference|langchain] [--packages 25,200] [--trials 3] [--faults a,b]
 *                                [--clean-answers 10000] [--rate 8] [--asked 12] [--probes 10] [--interval 4]
 *                                [--timeout 300] [--out bench/traffic/RESULTS.md] [--keep-raw bench/traffic/runs]
 *                                [--kinds a,b (same as --faults)] [--sentinel-env KEY=VALUE,KEY=VALUE]
 *                                [--effector-env KEY=VALUE,... (default EFFECTOR_COMPONENT_RATE_LIMIT=1000)]
 *
 * Raw records: `.runs/bench-traffic-<stamp>/` gets run.json (the header: command, time, machine, load,
 * settings), clean.jsonl (one clean phase a line), trials.jsonl (one full trial row a line, user
 * queries included: git-ignored) and notes.txt. --keep-raw DIR copies them to DIR/<stamp>/ (committable):
 * the trials there as redacted TrafficTrialRecords (test/kit/src/traffic/bench-records.ts: knowledge ids,
 * counts, times, causes; no query or answer text). RESULTS.md is rendered from the records
 * (test/kit/src/traffic/results-report.ts); bench/traffic/merge.ts renders one RESULTS.md from several
 * runs' records (the issue's matrix takes longer than one session: accumulate it run by run).
 *
 * --sentinel-env sets the sentinel's traffic variables over LoopRun's (e.g. the spot-check budget
 * TRAFFIC_SPOT_CHECKS_PER_SEGMENT_HOUR, or TRAFFIC_CONTENT_PROFILE=0 to measure without the content profile).
 * --effector-env sets the effector's. Its default raises the component circuit breaker
 * (EFFECTOR_COMPONENT_RATE_LIMIT, 6 repairs of one component in 600 s) to 1000: the bench places a
 * fault about every minute, and a trial's verdict must not depend on the trials before it (on
 * 2026-12-07 the seventh vector-index trial in ten minutes was escalated by the breaker, as designed
 * for production, where seven such repairs in ten minutes mean a repair loop). The breaker itself is
 * tested by the effector's tests. Both envs are written into run.json and RESULTS.md.
 *
 * Faults: the operator's, written straight into the online Qdrant collection, and (reference RAG) every
 * knowledge-scoped fault of the RAG's fault API, scoped to the one knowledge id drawn (TRAFFIC_FAULTS).
 * The LangChain RAG has no fault API: only the operator's faults run on it, and its users' answer rate
 * is what Gemma 3 270M sustains on this machine (pass a low --rate).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpus, loadavg, totalmem } from 'node:os';
import { repoRoot } from '@rag-immune/stack';
import { sleep } from '@rag-immune/test-kit';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { parseEnvPairs } from '@rag-immune/test-kit/loop/env-pairs';
import {
  RUN_FILES,
  TRAFFIC_RUN_RECORD_VERSION,
  trialRecordOf,
  type BlindSpotFigures,
  type CleanPhase,
  type TrafficRun,
  type TrafficRunHeader,
  type TrialRow,
} from '@rag-immune/test-kit/traffic/bench-records';
import { renderTrafficResults } from '@rag-immune/test-kit/traffic/results-report';
import { installedModelPath } from '@rag-immune/langchain-rag';
import { callFaultAdmin } from '@rag-immune/rag-contract';
import {
  OPERATOR_TRAFFIC_FAULTS,
  TRAFFIC_FAULTS,
  UserTraffic,
  isFaultApiTrafficFault,
  goldenSources,
  knowledgeWithQuestions,
  placeTrafficFault,
  runTrafficTrial,
  waitForAnswersRead,
  watcherFigures,
  type TrafficFault,
  type TrafficTrialResult,
  type WatcherFigures,
} from '@rag-immune/test-kit/loop/traffic-trial';

const { values: args } = parseArgs({
  options: {
    rag: { type: 'string', default: 'reference' },
    samples: { type: 'string', default: '5' },
    alpha: { type: 'string', default: '0.005' },
    packages: { type: 'string', default: '25,200' },
    trials: { type: 'string', default: '3' },
    faults: { type: 'string' },
    kinds: { type: 'string' },
    'sentinel-env': { type: 'string' },
    'effector-env': { type: 'string', default: 'EFFECTOR_COMPONENT_RATE_LIMIT=1000' },
    'clean-answers': { type: 'string', default: '10000' },
    rate: { type: 'string', default: '8' },
    asked: { type: 'string', default: '12' },
    probes: { type: 'string', default: '10' },
    interval: { type: 'string', default: '4' },
    timeout: { type: 'string', default: '180' },
    'quiet-seconds': { type: 'string', default: '30' },
    seed: { type: 'string' },
    out: { type: 'string', default: 'bench/traffic/RESULTS.md' },
    'keep-raw': { type: 'string' },
  },
});
const packageCounts = args.packages.split(',').map(Number);
if (args.rag !== 'reference' && args.rag !== 'langchain') throw new Error(`--rag: ${args.rag} is not reference or langchain`);
const langchain = args.rag === 'langchain';
const faults = (args.faults ?? args.kinds ?? (langchain ? OPERATOR_TRAFFIC_FAULTS : TRAFFIC_FAULTS).join(','))
  .split(',')
  .filter(Boolean) as TrafficFault[];
if (langchain && faults.some(isFaultApiTrafficFault)) throw new Error('--faults: the LangChain RAG has no fault API');
for (const fault of faults)
  if (!(TRAFFIC_FAULTS as readonly string[]).includes(fault))
    throw new Error(`--faults: ${fault} is not one of ${TRAFFIC_FAULTS.join(', ')}`);
const sentinelEnv = parseEnvPairs(args['sentinel-env']);
const effectorEnv = parseEnvPairs(args['effector-env'], '--effector-env');
const trialsPerFault = Number(args.trials);
const cleanAnswers = Number(args['clean-answers']);
const rate = Number(args.rate);
const askedCount = Number(args.asked);
const timeoutMs = Number(args.timeout) * 1000;
const quietMs = Number(args['quiet-seconds']) * 1000;
const seed = Number(args.seed ?? Math.floor(Math.random() * 1_000_000));
/** Answers a segment needs before a fault on it can be judged (the loop's TRAFFIC_PROFILE_ANSWERS, and a margin). */
const PROFILED_AFTER = 15;

const log = (text: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${text}`);
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const benchDir = join(repoRoot(), '.runs', `bench-traffic-${stamp}`);
mkdirSync(benchDir, { recursive: true });
const rawFile = join(benchDir, RUN_FILES.trials);
const cleanFile = join(benchDir, RUN_FILES.clean);
const keepDir = args['keep-raw'] === undefined ? undefined : join(args['keep-raw'], stamp);
if (keepDir) mkdirSync(keepDir, { recursive: true });
const header: TrafficRunHeader = {
  version: TRAFFIC_RUN_RECORD_VERSION,
  stamp,
  command: `npx tsx bench/traffic/run.ts ${process.argv.slice(2).join(' ')}`.trim(),
  commit: execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=12'], { cwd: repoRoot(), encoding: 'utf8' }).trim(),
  startedAt: new Date().toISOString(),
  machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Debian 12, Node ${process.version}`,
  loadAtStart: loadavg(),
  loadAtEnd: loadavg(),
  rag: langchain ? 'langchain' : 'reference',
  samples: Number(args.samples),
  alpha: Number(args.alpha),
  probes: Number(args.probes),
  interval: Number(args.interval),
  rate,
  asked: askedCount,
  seed,
  sentinelEnv,
  effectorEnv,
  faults,
  packages: packageCounts,
  trialsPerFault,
  cleanAnswers,
  quietSeconds: quietMs / 1000,
  timeoutSeconds: timeoutMs / 1000,
  profiledAfter: PROFILED_AFTER,
};
// Empty record files from the start: a run cut off before its first trial still reads back.
writeFileSync(rawFile, '');
writeFileSync(cleanFile, '');
if (keepDir) {
  writeFileSync(join(keepDir, RUN_FILES.trials), '');
  writeFileSync(join(keepDir, RUN_FILES.clean), '');
}

/** The content profile's and the spot checks' counters, and the replayed queries by outcome (labels WatcherFigures sums away). */
interface LabelledFigures extends BlindSpotFigures {
  replayConfirmed: number;
  replayRejected: number;
}

async function blindSpotFigures(url: string): Promise<LabelledFigures> {
  const response = await fetch(`${url}/metrics`);
  if (!response.ok) throw new Error(`GET ${url}/metrics: ${response.status}`);
  const text = await response.text();
  const value = (pattern: RegExp) =>
    text
      .split('\n')
      .filter((line) => pattern.test(line))
      .reduce((sum, line) => sum + Number(line.split(/\s+/).at(-1)), 0);
  return {
    contentMeasured: value(/^rag_immune_traffic_signal_measured_total\{[^}]*signal="content_novel"/),
    contentBad: value(/^rag_immune_traffic_signal_bad_total\{[^}]*signal="content_novel"/),
    spotChecks: value(/^rag_immune_traffic_spot_checks_total\{/),
    spotDisagree: value(/^rag_immune_traffic_spot_checks_total\{[^}]*outcome="disagree"/),
    replayConfirmed: value(/^rag_immune_traffic_replay_queries_total\{[^}]*outcome="confirmed"/),
    replayRejected: value(/^rag_immune_traffic_replay_queries_total\{[^}]*outcome="rejected"/),
  };
}

const blindDelta = (a: LabelledFigures, b: LabelledFigures): BlindSpotFigures => ({
  contentMeasured: b.contentMeasured - a.contentMeasured,
  contentBad: b.contentBad - a.contentBad,
  spotChecks: b.spotChecks - a.spotChecks,
  spotDisagree: b.spotDisagree - a.spotDisagree,
});
const replaySplit = (a: LabelledFigures, b: LabelledFigures) => ({
  replayConfirmed: b.replayConfirmed - a.replayConfirmed,
  replayRejected: b.replayRejected - a.replayRejected,
});

const cleanPhases: CleanPhase[] = [];
const rows: TrialRow[] = [];
const notes: string[] = [];

const delta = (a: WatcherFigures, b: WatcherFigures) => ({
  flagged: b.flagged - a.flagged,
  confirmed: b.confirmed - a.confirmed,
  rejected: b.rejected - a.rejected,
  replayQueries: b.replayQueries - a.replayQueries,
});

async function benchPackages(packages: number): Promise<void> {
  const run = new LoopRun({
    label: 'bench-traffic',
    packages,
    probeCount: Number(args.probes),
    probeIntervalSeconds: Number(args.interval),
    runDir: join(benchDir, `system-${packages}`),
    traffic: { sentinelEnv },
    env: { effector: effectorEnv },
    ...(langchain
      ? {
          rag: {
            kind: 'langchain' as const,
            modelPath: process.env.LLM_MODEL_PATH ?? installedModelPath(),
            samplesPerProbe: Number(args.samples),
            sampleAlpha: Number(args.alpha),
          },
        }
      : {}),
    say: log,
  });
  let users: UserTraffic | undefined;
  try {
    await run.start();
    const sentinel = () => run.system.worker('sentinel').url;
    const golden = goldenSources(run.probes);
    const asked = knowledgeWithQuestions(run.rag.knowledgeIds, seed + packages).slice(0, askedCount);
    log(`users ask about ${asked.length} knowledge ids (${asked.filter((id) => golden.has(id)).length} of them golden probes' sources)`);

    // 1. The golden probes alone: the sentinel's CPU before any user.
    const quiet0 = await watcherFigures(sentinel());
    const quietStart = Date.now();
    await sleep(quietMs);
    const quiet1 = await watcherFigures(sentinel());
    const quietCpuPerSecond = (quiet1.cpuSeconds - quiet0.cpuSeconds) / ((Date.now() - quietStart) / 1000);

    // 2. Clean traffic.
    users = new UserTraffic({ onlineUrl: run.rag.onlineUrl, knowledgeIds: asked, rate, mix: { seed: seed + packages } });
    const sinceReports = new Set(run.recorder.reports.map((r) => r.event.incident_id));
    const c0 = await watcherFigures(sentinel());
    const b0 = await blindSpotFigures(sentinel());
    const cleanStart = Date.now();
    const probesBefore = run.recorder.probes.length;
    const actionsBefore = run.recorder.actions.length;
    log(`clean traffic: ${rate} answers/s offered until the watcher has read ${cleanAnswers}`);
    const read = await waitForAnswersRead(sentinel(), c0.answersRead, cleanAnswers, Math.max(600_000, (cleanAnswers / rate) * 3000));
    const c1 = await watcherFigures(sentinel());
    const b1 = await blindSpotFigures(sentinel());
    const seconds = (Date.now() - cleanStart) / 1000;
    if (!read)
      notes.push(
        `${packages} packages: the clean phase timed out after ${seconds.toFixed(0)} s with ${c1.answersRead - c0.answersRead} answers read`,
      );
    const cleanProbes = run.recorder.probes.slice(probesBefore).map((p) => p.event);
    const phase: CleanPhase = {
      blind: blindDelta(b0, b1),
      packages,
      knowledgeIds: run.rag.knowledgeIds.size,
      asked: asked.length,
      sent: users.mix.drawn,
      answersRead: c1.answersRead - c0.answersRead,
      skipped: c1.skipped - c0.skipped,
      seconds,
      incidents: new Set(run.recorder.reports.map((r) => r.event.incident_id).filter((id) => !sinceReports.has(id))).size,
      actions: run.recorder.actions.length - actionsBefore,
      trafficAnomalies: cleanProbes.filter((p) => p.anomaly && p.origin === 'traffic').length,
      goldenAnomalies: cleanProbes.filter((p) => p.anomaly && p.origin !== 'traffic').length,
      ...delta(c0, c1),
      ...replaySplit(b0, b1),
      quietCpuPerSecond,
      trafficCpuPerSecond: (c1.cpuSeconds - c0.cpuSeconds) / seconds,
    };
    cleanPhases.push(phase);
    appendFileSync(cleanFile, `${JSON.stringify(phase)}\n`);
    if (keepDir) appendFileSync(join(keepDir, RUN_FILES.clean), `${JSON.stringify(phase)}\n`);
    log(`clean: ${JSON.stringify(phase)}`);
    write(false);

    // 3. Fault trials.
    const plans = Array.from({ length: trialsPerFault }, () => faults).flat();
    for (const [i, fault] of plans.entries()) {
      // The previous incident closes on clean results of its promoted replays (re-run by the sentinel).
      const closed = await run.allIncidentsClosed(120_000);
      if (!closed) log('an earlier incident is still open after 120 s; going on');
      const candidates = asked.filter((id) => (users!.mix.asked.get(id) ?? 0) >= PROFILED_AFTER);
      let plan;
      try {
        plan = placeTrafficFault(fault, candidates, run.probes);
      } catch (error) {
        notes.push(`${packages} packages, ${fault}: not placed (${(error as Error).message})`);
        continue;
      }
      const minutes = (Date.now() - cleanStart) / 60_000;
      const askedPerMinute = (users.mix.asked.get(plan.target) ?? 0) / minutes;
      log(
        `trial ${i + 1}/${plans.length}: ${fault} on ${plan.target}${plan.partner ? ` and ${plan.partner}` : ''} (asked ${askedPerMinute.toFixed(1)}/min)`,
      );
      const f0 = await watcherFigures(sentinel());
      const g0 = await blindSpotFigures(sentinel());
      const trialStart = Date.now();
      const result = await runTrafficTrial(run.context, plan, { timeoutMs });
      if (isFaultApiTrafficFault(fault)) {
        // The repair healed the data, not the fault API's record of the fault: retire it (its undo puts
        // back what the fault changed, a no-op after a verified repair) so the next trial may place it again.
        await callFaultAdmin(
          run.context.onlineUrl,
          'DELETE',
          fault.split(':')[0]!,
          {},
          ...(run.context.ragToken ? [run.context.ragToken] : []),
        ).catch((error: unknown) => log(`  fault record not retired: ${(error as Error).message}`));
      }
      const f1 = await watcherFigures(sentinel()).catch(() => f0);
      const g1 = await blindSpotFigures(sentinel()).catch(() => g0);
      const row: TrialRow = {
        packages,
        result,
        askedPerMinute,
        figures: { ...delta(f0, f1), ...replaySplit(g0, g1) },
        blind: blindDelta(g0, g1),
        seconds: (Date.now() - trialStart) / 1000,
      };
      rows.push(row);
      appendFileSync(rawFile, `${JSON.stringify(row)}\n`);
      // The kept copy is committable: the redacted record, no user query.
      if (keepDir) appendFileSync(join(keepDir, RUN_FILES.trials), `${JSON.stringify(trialRecordOf(row))}\n`);
      log(
        `  -> ${result.harmless ? 'harmless to users' : result.trial.outcome} (${result.userAnswersChanged} of ${result.userQuestions} answers changed); traffic anomaly ${secondsAfter(result, result.trafficDetectedAt)}, verified ${secondsAfter(result, result.trial.verifiedAt)}`,
      );
      write(false);
      if (result.trial.outcome !== 'healed' && !result.harmless && i + 1 < plans.length) {
        // The fault stays: a fresh online RAG (the sentinel restarts with it: the watcher learns its profiles again).
        log('  not healed: resetting the online RAG and waiting for the profiles');
        await run.resetOnline();
        const r0 = await watcherFigures(sentinel());
        await waitForAnswersRead(sentinel(), r0.answersRead, askedCount * PROFILED_AFTER * 2, 600_000);
      }
    }
  } finally {
    await users?.stop();
    await run.close();
  }
}

const secondsAfter = (r: TrafficTrialResult, at?: number) =>
  at === undefined ? 'never' : `${((at - r.trial.injectedAt) / 1000).toFixed(1)} s`;

/** run.json (the load now, the end time when final) and notes.txt, in the run's directory and its kept copy. */
function writeRecords(final: boolean): void {
  header.loadAtEnd = loadavg();
  if (final) header.endedAt = new Date().toISOString();
  for (const dir of [benchDir, ...(keepDir ? [keepDir] : [])]) {
    writeFileSync(join(dir, RUN_FILES.header), `${JSON.stringify(header, null, 2)}\n`);
    writeFileSync(join(dir, RUN_FILES.notes), notes.map((n) => `${n}\n`).join(''));
  }
}

/** The records, then RESULTS.md rendered from them (as merge.ts renders several runs'). */
function write(final: boolean): void {
  writeRecords(final);
  const run: TrafficRun = { dir: benchDir, header, clean: cleanPhases, trials: rows.map(trialRecordOf), notes };
  const markdown = renderTrafficResults([run], { partial: !final });
  writeFileSync(args.out, markdown);
  if (final) console.log(`\n${markdown}`);
}

writeRecords(false);
for (const packages of packageCounts) await benchPackages(packages);
write(true);
process.exit(0);
