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
 *                                [--timeout 300] [--out bench/traffic/RESULTS.md]
 *                                [--kinds a,b (same as --faults)] [--sentinel-env KEY=VALUE,KEY=VALUE]
 *
 * --sentinel-env sets the sentinel's traffic variables over LoopRun's (e.g. the spot-check budget
 * TRAFFIC_SPOT_CHECKS_PER_SEGMENT_HOUR, or TRAFFIC_CONTENT_PROFILE=0 to measure without the content profile).
 *
 * Faults: the operator's, written straight into the online Qdrant collection, and (reference RAG) every
 * knowledge-scoped fault of the RAG's fault API, scoped to the one knowledge id drawn (TRAFFIC_FAULTS).
 * The LangChain RAG has no fault API: only the operator's faults run on it, and its users' answer rate
 * is what Gemma 3 270M sustains on this machine (pass a low --rate).
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { cpus, loadavg, totalmem } from 'node:os';
import { repoRoot } from '@rag-immune/stack';
import { sleep } from '@rag-immune/test-kit';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { expectationOf } from '@rag-immune/test-kit/loop/faults';
import { parseEnvPairs } from '@rag-immune/test-kit/loop/env-pairs';
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
    'clean-answers': { type: 'string', default: '10000' },
    rate: { type: 'string', default: '8' },
    asked: { type: 'string', default: '12' },
    probes: { type: 'string', default: '10' },
    interval: { type: 'string', default: '4' },
    timeout: { type: 'string', default: '180' },
    'quiet-seconds': { type: 'string', default: '30' },
    seed: { type: 'string' },
    out: { type: 'string', default: 'bench/traffic/RESULTS.md' },
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
const rawFile = join(benchDir, 'trials.jsonl');
const startedAt = new Date();
const startLoad = loadavg();

/** The content profile's and the spot checks' counters (by label, which WatcherFigures sums away). */
interface BlindSpotFigures {
  contentMeasured: number;
  contentBad: number;
  spotChecks: number;
  spotDisagree: number;
}

async function blindSpotFigures(url: string): Promise<BlindSpotFigures> {
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
  };
}

const blindDelta = (a: BlindSpotFigures, b: BlindSpotFigures): BlindSpotFigures => ({
  contentMeasured: b.contentMeasured - a.contentMeasured,
  contentBad: b.contentBad - a.contentBad,
  spotChecks: b.spotChecks - a.spotChecks,
  spotDisagree: b.spotDisagree - a.spotDisagree,
});

interface CleanPhase {
  blind: BlindSpotFigures;
  packages: number;
  knowledgeIds: number;
  asked: number;
  sent: number;
  answersRead: number;
  skipped: number;
  seconds: number;
  incidents: number;
  actions: number;
  trafficAnomalies: number;
  goldenAnomalies: number;
  flagged: number;
  confirmed: number;
  rejected: number;
  replayQueries: number;
  quietCpuPerSecond: number;
  trafficCpuPerSecond: number;
}

interface TrialRow {
  packages: number;
  result: TrafficTrialResult;
  askedPerMinute: number;
  figures: { flagged: number; confirmed: number; rejected: number; replayQueries: number };
  blind: BlindSpotFigures;
  seconds: number;
}

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
      quietCpuPerSecond,
      trafficCpuPerSecond: (c1.cpuSeconds - c0.cpuSeconds) / seconds,
    };
    cleanPhases.push(phase);
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
        figures: delta(f0, f1),
        blind: blindDelta(g0, g1),
        seconds: (Date.now() - trialStart) / 1000,
      };
      rows.push(row);
      appendFileSync(rawFile, `${JSON.stringify(row)}\n`);
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
const sec = (r: TrafficTrialResult, at?: number) => (at === undefined ? '—' : ((at - r.trial.injectedAt) / 1000).toFixed(1));
const median = (xs: number[]) => {
  if (xs.length === 0) return '—';
  const s = [...xs].sort((a, b) => a - b);
  return (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2).toFixed(1);
};

