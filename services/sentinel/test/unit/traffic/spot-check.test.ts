import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { exampleProbeResult, type ProbeResult } from '@rag-immune/contracts';
import type { GoldenProbe } from '@rag-immune/probing';
import { DriftMonitor } from '../../../src/traffic/drift-monitor.ts';
import { SegmentResolver } from '../../../src/traffic/segment-resolver.ts';
import { ShadowReplay } from '../../../src/traffic/shadow-replay.ts';
import { SpotCheck } from '../../../src/traffic/spot-check.ts';
import { contentProfile } from '../../../src/traffic/signals/content-profile.ts';
import { retrievalHealth } from '../../../src/traffic/signals/retrieval-health.ts';
import { TrafficMetrics } from '../../../src/traffic/traffic-metrics.ts';
import { TrafficWatcher } from '../../../src/traffic/traffic-watcher.ts';
import type { UserAnswer } from '../../../src/traffic/user-answer.ts';
import type { AnswerSignal } from '../../../src/traffic/signals/answer-signal.ts';
import { userAnswer } from './user-answer-fixture.ts';

function runner(anomalous: (probe: GoldenProbe) => boolean) {
  const ran: GoldenProbe[] = [];
  return {
    ran,
    run(probe: GoldenProbe) {
      ran.push(probe);
      return Promise.resolve({ ...exampleProbeResult(probe.id), query: probe.query, anomaly: anomalous(probe) });
    },
  };
}

const recent = (segments: number) => new Map(Array.from({ length: segments }, (_, i) => [`pkg-${i}`, [`question ${i}`]]));

test('each segment is checked at most perSegmentPerHour times an hour, all at most perHour', () => {
  let now = 0;
  const spot = new SpotCheck(
    runner(() => false),
    { perSegmentPerHour: 2, perHour: 10, now: () => now, random: () => 0.5 },
  );
  const checked: string[] = [];
  for (; now < 3 * 3_600_000; now += 10_000) {
    const due = spot.next(recent(3));
    if (due) checked.push(due.segment);
    assert.ok(spot.lastHour() <= 10);
  }
  for (const segment of ['pkg-0', 'pkg-1', 'pkg-2']) {
    const n = checked.filter((s) => s === segment).length;
    assert.ok(n >= 5 && n <= 6, `${segment}: ${n} checks in 3 hours at 2 an hour`);
  }
  // 20 segments at 2 an hour would want 40 an hour: the RAG's cap holds it to 10.
  const capped = new SpotCheck(
    runner(() => false),
    { perSegmentPerHour: 2, perHour: 10, now: () => now, random: () => 0 },
  );
  let n = 0;
  for (const end = now + 3_600_000; now < end; now += 10_000) if (capped.next(recent(20))) n++;
  assert.equal(n, 10);
});

test('either budget at 0 disables spot checks', () => {
  for (const options of [
    { perSegmentPerHour: 0, perHour: 10 },
    { perSegmentPerHour: 1, perHour: 0 },
  ]) {
    const spot = new SpotCheck(
      runner(() => true),
      { ...options, random: () => 0 },
    );
    assert.equal(spot.enabled, false);
    assert.equal(spot.next(recent(3)), undefined);
  }
});

test('evidence-led checks come before scheduled ones, once per segment per ledIntervalMs, within perHour', () => {
  let now = 0;
  const spot = new SpotCheck(
    runner(() => false),
    { perSegmentPerHour: 1, perHour: 3, ledIntervalMs: 300_000, now: () => now, random: () => 0 },
  );
  assert.equal(spot.ledEnabled, true);
  // pkg-0's schedule is due at once (random 0), but the evidence on pkg-1 goes first.
  assert.equal(spot.lead('pkg-1', 'the answer that lost its chunk'), true);
  assert.deepEqual(spot.next(recent(3)), { segment: 'pkg-1', query: 'the answer that lost its chunk', trigger: 'evidence' });
  assert.equal(spot.next(recent(3))?.trigger, 'schedule');
  // Within the segment's interval a new request is refused; after it, taken again.
  now += 60_000;
  assert.equal(spot.lead('pkg-1', 'again'), false);
  now += 300_000;
  assert.equal(spot.lead('pkg-1', 'again'), true);
  assert.equal(spot.next(recent(3))?.trigger, 'evidence');
  // The hour's cap (3) is spent: the next request waits for the hour, then is served.
  assert.equal(spot.lead('pkg-2', 'later'), true);
  assert.equal(spot.next(recent(3)), undefined);
  now += 3_600_000;
  assert.deepEqual(spot.next(recent(3)), { segment: 'pkg-2', query: 'later', trigger: 'evidence' });
  // A request for a segment that is no candidate now (its replay is running) is dropped.
  now += 3_600_000;
  assert.equal(spot.lead('pkg-0', 'in replay'), true);
  const without0 = new Map([...recent(3)].filter(([segment]) => segment !== 'pkg-0'));
  assert.notEqual(spot.next(without0)?.segment, 'pkg-0');
  assert.notEqual(spot.next(recent(3))?.trigger, 'evidence');
});

