/**
 * The traffic demo (DEMO_TRAFFIC=1 npm run demo; issue 38): the reference RAG pair, the trace intake
 * and the four workers as processes, the online RAG exporting every answer's spans to the intake and
 * the sentinel watching users' traffic beside its golden probes. Simulated users ask about a few
 * knowledge ids; after a clean phase, the vectors of one of them that NO golden probe covers, chosen
 * at random, are overwritten in Qdrant. The demo then only watches: the sentinel flags the segment
 * from traffic and confirms it by replaying the users' own queries, the identifier names the cause,
 * the effector repairs and verifies on those queries, memory remembers. Every line shown comes from
 * the workers' events on Kafka or their own log lines.
 *
 *   DEMO_PACKAGES=25  DEMO_PROBES=8  DEMO_INTERVAL_SECONDS=4  DEMO_TRAFFIC_RATE=4
 *   DEMO_FAULT_MODE=garbage|deleted
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@rag-immune/stack';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import { healingSteps } from '@rag-immune/test-kit/loop/trial';
import {
  UserTraffic,
  goldenSources,
  knowledgeWithQuestions,
  placeTrafficFault,
  runTrafficTrial,
  waitForAnswersRead,
  watcherFigures,
  type TrafficFault,
  type TrafficTrialResult,
} from '@rag-immune/test-kit/loop/traffic-trial';

const packages = Number(process.env.DEMO_PACKAGES ?? 25);
const probeCount = Number(process.env.DEMO_PROBES ?? 8);
const interval = Number(process.env.DEMO_INTERVAL_SECONDS ?? 4);
const rate = Number(process.env.DEMO_TRAFFIC_RATE ?? 4);
const mode = process.env.DEMO_FAULT_MODE ?? 'garbage';
if (mode !== 'garbage' && mode !== 'deleted') {
  console.error(`DEMO_FAULT_MODE=${mode}: must be garbage or deleted with DEMO_TRAFFIC=1`);
  process.exit(2);
}
const fault: TrafficFault = `vectors-overwritten:${mode}`;
const ASKED = 6;

const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const demoDir = join(repoRoot(), '.runs', `demo-traffic-${stamp}`);
mkdirSync(demoDir, { recursive: true });
const say = (text: string) => console.log(`== ${text}`);
const elapsed = (ms: number) => `${ms >= 0 ? '+' : ''}${(ms / 1000).toFixed(1)}s`.padStart(8);

const run = new LoopRun({
  label: 'demo-traffic',
  packages,
  probeCount,
  probeIntervalSeconds: interval,
  runDir: demoDir,
  traffic: {},
  say: (l) => console.log(`   ${l}`),
});
let users: UserTraffic | undefined;
let ok = false;
try {
  await run.start();
  const seed = Math.floor(Math.random() * 1_000_000);
  const asked = knowledgeWithQuestions(run.rag.knowledgeIds, seed).slice(0, ASKED);
  const golden = goldenSources(run.probes);
  say(`simulated users: ${rate} questions/s about ${asked.join(', ')}`);
  say(`golden probes ask about: ${[...golden].join(', ')}`);
  users = new UserTraffic({ onlineUrl: run.rag.onlineUrl, knowledgeIds: asked, rate, mix: { seed, zipfExponent: 0 } });
  const sentinel = run.system.worker('sentinel').url;
  const start = await watcherFigures(sentinel);
  await waitForAnswersRead(sentinel, start.answersRead, ASKED * 15, 300_000);
  const clean = await run.cleanRounds(1);
  const read = await watcherFigures(sentinel);
  say(
    `clean phase: ${read.answersRead - start.answersRead} user answers read by the sentinel, ${clean.results} golden probe results; ${clean.anomalies} anomalies, ${clean.reports} reports, ${clean.actions} repair actions`,
  );
  const candidates = asked.filter((id) => (users!.mix.asked.get(id) ?? 0) >= 12);
  const shown = new Set<string>();
  let t0 = Date.now();
  const show = (key: string, at: number, worker: string, what: string) => {
    if (shown.has(key)) return;
    shown.add(key);
    console.log(`${elapsed(at - t0)}  ${worker.padEnd(12)} ${what}`);
  };
  const sentinelProcess = run.system.worker('sentinel').process;
  // A fault that changes no answer about its knowledge (another document answers as well) leaves users
  // nothing to catch: another place is drawn, at most three.
  let result: TrafficTrialResult | undefined;
  const tried: string[] = [];
  while (tried.length < 3 && (result === undefined || result.harmless)) {
    if (result?.harmless)
      say(
        `${result.plan.target}: the fault changed none of its ${result.userQuestions} answers; nothing for users to see; drawing another place`,
      );
    const place = placeTrafficFault(
      fault,
      candidates.filter((id) => !tried.includes(id)),
      run.probes,
      Math.random,
      { excludeProbedPackages: true },
    );
    tried.push(place.target);
    say(`overwriting the vectors of ${place.target} in Qdrant (${mode}); no golden probe asks about it; from here on only the workers act`);
    result = await runTrafficTrial(run.context, place, {
      timeoutMs: 240_000,
      settleMs: 60_000,
      harmlessWatchMs: 0,
      onPoll: (view) => {
        t0 = view.trial.injectedAt;
        // The sentinel's own lines about the segment: the change detector's alarm and the replay's verdict.
        for (const record of sentinelProcess.records) {
          const j = record.json;
          if (j === null || typeof j.time !== 'number' || j.time < view.trial.injectStartedAt) continue;
          if (j.msg === 'traffic segment drifting: confirming by shadow replay')
            show(
              `drift:${j.time}`,
              j.time,
              'sentinel',
              `traffic: segment ${String(j.segment)} drifting (${String(j.bad)} of ${String(j.answers)} answers bad); replaying users' queries`,
            );
          if (typeof j.msg === 'string' && j.msg.startsWith('traffic drift ') && j.replayed !== undefined)
            show(
              `replay:${j.time}`,
              j.time,
              'sentinel',
              `shadow replay: ${String(j.anomalous)} of ${String(j.replayed)} replayed queries anomalous against the baseline: ${j.msg.includes('not confirmed') ? 'not confirmed, nothing opened' : 'confirmed'}`,
            );
        }
        if (view.firstTrafficAnomaly) {
          const a = view.firstTrafficAnomaly;
          show(
            'traffic-anomaly',
            a.occurred_at,
            'sentinel',
            `ProbeResult origin ${a.origin} segment ${a.segment}: ${a.probe_id} ${a.severity} [${a.anomaly_signals.join(',')}]`,
          );
        }
        for (const step of healingSteps(run.recorder, view.trial, { concise: true }))
          if (step.key !== 'detected') show(step.key, step.at, step.worker, step.what);
      },
    });
  }
  if (result === undefined) throw new Error('no place for the fault');
  const plan = result.plan;
  const t = result.trial;
  const secs = (at?: number) => (at === undefined ? '-' : ((at - t.injectedAt) / 1000).toFixed(1));
  ok = t.outcome === 'healed' && result.firstTrafficAnomaly !== undefined;
  console.log('');
  say(
    ok
      ? `${plan.target}: caught from traffic at ${secs(result.trafficDetectedAt)} s, cause ${t.finalReport?.root_cause}, repaired by ${t.verifiedIntent} and verified at ${secs(t.verifiedAt)} s on the users' replayed queries; ${result.goldenAnomalies} golden-probe anomalies`
      : `${plan.target} NOT healed from traffic: ${t.outcome} (worker logs: ${demoDir})`,
  );
} finally {
  await users?.stop();
  await run.close();
}
say(`worker, intake and RAG logs: ${demoDir}`);
process.exit(ok ? 0 : 1);
