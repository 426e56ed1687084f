/**
 * Issue 39: evidence pooled across the probes on one knowledge id. On simulated null streams (fixed
 * seed, many repetitions) a pool's false alarms stay at or below alpha per pooled run; a miscalibrated
 * e-value (1 / p) in the same simulation breaks that bound, so the check can fail; on a simulated
 * shift of every probe on the knowledge the pool detects in fewer rounds than the probes' own
 * detectors at the same false-alarm budget per round; a pool alarms only once two probes fed it;
 * an alarm restarts it; the state is bounded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KnowledgePooledEvidence, PooledEvidence, eValue, mannWhitneyLessNull, pooledThreshold } from '../../src/index.ts';
import { seededRandom as seeded } from '../../src/random.ts';

/** An FCS-like score: a normal around 0.6 (sd 0.2) minus the shift, clipped to [0, 1], rounded to 0.01 (ties happen). */
function score(random: () => number, shift: number): number {
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.round(Math.min(1, Math.max(0, 0.6 + 0.2 * z - shift)) * 100) / 100;
}

const K = 3; // samples a side
const PROBES = ['kp-a', 'kp-b', 'kp-c'];
const KNOWLEDGE = ['changelog/shared'];

/** One run's FCS test of one probe: k online samples (shifted) against k baseline samples. */
function runTest(random: () => number, shift: number) {
  const online = Array.from({ length: K }, () => score(random, shift));
  const baseline = Array.from({ length: K }, () => score(random, 0));
  return mannWhitneyLessNull(online, baseline);
}

const none = { ic: null, facts: null } as const;

test('on simulated null streams a pool alarms falsely at most alpha per pooled run (fixed seed, 200 x 150 rounds x 3 probes)', () => {
  const alpha = 0.05;
  const random = seeded(39);
  let runs = 0;
  let alarms = 0;
  let naiveAlarms = 0;
  for (let repetition = 0; repetition < 200; repetition++) {
    const pool = new KnowledgePooledEvidence({ alpha });
    // The same simulation with a miscalibrated e-value (1 / p has infinite expectation under the null):
    // if the bound held for it too, this check could not tell a valid pool from a broken one.
    const naive = new KnowledgePooledEvidence({ alpha });
    for (let round = 0; round < 150; round++)
      for (const probe of PROBES) {
        const t = runTest(random, 0);
        runs++;
        if (pool.observe(probe, KNOWLEDGE, { fcs: eValue(t), ...none })[0]!.alarm.fcs) alarms++;
        if (naive.observe(probe, KNOWLEDGE, { fcs: 1 / t.p, ...none })[0]!.alarm.fcs) naiveAlarms++;
      }
  }
  assert.equal(runs, 90_000);
  assert.ok(alarms / runs <= alpha, `false alarms ${alarms} in ${runs} pooled runs (${(alarms / runs).toExponential(2)} > ${alpha})`);
  // The guarantee counted in runs between false alarms: at least 1 / alpha (20) on average.
  assert.ok(alarms === 0 || runs / alarms >= 1 / alpha, `${runs / alarms} runs per false alarm`);
  assert.ok(naiveAlarms / runs > alpha / 10, `the miscalibrated e-value should alarm often: ${naiveAlarms} in ${runs}`);
  assert.ok(naiveAlarms > 10 * Math.max(alarms, 1), `naive ${naiveAlarms} vs valid ${alarms}`);
});

/**
 * Rounds until the first alarm with every probe on the knowledge shifted by `shift`: pooled (the pool
 * at alpha) against unpooled (each probe's own detector at alpha). Both spend the same false-alarm
 * budget per round (3 probes: <= 3 alpha), so the comparison is at equal family-wise level.
 */
