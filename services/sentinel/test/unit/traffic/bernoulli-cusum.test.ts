import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BernoulliCusum, alternativeRate, bernoulliCusumDesign, expectedDelay } from '../../../src/traffic/bernoulli-cusum.ts';
import { seededRandom as rng } from '@rag-immune/probing';

for (const p0 of [0.01, 0.05, 0.2]) {
  test(`clean streams at p0=${p0}: false alarms stay within the budget the threshold was set from`, () => {
    const arl0 = 2000;
    const design = bernoulliCusumDesign(p0, alternativeRate(p0, 0.3), arl0);
    const random = rng(Math.round(p0 * 1000));
    const answers = 400_000;
    const cusum = new BernoulliCusum(design);
    let alarms = 0;
    for (let i = 0; i < answers; i++)
      if (cusum.observe(random() < p0)) {
        alarms++;
        cusum.reset();
      }
    // The budget is answers / ARL0 false alarms; the threshold's bound is conservative.
    assert.ok(alarms <= answers / arl0, `${alarms} false alarms in ${answers} clean answers, budget ${answers / arl0}`);
  });
}

test('a shift to a higher bad rate is detected within about the expected delay', () => {
  const p0 = 0.05;
  const design = bernoulliCusumDesign(p0, alternativeRate(p0, 0.3), 100_000);
  const random = rng(7);
  for (const shifted of [0.35, 0.6, 1]) {
    const expected = expectedDelay(design, shifted);
    const delays: number[] = [];
    for (let trial = 0; trial < 300; trial++) {
      const cusum = new BernoulliCusum(design);
      let n = 0;
      do n++;
      while (!cusum.observe(random() < shifted) && n < 10_000);
      delays.push(n);
    }
    const mean = delays.reduce((a, b) => a + b, 0) / delays.length;
    // Wald's approximation with one increment of overshoot; the mean must not exceed it by more than a quarter.
    assert.ok(mean <= expected * 1.25, `shift to ${shifted}: mean delay ${mean.toFixed(1)} answers, expected about ${expected.toFixed(1)}`);
    assert.ok(Math.max(...delays) < 10_000, `shift to ${shifted} went undetected in a trial`);
  }
});

test('an all-bad stream alarms after about h / ln(p1/p0) answers', () => {
  const design = bernoulliCusumDesign(0.02, alternativeRate(0.02, 0.3), 100_000);
  const cusum = new BernoulliCusum(design);
  let n = 0;
  while (!cusum.observe(true)) n++;
  assert.equal(n + 1, Math.ceil(design.h / Math.log(design.p1 / design.p0)));
});

test('the design refuses rates and budgets that make no detector', () => {
  assert.throws(() => bernoulliCusumDesign(0, 0.3, 1000), /p0/);
  assert.throws(() => bernoulliCusumDesign(0.3, 0.2, 1000), /p1/);
  assert.throws(() => bernoulliCusumDesign(0.1, 0.3, 1), /arl0/);
});
