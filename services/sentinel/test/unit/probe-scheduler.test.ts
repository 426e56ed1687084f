import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProbeScheduler } from '../../src/probe-scheduler.ts';
import type { GoldenProbe } from '@rag-immune/probing';

const probe = (id: string): GoldenProbe => ({
  id,
  version: 1,
  query: `query ${id}`,
  expected_sources: ['k'],
  business_value: 1,
  cluster: 'head',
  created_at: '2026-11-01T00:00:00Z',
  retired_at: null,
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a slow run delays its probe instead of stacking: never two runs of one probe at once', async () => {
  let concurrent = 0;
  let maxConcurrent = 0;
  let runs = 0;
  const scheduler = new ProbeScheduler({
    intervalMs: 20,
    jitter: 0,
    maxConcurrent: 4,
    random: () => 0,
    run: async () => {
      concurrent += 1;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      runs += 1;
      await sleep(100); // five intervals long
      concurrent -= 1;
    },
  });
  scheduler.start([probe('slow-probe')]);
  await sleep(450);
  await scheduler.stop();
  assert.equal(maxConcurrent, 1);
  assert.ok(runs >= 2 && runs <= 4, `runs: ${runs}`);
});

test('runNow while a run is in progress joins it rather than starting another', async () => {
  let runs = 0;
  const scheduler = new ProbeScheduler({
    intervalMs: 60_000,
    jitter: 0,
    maxConcurrent: 1,
    run: async () => void ((runs += 1), await sleep(50)),
  });
  await Promise.all([scheduler.runNow(probe('p1')), scheduler.runNow(probe('p1'))]);
  assert.equal(runs, 1);
});

test('the concurrency limit holds across probes, and a failing run does not stop the schedule', async () => {
  let concurrent = 0;
  let maxConcurrent = 0;
  const outcomes: string[] = [];
  const scheduler = new ProbeScheduler({
    intervalMs: 10,
    jitter: 0.5,
    maxConcurrent: 2,
    run: async (p) => {
      concurrent += 1;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      await sleep(15);
      concurrent -= 1;
      outcomes.push(p.id);
      if (p.id === 'p0') throw new Error('probe failure');
    },
  });
  scheduler.start([probe('p0'), probe('p1'), probe('p2'), probe('p3')]);
  await sleep(200);
  await scheduler.stop();
  assert.ok(maxConcurrent <= 2);
  assert.ok(outcomes.filter((id) => id === 'p0').length >= 2, 'p0 keeps being scheduled after failing');
});

test('an accepted rotation: a retired probe is not scheduled again, an added one is', async () => {
  const runs: string[] = [];
  const scheduler = new ProbeScheduler({
    intervalMs: 20,
    jitter: 0,
    maxConcurrent: 4,
    random: () => 0,
    run: async (p) => {
      runs.push(p.id);
    },
  });
  scheduler.start([probe('old'), probe('kept')]);
  await sleep(70);
  scheduler.retire('old');
  scheduler.add(probe('new'));
  const at = runs.length;
  await sleep(120);
  await scheduler.stop();
  const later = runs.slice(at);
  assert.equal(later.filter((id) => id === 'old').length, 0, `runs after the retirement: ${later.join(',')}`);
  assert.ok(later.includes('new') && later.includes('kept'), `runs after the rotation: ${later.join(',')}`);
});