function roundsToDetect(shift: number, repetitions: number, cap: number, seed: number) {
  const alpha = 0.01;
  const random = seeded(seed);
  const pooled: number[] = [];
  const unpooled: number[] = [];
  for (let repetition = 0; repetition < repetitions; repetition++) {
    const pool = new KnowledgePooledEvidence({ alpha });
    const own = new PooledEvidence({ alpha });
    let pooledAt = cap + 1;
    let unpooledAt = cap + 1;
    for (let round = 1; round <= cap && (pooledAt > cap || unpooledAt > cap); round++)
      for (const probe of PROBES) {
        const t = runTest(random, shift);
        if (pool.observe(probe, KNOWLEDGE, { fcs: eValue(t), ...none })[0]!.alarm.fcs) pooledAt = Math.min(pooledAt, round);
        const run = own.observe(probe, { fcs: t, ...none });
        if (run.verdict.fcs.alarm) unpooledAt = Math.min(unpooledAt, round);
        run.commit();
      }
    pooled.push(pooledAt);
    unpooled.push(unpooledAt);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  return { pooled: median(pooled), unpooled: median(unpooled) };
}

test('a shift of every probe on the knowledge is detected in fewer rounds pooled than by the probes alone (same budget per round)', () => {
  for (const shift of [0.15, 0.3]) {
    const { pooled, unpooled } = roundsToDetect(shift, 100, 80, 3900 + shift * 100);
    assert.ok(pooled < unpooled, `shift ${shift}: median rounds to detect pooled ${pooled}, unpooled ${unpooled}`);
  }
});

test('a pool alarms only once two distinct probes fed it, and restarts after an alarm', () => {
  const pool = new KnowledgePooledEvidence({ alpha: 0.05 });
  const big = { fcs: 1_000, ic: null, facts: null };
  // One probe alone, however strong: its own detector watches it; the pool holds back.
  const alone = pool.observe('kp-a', KNOWLEDGE, big)[0]!;
  assert.equal(alone.alarm.fcs, false);
  assert.ok(alone.statistic.fcs >= pool.threshold);
  assert.deepEqual(alone.probeIds, ['kp-a']);
  // The same probe again: still one probe.
  assert.equal(pool.observe('kp-a', KNOWLEDGE, { fcs: 1, ic: null, facts: null })[0]!.alarm.fcs, false);
  const second = pool.observe('kp-b', KNOWLEDGE, { fcs: 1, ic: null, facts: null })[0]!;
  assert.equal(second.alarm.fcs, true);
  assert.deepEqual(second.probeIds, ['kp-a', 'kp-b']);
  assert.equal(second.runs, 3);
  assert.equal(second.threshold, pooledThreshold(0.05));
  // Restarted: every detector at 0, no probe counted.
  const after = pool.observe('kp-b', KNOWLEDGE, { fcs: 1, ic: 2, facts: null })[0]!;
  assert.deepEqual(after.statistic, { fcs: 1, ic: 2, facts: 0 });
  assert.equal(after.runs, 1);
  assert.deepEqual(after.probeIds, ['kp-b']);
});

test('a probe feeds one pool per knowledge id it expects; signals not tested leave their detector unchanged', () => {
  const pool = new KnowledgePooledEvidence({ alpha: 0.01 });
  const verdicts = pool.observe('kp-a', ['apt/x', 'changelog/x', 'apt/x'], { fcs: 2, ic: null, facts: 3 });
  assert.deepEqual(
    verdicts.map((v) => v.knowledgeId),
    ['apt/x', 'changelog/x'],
  );
  assert.deepEqual(verdicts[0]!.statistic, { fcs: 2, ic: 0, facts: 3 });
  // A run that tested nothing (its calls failed) is not pooled: no run counted, the probe not added.
  const failed = pool.observe('kp-c', ['changelog/x'], { fcs: null, ic: null, facts: null })[0]!;
  assert.deepEqual([failed.runs, failed.probes, failed.statistic.fcs], [1, 1, 2]);
  const next = pool.observe('kp-b', ['changelog/x'], { fcs: 2, ic: null, facts: null })[0]!;
  assert.deepEqual(next.statistic, { fcs: 4, ic: 0, facts: 3 });
  assert.equal(next.probes, 2);
  assert.deepEqual(next.probeIds, ['kp-a', 'kp-b']);
});

test('the pools are bounded and the options are checked', () => {
  const pool = new KnowledgePooledEvidence({ alpha: 0.01, maxKnowledge: 3 });
  for (let i = 0; i < 10; i++) pool.observe('kp-a', [`k/${i}`], { fcs: 1, ic: null, facts: null });
  assert.equal(pool.size, 3);
  assert.throws(() => new KnowledgePooledEvidence({ alpha: 1 }), /alpha must be in \(0, 1\)/);
  assert.throws(() => new KnowledgePooledEvidence({ alpha: 0.01, minProbes: 1 }), /minProbes must be an integer >= 2/);
  assert.throws(() => new KnowledgePooledEvidence({ alpha: 0.01 }).observe('kp-a', ['k'], { fcs: -1, ic: null, facts: null }), /e-value/);
});
