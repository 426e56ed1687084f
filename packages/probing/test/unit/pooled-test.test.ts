/**
 * Issue 39, item 1: the pooled test. Each run's e-value has expectation exactly 1 under the exact
 * permutation null; the CUSUM e-detector's false alarms on simulated null streams stay at or below
 * alpha per run (expected runs between false alarms >= 1 / alpha); a shifted stream is detected
 * within a few runs; a detector restarts after each alarm; the state is bounded.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EDetector,
  PooledEvidence,
  eValue,
  factFrequencyTest,
  mannWhitneyLessNull,
  pooledThreshold,
  type NullDistribution,
} from '../../src/index.ts';
import { seededRandom as seeded } from '../../src/random.ts';

/** The expectation of a run's e-value over the exact null distribution of its p. */
const nullExpectation = (test: NullDistribution) =>
  test.nullPs.reduce((sum, { p, weight }) => sum + weight * eValue({ p, nullPs: test.nullPs }), 0);

test("a run's e-value has expectation exactly 1 under the exact permutation null, ties included", () => {
  for (const [online, baseline] of [
    [
      [0.1, 0.2, 0.3, 0.4, 0.5],
      [0.6, 0.7, 0.8, 0.9, 1],
    ],
    [
      [0, 0, 0.5, 0.9, 0.9],
      [0, 0.5, 0.5, 0.9, 0.9],
    ],
    [
      [0.2, 0.3],
      [0.1, 0.4, 0.5],
    ],
  ] as const) {
    const test = mannWhitneyLessNull(online, baseline);
    assert.ok(Math.abs(nullExpectation(test) - 1) < 1e-9, `E0[e] = ${nullExpectation(test)}`);
  }
  const facts = factFrequencyTest(['Version 1.2 by Ann Lee.', 'Version 1.2.', 'x'], ['Version 1.3 by Bob.', 'Version 1.2.', 'y 7']);
  assert.ok(facts !== null && Math.abs(nullExpectation(facts) - 1) < 1e-9);
  // Samples that cannot differ (every split alike) give e = 1: no evidence either way.
  assert.equal(eValue(mannWhitneyLessNull([0.7, 0.7, 0.7], [0.7, 0.7, 0.7])), 1);
});

test('a run where the online samples are all below the baseline gives more evidence the more samples', () => {
  const e = (k: number) => eValue(mannWhitneyLessNull(Array(k).fill(0.1), Array(k).fill(0.9)));
  assert.ok(e(3) > 1 && e(5) > e(3) && e(7) > e(5), `${e(3)} ${e(5)} ${e(7)}`);
  // Online above the baseline is no evidence of a drop.
  assert.ok(eValue(mannWhitneyLessNull(Array(5).fill(0.9), Array(5).fill(0.1))) < 1);
});

/** k scores a side from a bimodal, tied distribution like the LangChain RAG's FCS; shift lowers it. */
const scoresFrom = (random: () => number, k: number, shift = 0) =>
  Array.from({ length: k }, () => Math.max(0, [0, 0.01, 0.5, 0.5, 0.8, 0.9, 0.9][Math.floor(random() * 7)]! - shift));

test('on simulated null streams the false alarms stay at or below alpha per run, at every level', () => {
  const random = seeded(39);
  for (const alpha of [0.2, 0.05]) {
    const evidence = new PooledEvidence({ alpha });
    let alarms = 0;
    let runs = 0;
    for (let stream = 0; stream < 60; stream++)
      for (let run = 0; run < 150; run++) {
        const online = scoresFrom(random, 5);
        const baseline = scoresFrom(random, 5);
        const { verdict, commit } = evidence.observe(`null-${stream}`, {
          fcs: mannWhitneyLessNull(online, baseline),
          ic: mannWhitneyLessNull(scoresFrom(random, 3), scoresFrom(random, 3)),
          facts: null,
        });
        if (verdict.fcs.alarm || verdict.ic.alarm) alarms += 1;
        commit();
        runs += 1;
      }
    assert.ok(alarms / runs <= alpha, `alpha ${alpha}: ${alarms} alarms in ${runs} null runs`);
  }
});

test('a detector with an e-value that is not one (expectation above 1) alarms on null streams: the check above can fail', () => {
  // The same null stream with every e-value doubled: its expectation is 2, and the detector drifts up.
  const random = seeded(7);
  const detector = new EDetector();
  const threshold = pooledThreshold(0.05);
  let alarms = 0;
  for (let run = 0; run < 3000; run++) {
    const value = detector.next(2 * eValue(mannWhitneyLessNull(scoresFrom(random, 5), scoresFrom(random, 5))));
    if (value >= threshold) {
      alarms += 1;
      detector.reset();
    } else detector.keep(value);
  }
  assert.ok(alarms / 3000 > 0.05, `${alarms} alarms`);
});