function write(final: boolean): void {
  const load = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'cpu'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Debian 12, Node ${process.version}; load average (1/5/15 min) ${load(startLoad)} at the start, ${load(loadavg())} when written`;
  const cleanRows = cleanPhases.map((c) => {
    const extra = c.trafficCpuPerSecond - c.quietCpuPerSecond;
    const answersPerSecond = c.answersRead / c.seconds;
    return `| ${c.packages} (${c.knowledgeIds} ids, ${c.asked} asked) | ${c.answersRead} (${c.skipped} skipped) | ${c.seconds.toFixed(0)} | ${answersPerSecond.toFixed(2)} | **${c.incidents}** | ${c.actions} | ${c.trafficAnomalies} | ${c.goldenAnomalies} | ${c.flagged} / ${c.confirmed} / ${c.rejected} | ${c.replayQueries} | ${c.blind.contentBad} / ${c.blind.contentMeasured} | ${c.blind.spotChecks} (${c.blind.spotDisagree}) / ${((c.blind.spotChecks / c.seconds) * 3600).toFixed(0)} | ${c.quietCpuPerSecond.toFixed(3)} | ${c.trafficCpuPerSecond.toFixed(3)} | ${answersPerSecond > 0 ? ((extra / answersPerSecond) * 1000).toFixed(1) : '—'} | ${answersPerSecond > 0 ? ((c.trafficCpuPerSecond / answersPerSecond) * 1000).toFixed(1) : '—'} |`;
  });
  const byFault = packageCounts.flatMap((packages) =>
    faults.map((fault) => {
      const rs = rows.filter((r) => r.packages === packages && r.result.plan.fault === fault);
      if (rs.length === 0) return `| ${packages} | ${fault} | 0 | | | | | | |`;
      const detected = rs.filter((r) => r.result.trafficDetectedAt !== undefined);
      const harmful = rs.filter((r) => !r.result.harmless);
      const cause = expectationOf(fault.split(':')[0]!).cause;
      return `| ${packages} | ${fault} | ${rs.length} | ${rs.filter((r) => r.result.harmless).length} | ${detected.length}/${harmful.length} | ${median(detected.map((r) => (r.result.trafficDetectedAt! - r.result.trial.injectedAt) / 1000))} | ${
        rs.filter((r) => r.result.trial.finalReport?.root_cause === cause).length
      }/${harmful.length} | ${rs.filter((r) => r.result.trial.outcome === 'healed').length}/${harmful.length} | ${median(
        rs
          .filter((r) => r.result.trial.verifiedAt !== undefined)
          .map((r) => (r.result.trial.verifiedAt! - r.result.trial.injectedAt) / 1000),
      )} |`;
    }),
  );
  const trialRows = rows.map(({ packages, result: r, askedPerMinute, figures, blind, seconds }) => {
    const t = r.trial;
    return `| ${packages} | ${r.plan.fault} | ${r.plan.target}${r.plan.partner ? ` + ${r.plan.partner}` : ''} | ${askedPerMinute.toFixed(1)} | ${r.userAnswersChanged} of ${r.userQuestions} | ${sec(r, r.trafficDetectedAt)} | ${figures.flagged} / ${figures.confirmed} / ${figures.rejected} (${figures.replayQueries} replayed) | ${blind.contentBad} / ${blind.contentMeasured} | ${blind.spotChecks} (${blind.spotDisagree}) in ${seconds.toFixed(0)} s | ${r.trafficAnomalies} | ${r.goldenAnomalies} | ${
      t.finalReport ? `${t.finalReport.root_cause} ${t.finalReport.confidence.toFixed(2)}` : '—'
    } | ${sec(r, t.verifiedAt)} | ${t.actions.map((a) => `${a.intent}:${a.statuses.at(-1)}`).join(' ') || '—'} | ${r.harmless ? 'harmless to users' : t.outcome} |`;
  });
  const markdown = `# bench/traffic results: faults on knowledge only users ask about (issue 38)

\`npm run stack -- up && npx tsx bench/traffic/run.ts ${process.argv.slice(2).join(' ')}\` (the command as run)
(\`bench/traffic/run.ts\`; raw per-trial records in \`.runs/bench-traffic-<time>/trials.jsonl\`, worker and intake logs beside it).

${final ? '' : `**Partial: written while the run was going on.**\n\n`}Run of ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine}, sharing the machine with the local stack
(Kafka, schema registry, Elasticsearch, the Qdrant server, Prometheus) and other people's work. ${
    langchain
      ? `The LangChain RAG pair on Gemma 3 270M (sampling; ${args.samples} samples a side per probe, alpha ${args.alpha}) over the`
      : 'The reference RAG pair over the'
  }
fixed Debian corpus (\`loadDebianKnowledge\`), ${args.probes} golden probes every ${args.interval} s, the trace intake, the four workers as
processes, effector in \`auto\` mode; the online RAG exports every answer's OTLP spans to the intake, which stores users' spans
redacted; the sentinel's traffic watcher reads them (LoopRun's traffic settings: \`LOOP_TRAFFIC_ENV\` in test/kit/src/loop/loop-run.ts,
10 answers to profile a segment, FCS on 10% of answers, the default alarm budget of one unconfirmed alarm per 100,000 answers${
    Object.keys(sentinelEnv).length > 0
      ? `; over them: ${Object.entries(sentinelEnv)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}`
      : ''
  }).
"content novel / measured": answers the content profile signal (\`content_novel\`) found novel for their question cluster, of those it
measured; "spot checks": budgeted replays of a user query against online and baseline with no signal moving (a disagreeing one flags
the segment for the normal confirmation).
Simulated users: ${rate} requests/s offered (at most 4 in flight), Zipf popularity over the labelled questions about ${askedCount}
knowledge ids drawn at random (seed ${seed}), half of them paraphrased, 10% outside the knowledge.
Every fault is placed on a knowledge id drawn at random among those asked at least ${PROFILED_AFTER} times so far and that **no golden
probe covers**: an operator's fault (\`vectors-overwritten\`, \`unpublished-knowledge\`, \`attribution-swap\`) is written straight
into the online Qdrant collection, a fault-API fault (\`kind:mode\`) is asked of the online RAG's fault API scoped to that one id;
none is undone by the benchmark (only the repair heals it). Times are seconds after the fault was placed.

## Clean traffic (no fault)

Incidents must be 0. "flagged / confirmed / rejected": segment alarms of the change detector, and what the shadow replay made of them
(a rejected segment opens nothing). CPU: the sentinel process's (prom-client \`process_cpu_seconds_total\`), first ${args['quiet-seconds']} s with
no users (golden probes only), then over the clean phase; "watcher CPU per answer" is the difference divided by the answers read
per second (on a machine this loaded the golden probes' share varies more than the watcher's: a difference at or below 0 means
the watcher's cost is under this measurement's noise); the upper bound divides all the sentinel's CPU, golden probes included.
Answers/s is what the RAG served and the watcher read on this shared machine, not the watcher's ceiling.

| packages | answers read | seconds | answers/s | incidents | actions | traffic anomalies | golden anomalies | flagged / confirmed / rejected | replayed queries | content novel / measured | spot checks (disagree) / per hour | sentinel CPU s/s quiet | sentinel CPU s/s with traffic | watcher CPU ms / answer | sentinel CPU ms / answer (upper bound) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${cleanRows.join('\n') || '| (not run) | | | | | | | | | | | | | | | |'}

## Faults on asked, unprobed knowledge

A fault that changed no answer to the labelled questions about its knowledge (asked right before and after it was written) and
drew no anomaly is "harmless to users": nothing was there to catch; rates are over the other (harmful) trials.

| packages | fault | trials | harmless to users | detected from traffic | median detection (s) | cause named | healed (repair verified) | median MTTR (s) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${byFault.join('\n')}

## Every trial

"replay": the watcher's flagged / confirmed / rejected segments during the trial; "traffic anomalies": replayed user queries
published as anomalous ProbeResults (origin traffic); "golden anomalies": golden-probe anomalies after the fault (a golden probe
retrieving the damaged chunk by chance).

| packages | fault | knowledge id | asked / min | answers changed | detected from traffic | replay | content novel / measured | spot checks (disagree) | traffic anomalies | golden anomalies | final cause | verified (MTTR) | actions (last status) | outcome |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${trialRows.join('\n')}
${notes.length === 0 ? '' : `\n## Notes\n\n${notes.map((n) => `- ${n}`).join('\n')}\n`}`;
  writeFileSync(args.out, markdown);
  if (final) console.log(`\n${markdown}`);
}

for (const packages of packageCounts) await benchPackages(packages);
write(true);
process.exit(0);
