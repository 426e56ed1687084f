/** Where a traffic trial places its fault (test/kit/src/loop/traffic-trial.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TRAFFIC_FAULTS, isFaultApiTrafficFault, placeTrafficFault } from '../../src/loop/traffic-trial.ts';
import type { LoopProbes } from '../../src/loop/probes.ts';

const probes = {
  probes: [{ id: 'p1', expected_sources: ['changelog/curl'] }],
} as unknown as LoopProbes;
const candidates = ['changelog/curl', 'apt/curl', 'apt/jq', 'changelog/jq', 'changelog/zstd', 'apt/zstd'];

test('a fault never lands on a golden probe source', () => {
  for (const fault of TRAFFIC_FAULTS) {
    for (let i = 0; i < 20; i += 1) {
      const plan = placeTrafficFault(fault, candidates, probes);
      assert.notEqual(plan.target, 'changelog/curl', fault);
      if (plan.partner !== undefined) assert.notEqual(plan.partner, 'changelog/curl', fault);
    }
  }
});

test('a failing knowledge source is placed on a changelog document (the feed whose versions move)', () => {
  let seed = 0;
  const random = () => (seed = (seed * 9301 + 49297) % 233280) / 233280;
  const targets = new Set(
    Array.from({ length: 40 }, () => placeTrafficFault('knowledge-source-failure:stale', candidates, probes, random).target),
  );
  assert.deepEqual([...targets].sort(), ['changelog/jq', 'changelog/zstd']);
  assert.throws(() => placeTrafficFault('knowledge-source-failure:ingest-stalled', ['apt/jq', 'apt/zstd'], probes), /no asked knowledge/);
});

test('the fault-API faults are told from the ones written into Qdrant', () => {
  assert.equal(isFaultApiTrafficFault('parser-bug:merge-sections'), true);
  assert.equal(isFaultApiTrafficFault('vectors-overwritten:garbage'), false);
  assert.equal(TRAFFIC_FAULTS.length, new Set(TRAFFIC_FAULTS).size);
});