test('led checks run with scheduled ones off, and not at ledIntervalMs 0 or perHour 0', () => {
  const only = new SpotCheck(
    runner(() => false),
    { perSegmentPerHour: 0, perHour: 10, ledIntervalMs: 1000 },
  );
  assert.equal(only.enabled, false);
  assert.equal(only.lead('pkg-0', 'q'), true);
  assert.equal(only.next(recent(1))?.trigger, 'evidence');
  assert.equal(only.next(recent(1)), undefined, 'no schedule');
  for (const options of [
    { perSegmentPerHour: 1, perHour: 10, ledIntervalMs: 0 },
    { perSegmentPerHour: 1, perHour: 0, ledIntervalMs: 1000 },
  ]) {
    const spot = new SpotCheck(
      runner(() => false),
      options,
    );
    assert.equal(spot.ledEnabled, false);
    assert.equal(spot.lead('pkg-0', 'q'), false);
  }
});

test('a check replays the query as a traffic probe and reports whether it disagrees with the baseline', async () => {
  const r = runner((p) => p.query === 'bad question');
  const spot = new SpotCheck(r, { perSegmentPerHour: 1, perHour: 1 });
  assert.equal((await spot.check('pkg-a', 'bad question')).disagrees, true);
  assert.equal((await spot.check('pkg-a', 'good question')).disagrees, false);
  assert.ok(r.ran.every((p) => p.cluster === 'traffic:pkg-a' && p.id.startsWith('traffic-pkg-a-')));
});

type SpotBudget = { perSegmentPerHour: number; perHour: number; ledIntervalMs?: number };

/**
 * A watcher over the answers `poll` gives each minute, with replays and spot checks on `anomalous`'s
 * runner and a clock the test moves; `fault()` turns the fault on (`poll` and `anomalous` see it).
 */
function watchedTraffic(
  spotBudget: SpotBudget,
  signals: AnswerSignal[],
  poll: (faulty: boolean, minute: number) => UserAnswer[],
  anomalous: (probe: GoldenProbe, faulty: boolean) => boolean,
) {
  let now = 0;
  let faulty = false;
  let minute = 0;
  const registry = new Registry();
  const published: ProbeResult[] = [];
  const r = runner((p) => anomalous(p, faulty));
  const source = { poll: () => Promise.resolve({ answers: poll(faulty, ++minute), skipped: 0, unreadable: 0 }) };
  const monitor = new DriftMonitor({
    profileAnswers: 5,
    priorWeight: 20,
    minCleanRate: 0.005,
    confidenceZ: 1.645,
    shift: 0.3,
    answersPerDay: 100_000,
    alarmsPerDay: 1,
    cooldownMs: 600_000,
    now: () => now,
  });
  const replay = new ShadowReplay(
    r,
    (p) => (published.push(p), Promise.resolve()),
    { perSegment: 3, perIncident: 10, incidentWindowMs: 3_600_000, perHour: 60 },
    0.5,
    () => now,
  );
  const spot = new SpotCheck(r, { ...spotBudget, now: () => now, random: () => 0.5 });
  const watcher = new TrafficWatcher(
    source,
    signals,
    monitor,
    new SegmentResolver(),
    replay,
    new TrafficMetrics(registry),
    { pollMs: 10, scoreDropRatio: 0.8, queriesKept: 10 },
    undefined,
    undefined,
    spot,
  );
  const minutes = async (n: number) => {
    for (let i = 0; i < n; i++) {
      now += 60_000;
      await watcher.tick();
      await watcher.settled();
    }
  };
  return { watcher, registry, published, ran: r.ran, minutes, fault: () => (faulty = true) };
}