test('a shifted stream is detected within a few runs, sooner the larger the shift', () => {
  const random = seeded(3);
  const medianDelay = (shift: number) => {
    const delays: number[] = [];
    for (let stream = 0; stream < 40; stream++) {
      const evidence = new PooledEvidence({ alpha: 0.01 });
      let run = 1;
      for (; run <= 100; run++) {
        const { verdict, commit } = evidence.observe('p', {
          fcs: mannWhitneyLessNull(scoresFrom(random, 5, shift), scoresFrom(random, 5)),
          ic: null,
          facts: null,
        });
        commit();
        if (verdict.fcs.alarm) break;
      }
      delays.push(run);
    }
    return delays.sort((a, b) => a - b)[20]!;
  };
  const large = medianDelay(0.5);
  const small = medianDelay(0.3);
  assert.ok(large <= 6, `median delay at shift 0.5: ${large} runs`);
  assert.ok(small <= 20 && small >= large, `median delay at shift 0.3: ${small} runs`);
});

test('answers carrying another fact while their scores stay equal are caught by the facts detector alone', () => {
  const evidence = new PooledEvidence({ alpha: 0.01 });
  const online = Array.from({ length: 5 }, (_, i) => `The latest version of libxml2 is 2.9.15, take ${'abcde'[i]}.`);
  const baseline = Array.from({ length: 5 }, (_, i) => `The latest version of libxml2 is 2.9.14, take ${'abcde'[i]}.`);
  let run = 0;
  let alarmed = false;
  while (!alarmed && run < 10) {
    run += 1;
    const { verdict, commit } = evidence.observe('facts', {
      fcs: mannWhitneyLessNull([0.9, 0.9, 0.9, 0.9, 0.9], [0.9, 0.9, 0.9, 0.9, 0.9]),
      ic: null,
      facts: factFrequencyTest(online, baseline),
    });
    assert.equal(verdict.fcs.alarm, false);
    alarmed = verdict.facts.alarm;
    commit();
  }
  assert.ok(alarmed && run <= 3, `facts alarm after ${run} runs`);
});

test('a detector keeps its evidence until it alarms, then restarts', () => {
  const evidence = new PooledEvidence({ alpha: 0.05 });
  const drop = () => ({ fcs: mannWhitneyLessNull([0, 0, 0, 0, 0], [1, 1, 1, 1, 1]), ic: null, facts: null });
  const first = evidence.observe('p', drop());
  assert.equal(first.verdict.fcs.alarm, false);
  first.commit();
  assert.equal(evidence.leaning('p'), first.verdict.fcs.statistic);
  const second = evidence.observe('p', drop());
  assert.ok(second.verdict.fcs.alarm && second.verdict.fcs.statistic > first.verdict.fcs.statistic);
  // Nothing committed, nothing changed: a run that throws between observe and commit leaves no trace.
  assert.equal(evidence.leaning('p'), first.verdict.fcs.statistic);
  second.commit();
  assert.equal(evidence.leaning('p'), 0);
  // Any detector's alarm restarts all of the probe's: the facts evidence built meanwhile goes too.
  const facts = factFrequencyTest(['Version 1.2.', 'Version 1.2.', 'Version 1.2.'], ['Version 1.3.', 'Version 1.3.', 'Version 1.3.']);
  evidence.observe('p', { fcs: drop().fcs, ic: null, facts }).commit();
  assert.ok(evidence.leaning('p') > 1);
  const both = evidence.observe('p', { ...drop(), facts });
  assert.ok(both.verdict.fcs.alarm && !both.verdict.facts.alarm);
  both.commit();
  assert.equal(evidence.leaning('p'), 0);
  // A signal without a test this run (a side without scores) leaves its detector as it was.
  const third = evidence.observe('p', { fcs: null, ic: null, facts: null });
  assert.equal(third.verdict.fcs.statistic, 0);
});

test('the state is bounded: the least recently run probe is forgotten first', () => {
  const evidence = new PooledEvidence({ alpha: 0.05, maxProbes: 2 });
  const drop = { fcs: mannWhitneyLessNull([0, 0, 0], [1, 1, 1]), ic: null, facts: null };
  for (const id of ['a', 'b', 'a', 'c']) evidence.observe(id, drop).commit();
  assert.equal(evidence.size, 2);
  assert.equal(evidence.leaning('b'), 0);
  assert.ok(evidence.leaning('a') > 1 && evidence.leaning('c') > 1);
  assert.throws(() => new PooledEvidence({ alpha: 1 }), /alpha must be in \(0, 1\)/);
});
