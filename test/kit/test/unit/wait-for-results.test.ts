/**
 * waitForResults: the full base window always, then on only while results still arrive, never past the
 * cap. Time is simulated (a clock the poll advances), so the test takes milliseconds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitForResults } from '../../src/loop/wait-for-results.ts';

/** Results arrive at the given simulated times (ms after the start); each poll advances the clock 1 s. */
function arrivals(times: number[]) {
  let t = 0;
  return {
    now: () => t,
    count: () => times.filter((at) => at <= t).length,
    tick: () => (t += 1000),
    at: () => t,
  };
}

async function run(times: number[], wanted: number) {
  const clock = arrivals(times);
  const n = await waitForResults({
    count: clock.count,
    wanted,
    baseMs: 120_000,
    stallMs: 100_000,
    capMs: 360_000,
    pollMs: 0,
    now: () => clock.tick() - 1000,
  });
  return { n, endedAt: clock.at() };
}

test('returns as soon as the wanted results are in', async () => {
  const { n, endedAt } = await run([10_000, 20_000, 30_000], 3);
  assert.equal(n, 3);
  assert.ok(endedAt <= 32_000, `ended at ${endedAt}`);
});

test('a result past the base window still counts while results keep arriving (the CI case: 4 of 5 at 154 s)', async () => {
  const { n } = await run([40_000, 80_000, 110_000, 150_000, 170_000], 5);
  assert.equal(n, 5);
});

test('past the base window a stall ends the wait; the cap ends it whatever arrives', async () => {
  const stalled = await run([10_000, 20_000], 5);
  assert.equal(stalled.n, 2);
  assert.ok(stalled.endedAt >= 120_000 && stalled.endedAt <= 125_000, `stalled wait ended at ${stalled.endedAt}`);
  const trickle = await run(
    Array.from({ length: 40 }, (_, i) => 50_000 + i * 60_000),
    100,
  );
  assert.ok(trickle.endedAt <= 362_000, `capped wait ended at ${trickle.endedAt}`);
});
