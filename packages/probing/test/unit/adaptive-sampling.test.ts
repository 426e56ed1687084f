/** Issue 39, item 2: few calls while a probe is clean, more while it leans, capped per run and per hour. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdaptiveSampling } from '../../src/index.ts';

test('base calls while clean, the max while the evidence is at or above the lean fraction of the threshold', () => {
  const sampling = new AdaptiveSampling({ base: 3, max: 7, leanFraction: 0.01 });
  assert.equal(sampling.samplesFor(0, 300), 3);
  assert.equal(sampling.samplesFor(2.9, 300), 3);
  assert.equal(sampling.samplesFor(3, 300), 7);
  // Not adaptive (max = base): always the base.
  assert.equal(new AdaptiveSampling({ base: 5, max: 5 }).samplesFor(1e6, 300), 5);
});

test('the hourly cap stops escalation, not the base runs, and frees up as the hour slides', () => {
  let now = 0;
  const sampling = new AdaptiveSampling({ base: 2, max: 5, callsPerHour: 30 }, () => now);
  sampling.record(20); // 20 calls this minute
  assert.equal(sampling.samplesFor(1e3, 300), 5); // 20 + 10 <= 30
  sampling.record(10);
  assert.equal(sampling.samplesFor(1e3, 300), 2); // 30 + 10 > 30: the base count
  now = 61 * 60_000;
  assert.equal(sampling.callsInLastHour(), 0);
  assert.equal(sampling.samplesFor(1e3, 300), 5);
});

test('bad counts are refused, naming what is wrong', () => {
  assert.throws(() => new AdaptiveSampling({ base: 0, max: 2 }), /base samples must be an integer >= 1/);
  assert.throws(() => new AdaptiveSampling({ base: 5, max: 3 }), /max samples must be an integer >= base/);
});
