/**
 * Issue 38's loop trial on the real stack: the reference RAG pair over 25 packages of the fixed
 * corpus with 10 golden probes, the trace intake and the four workers as processes, the online RAG
 * exporting every answer's spans to the intake and the sentinel's traffic watcher on; simulated
 * users ask about a random set of the knowledge. After a clean phase (no anomaly, report or action),
 * the vectors of one knowledge id chosen at random among those the users asked about and that no
 * golden probe covers are overwritten with garbage straight in Qdrant. It must be caught from
 * traffic (a ProbeResult with origin traffic, which the watcher publishes only once its shadow
 * replay confirmed the segment), named vector_index_corruption, repaired and the repair verified by
 * the effector re-running the replayed user queries.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LoopRun } from '@rag-immune/test-kit/loop/loop-run';
import {
  UserTraffic,
  goldenSources,
  knowledgeWithQuestions,
  placeTrafficFault,
  runTrafficTrial,
  waitForAnswersRead,
  type TrafficTrialResult,
  watcherFigures,
} from '@rag-immune/test-kit/loop/traffic-trial';

const ASKED = 8;
const RATE = 4;
const SEED = Math.floor(Math.random() * 1_000_000);

let run: LoopRun;
let users: UserTraffic | undefined;
let asked: string[] = [];

before(async () => {
  run = new LoopRun({ label: 'it-heal-traffic', packages: 25, probeCount: 10, probeIntervalSeconds: 4, traffic: {} });
  await run.start();
  asked = knowledgeWithQuestions(run.rag.knowledgeIds, SEED).slice(0, ASKED);
  // Uniform over the asked questions: every asked segment is profiled within the clean phase.
  users = new UserTraffic({ onlineUrl: run.rag.onlineUrl, knowledgeIds: asked, rate: RATE, mix: { seed: SEED, zipfExponent: 0 } });
});

after(async () => {
  await users?.stop();
  await run?.close();
});

test('clean traffic: answers read, no anomaly, no report, no repair action', async () => {
  const sentinel = run.system.worker('sentinel').url;
  const start = await watcherFigures(sentinel);
  // Enough answers that every asked segment has its clean profile (10 answers each) and then some.
  assert.ok(await waitForAnswersRead(sentinel, start.answersRead, ASKED * 15, 240_000), 'the watcher reads the users’ answers');
  const clean = await run.cleanRounds(1);
  assert.deepEqual(
    { anomalies: clean.anomalies, reports: clean.reports, actions: clean.actions },
    { anomalies: 0, reports: 0, actions: 0 },
    `seed ${SEED}`,
  );
  assert.equal(run.recorder.probes.filter((p) => p.event.origin === 'traffic').length, 0, 'no traffic result published on clean traffic');
});

test('a fault on asked, unprobed knowledge: detected from traffic, confirmed by replay, named, repaired and verified', async () => {
  // Only knowledge asked often enough to have a profile is a place the watcher can judge.
  const candidates = asked.filter((id) => (users!.mix.asked.get(id) ?? 0) >= 12);
  // A fault that changes no answer about its knowledge (another document of the package answers as
  // well) leaves users nothing to catch: another place is drawn, at most three. So is one nothing
  // detected within 100 s: the watcher's signals miss some places (a run put garbage vectors on
  // changelog/r-cran-benchmarkmedata, 3 of 3 answers changed, and no segment drifted in 180 s; the
  // detection rate is the benchmark's to measure, bench/traffic). Every miss is named if all fail.
  let result: TrafficTrialResult | undefined;
  const tried: string[] = [];
  // A golden probe may catch the fault first (a damaged vector can rank among a probe's neighbours):
  // the loop then heals it without traffic, which says nothing about the watcher, so another place is
  // drawn (a clean-clone CI run healed garbage vectors on apt/libcotp-dev that way, no traffic anomaly).
  const missed = (r: TrafficTrialResult | undefined) =>
    r === undefined || r.harmless || r.trial.detectedAt === undefined || r.firstTrafficAnomaly === undefined;
  for (let attempt = 0; attempt < 3 && missed(result); attempt++) {
    const plan = placeTrafficFault(
      'vectors-overwritten:garbage',
      candidates.filter((id) => !tried.includes(id)),
      run.probes,
      Math.random,
      { excludeProbedPackages: true },
    );
    assert.ok(!goldenSources(run.probes).has(plan.target), `${plan.target} is a golden probe's source`);
    tried.push(plan.target);
    result = await runTrafficTrial(run.context, plan, { timeoutMs: 180_000, harmlessWatchMs: 0, detectionTimeoutMs: 100_000 });
    console.log(
      `attempt ${attempt + 1}: ${plan.target}, answers changed ${result.userAnswersChanged}/${result.userQuestions}, ` +
        `traffic anomalies ${result.trafficAnomalies}, golden anomalies ${result.goldenAnomalies}, outcome ${result.trial.outcome}`,
    );
  }
  assert.ok(
    result && !missed(result),
    `no harmful place detected from traffic among ${tried.join(', ')} (seed ${SEED}, logs ${run.runDir})`,
  );
  const plan = result.plan;
  const { trial } = result;
  const where = `seed ${SEED}, target ${plan.target} (answers changed ${result.userAnswersChanged}/${result.userQuestions}), outcome ${trial.outcome}, logs ${run.runDir}`;
  assert.ok(result.firstTrafficAnomaly, `no anomaly from traffic (${where})`);
  // A segment is the knowledge a query cluster was answered from while healthy: questions about one
  // document of a package may have been answered from the package's other document.
  const subject = (id: string) => id.slice(id.indexOf('/') + 1);
  // A missed attempt leaves its fault in place, and its late detection may come first during the next
  // attempt (clean-clone CI 2026-12-07: attempt 1's changelog/r-cran-itertools confirmed during attempt 2):
  // the fault placed now must be detected from traffic on its own segment.
  const own = run.recorder.probes
    .map((p) => p.event)
    .find(
      (p) =>
        p.anomaly && p.origin === 'traffic' && p.occurred_at >= trial.injectStartedAt && subject(p.segment ?? '') === subject(plan.target),
    );
  assert.ok(own, `no traffic anomaly on ${plan.target}'s segment (${where})`);
  assert.ok(own.probe_id.startsWith('traffic-'), where);
  const report = trial.finalReport;
  assert.ok(report, `no RootCauseReport (${where})`);
  assert.equal(report.root_cause, 'vector_index_corruption', where);
  assert.ok(
    report.affected_probes.some((p) => p.probe_id.startsWith('traffic-')),
    `the report names the replayed user queries (${where})`,
  );
  assert.equal(trial.outcome, 'healed', where);
  assert.equal(trial.verifiedIntent, 'rebuild_index_incremental', where);
  const verified = trial.actions.find((a) => a.verification?.recovered === true)!;
  assert.ok(
    (verified.verification?.healed_probe_ids ?? []).some((id) => id.startsWith('traffic-')),
    `the verification re-ran the replayed user queries: ${JSON.stringify(verified.verification)}`,
  );
  assert.equal(trial.wrongRepairVerified, false);
});