/**
 * The blind spot: after the fault, pkg-b's answers look exactly as healthy as before (same retrieval,
 * same score), only the baseline tells them apart. No per-answer signal moves; the spot check does.
 */
function silentDrift(spotBudget: SpotBudget, contentChanges = false) {
  const run = watchedTraffic(
    spotBudget,
    [retrievalHealth({ scoreDropRatio: 0.8 }), contentProfile({ novelShare: 0.5 })],
    (faulty) => {
      const answers = ['pkg-a', 'pkg-b', 'pkg-c'].map((k) => userAnswer({ knowledgeId: k, query: `question about ${k}` }));
      // The content fault: pkg-b's chunk is served with other text (overwritten, re-parsed), as well retrieved as before.
      if (faulty && contentChanges) answers[1]!.trace.context[0]!.text = 'pkg-b: lorem ipsum';
      return answers;
    },
    (p, faulty) => faulty && p.cluster === 'traffic:pkg-b',
  );
  return { ...run, breakAt: run.fault };
}

const metric = async (registry: Registry, name: string, labels: Record<string, string> = {}) =>
  ((await registry.getSingleMetric(name)?.get())?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
    .reduce((sum, v) => sum + v.value, 0);

test('a drift no signal sees is caught by a spot check and confirmed by the normal shadow replay', async () => {
  const drift = silentDrift({ perSegmentPerHour: 2, perHour: 10 });
  await drift.minutes(60);
  assert.equal(drift.published.length, 0, 'clean: spot checks agree, nothing published');
  assert.ok((await metric(drift.registry, 'rag_immune_traffic_spot_checks_total', { outcome: 'agree' })) >= 3);
  drift.breakAt();
  await drift.minutes(60);
  // Unrepaired here, so each of pkg-b's 2 checks an hour disagrees, and each goes through the confirmation.
  const disagreed = await metric(drift.registry, 'rag_immune_traffic_spot_checks_total', { outcome: 'disagree' });
  assert.ok(disagreed >= 1 && disagreed <= 2, `${disagreed} disagreeing checks`);
  assert.equal(await metric(drift.registry, 'rag_immune_traffic_segments_confirmed_total'), disagreed);
  assert.equal(await metric(drift.registry, 'rag_immune_traffic_segments_flagged_total'), disagreed);
  assert.ok(drift.published.length > 0 && drift.published.every((p) => p.origin === 'traffic' && p.segment === 'pkg-b'));
  const spotCalls = await metric(drift.registry, 'rag_immune_traffic_replay_queries_total', { outcome: 'spot_check' });
  assert.ok(spotCalls <= 20, `${spotCalls} spot checks in two hours at 10 an hour at most`);
});

test('without spot checks the same drift is never compared with the baseline', async () => {
  const drift = silentDrift({ perSegmentPerHour: 0, perHour: 10 });
  drift.breakAt();
  await drift.minutes(120);
  assert.equal(drift.ran.length, 0);
  assert.equal(drift.published.length, 0);
});

test("a segment's changed context leads a spot check at its first answer; the CUSUM alone needs several", async () => {
  const led = silentDrift({ perSegmentPerHour: 0, perHour: 10, ledIntervalMs: 300_000 }, true);
  await led.minutes(10);
  assert.equal(led.ran.length, 0, 'clean: no decisive evidence, no check');
  led.breakAt();
  await led.minutes(1);
  assert.equal(await metric(led.registry, 'rag_immune_traffic_spot_checks_total', { trigger: 'evidence', outcome: 'disagree' }), 1);
  assert.ok(led.published.length > 0 && led.published.every((p) => p.origin === 'traffic' && p.segment === 'pkg-b'));

  // Without led checks the same fault waits for the CUSUM (p0 from 5 profiled answers, shrunk): not within 3 answers.
  const unled = silentDrift({ perSegmentPerHour: 0, perHour: 10, ledIntervalMs: 0 }, true);
  await unled.minutes(10);
  unled.breakAt();
  await unled.minutes(3);
  assert.equal(unled.published.length, 0);
  assert.ok((await metric(unled.registry, 'rag_immune_traffic_signal_bad_total', { signal: 'content_novel' })) >= 3);
});

/** A watcher over the answers `poll` gives each minute, before and after `remove()`; the baseline still answers from `lostId`. */
function deletedKnowledge(lostId: string, poll: (deleted: boolean, minute: number) => UserAnswer[]) {
  // A replay expecting the lost knowledge as its source disagrees while it is gone online.
  const run = watchedTraffic(
    { perSegmentPerHour: 0, perHour: 10, ledIntervalMs: 300_000 },
    [retrievalHealth({ scoreDropRatio: 0.8 })],
    poll,
    (p, deleted) => deleted && p.expected_sources.includes(lostId),
  );
  return { ...run, remove: run.fault };
}

/**
 * Deleted knowledge asked in new words (the LangChain bench's blind spot, 2026-12-07): the users'
 * rewordings were never seen healthy, and the retriever now returns a neighbour. Resolved by their
 * words, the answers land in the lost knowledge's segment, whose led check compares the query with
 * the baseline expecting that knowledge as its source.
 */
test('rewordings of deleted knowledge land in its own segment, lead a check there and are confirmed', async () => {
  const wordings = ['latest slirp release?', 'slirp release date?', 'newest slirp upload?', 'current slirp?', 'slirp most recent?'];
  const run = deletedKnowledge('changelog/slirp', (deleted, minute) => [
    userAnswer({ knowledgeId: 'apt/libslirp-dev', query: 'libslirp-dev installed size?' }),
    // Before the fault users ask the first two wordings; after it, only new ones, answered from the neighbour.
    userAnswer({
      knowledgeId: deleted ? 'apt/libslirp-dev' : 'changelog/slirp',
      query: deleted ? wordings[2 + (minute % 3)]! : wordings[minute % 2]!,
    }),
  ]);
  await run.minutes(10);
  assert.equal(run.ran.length, 0, 'clean: nothing led');
  run.remove();
  await run.minutes(1);
  assert.equal(await metric(run.registry, 'rag_immune_traffic_answers_resolved_near_total'), 1);
  assert.equal(await metric(run.registry, 'rag_immune_traffic_spot_checks_total', { trigger: 'evidence', outcome: 'disagree' }), 1);
  assert.ok(run.published.length > 0 && run.published.every((p) => p.origin === 'traffic' && p.segment === 'changelog/slirp'));
  assert.equal(run.watcher.segments().find((s) => s.segment === 'apt/libslirp-dev')?.bad, 0, 'the neighbour is not blamed');
});

/**
 * The changelog's questions are answered with the binary's entry first and the changelog next (the
 * LangChain bench, 17:49): deleting the changelog leaves the top id in place, so neither the
 * segment nor its usual knowledge moves; only the context lost its second rank. The lost knowledge
 * is checked, led by that answer; the answer's own segment is not counted bad.
 */
test("knowledge lost from a wording's usual context leads a check of it, and the confirmation; the answer's own segment is not blamed", async () => {
  const context = (ids: string[]) =>
    ids.map((id, i) => ({ ...userAnswer({ knowledgeId: id }).trace.context[0]!, retrieval_score: 0.8 - i / 10 }));
  const run = deletedKnowledge('changelog/dates', (deleted) => {
    const answer = userAnswer({ knowledgeId: 'apt/dates', query: 'Who uploaded the latest release of dates?' });
    answer.trace.context = context(deleted ? ['apt/dates', 'apt/other'] : ['apt/dates', 'changelog/dates', 'apt/other']);
    return [answer, userAnswer({ knowledgeId: 'apt/other', query: 'other installed size?' })];
  });
  await run.minutes(10);
  assert.equal(run.ran.length, 0, 'clean: nothing led');
  run.remove();
  await run.minutes(1);
  assert.equal(await metric(run.registry, 'rag_immune_traffic_spot_checks_total', { trigger: 'evidence', outcome: 'disagree' }), 1);
  assert.ok(run.published.length > 0 && run.published.every((p) => p.origin === 'traffic' && p.segment === 'changelog/dates'));
  assert.equal(run.watcher.segments().find((s) => s.segment === 'apt/dates')?.bad, 0, 'the top id is not blamed');
  assert.equal(await metric(run.registry, 'rag_immune_traffic_answers_companion_lost_total'), 1);
});
