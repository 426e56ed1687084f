import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DriftMonitor } from '../../../src/traffic/drift-monitor.ts';
import { seededRandom as rng } from '@rag-immune/probing';

const options = { profileAnswers: 30, priorWeight: 20, minCleanRate: 0.005, confidenceZ: 1.645, shift: 0.3, cooldownMs: 0 };

test('clean traffic over many segments: false alarms within the daily budget', () => {
  // A day of 200,000 answers over 40 segments (popularity skewed), each with its own clean bad rate.
  const answersPerDay = 200_000;
  const monitor = new DriftMonitor({ ...options, answersPerDay, alarmsPerDay: 1 });
  const random = rng(11);
  const rates = Array.from({ length: 40 }, (_, i) => 0.01 + (0.1 * ((i * 7) % 40)) / 40);
  let alarms = 0;
  for (let i = 0; i < answersPerDay; i++) {
    const s = Math.min(39, Math.floor(-Math.log(1 - random()) * 8));
    const bad = random() < rates[s]!;
    if (monitor.observe(`k${s}`, { badOther: bad, scoreDropped: false, topScore: 0.8 }, 0.8)) alarms++;
  }
  // Budget: one false alarm per day; the profile's estimate of p0 is noisy, so allow the budget's Poisson spread (P(X>3 | 1) < 2%).
  assert.ok(alarms <= 3, `${alarms} false alarms in a simulated day, budget 1`);
});

test('a segment whose answers turn bad alarms within tens of answers; the others stay quiet', () => {
  const monitor = new DriftMonitor({ ...options, answersPerDay: 100_000, alarmsPerDay: 1 });
  const random = rng(5);
  const feed = (segment: string, bad: boolean, scoreDropped = false) =>
    monitor.observe(segment, { badOther: bad, scoreDropped, topScore: scoreDropped ? 0.3 : 0.8 }, 0.8);
  for (let i = 0; i < 100; i++) for (const s of ['a', 'b', 'c']) assert.equal(feed(s, random() < 0.03), false);
  let delay = 0;
  let alarmed = false;
  while (!alarmed && delay < 100) {
    delay++;
    alarmed = feed('b', false, true);
    assert.equal(feed('a', random() < 0.03), false);
  }
  assert.ok(alarmed, 'the shifted segment alarmed');
  assert.ok(delay <= 20, `alarm after ${delay} bad answers`);
  assert.equal(monitor.summary().find((s) => s.segment === 'b')?.usual_top_score, 0.8);
});

test('a rejected alarm re-learns the segment clean rate: an optimistic profile stops alarming', () => {
  // The profile's first answers happened to be good (1 of 10 bad); the segment's clean rate is 0.6.
  const monitor = new DriftMonitor({ ...options, profileAnswers: 10, priorWeight: 0, answersPerDay: 100_000, alarmsPerDay: 1 });
  const random = rng(23);
  for (let i = 0; i < 10; i++) monitor.observe('gz', { badOther: i < 1, scoreDropped: false, topScore: 0.8 }, 0.8);
  const p0Before = monitor.summary()[0]!.design!.p0;
  assert.ok(p0Before < 0.55, `profiled p0 ${p0Before} under the true rate`);
  const alarmsOver = (answers: number, onAlarm: () => void) => {
    let alarms = 0;
    for (let i = 0; i < answers; i++)
      if (monitor.observe('gz', { badOther: random() < 0.6, scoreDropped: false, topScore: 0.8 }, 0.8)) {
        alarms++;
        onAlarm();
      }
    return alarms;
  };
  assert.ok(alarmsOver(300, () => {}) >= 3, 'without re-learning the optimistic profile alarms again and again');
  let relearned = 0;
  alarmsOver(300, () => assert.ok(monitor.relearn('gz') && ++relearned > 0));
  const p0After = monitor.summary()[0]!.design!.p0;
  assert.ok(p0After >= 0.6, `re-learned p0 ${p0After} covers the true rate`);
  assert.equal(monitor.summary()[0]!.relearned, relearned);
  assert.ok(alarmsOver(5000, () => monitor.relearn('gz')) <= 1, 'after re-learning the segment keeps within its budget');
  // A segment with no profile yet has nothing to re-learn; a re-learn never lowers p0.
  assert.equal(monitor.relearn('never-seen'), false);
  monitor.relearn('gz');
  assert.ok(monitor.summary()[0]!.design!.p0 >= p0After);
});
