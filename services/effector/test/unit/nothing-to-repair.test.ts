/**
 * Issue 40 item 5: a verification must not pass when nothing was failing. A repair whose
 * before-measurement finds every probe of its cause healthy is not run (nothing captured, no
 * snapshot, no execute) and the incident goes to a person; one whose before-measurement is
 * inconclusive still runs (its verification decides).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nothingToRepair } from '../../src/verify/repair-judgement.ts';
import type { ProbeMeasurement } from '../../src/index.ts';
import { report, startLoop } from './support/loop-fixture.ts';

test('probes healthy before the repair: it is not run, not counted "recovered", and the incident is escalated', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true, touchesQdrant: true }] });
  loop.rag.healthy = true;
  const outcome = await loop.effector.process(report('inc-healthy'));
  assert.equal(outcome, 'escalated');
  assert.deepEqual(
    loop.rag.log.filter((line) => line.includes('fix_a')),
    [],
    'fix_a was neither executed nor undone',
  );
  const fix = (await loop.deps.actions.list({ incident: 'inc-healthy' })).find((a) => a.tool === 'fix_a');
  assert.equal(fix?.status, 'failed');
  assert.equal(fix?.executions, 0);
  assert.equal(fix?.snapshot_id ?? null, null, 'no snapshot taken for a repair that did not run');
  assert.equal(fix?.failure?.reason, 'policy_denied');
  assert.match(fix?.failure?.message ?? '', /nothing to repair/);
  assert.notEqual(fix?.verification?.recovered, true);
  assert.ok(!loop.lifecycle('inc-healthy').includes('fix_a:succeeded'));
  assert.equal((await loop.deps.incidents.get('inc-healthy'))?.doc.status, 'escalated');
});

test('nothingToRepair: only a conclusive measurement with every probe of the cause healthy stops the repair', () => {
  const measurement = (patch: Partial<ProbeMeasurement>): ProbeMeasurement => ({
    probe_ids: ['p1', 'p2'],
    group_probe_ids: ['p1'],
    fcs: 0.9,
    ic: 1,
    kf_age_days: 1,
    recovered: true,
    anomalies: [],
    results: [],
    ...patch,
  });
  assert.match(nothingToRepair(measurement({})) ?? '', /p1\): nothing to repair/);
  // A probe outside the cause's group may be anomalous: it is not this repair's to heal.
  assert.notEqual(nothingToRepair(measurement({ anomalies: ['p2: fcs_drop'] })), null);
  assert.equal(nothingToRepair(measurement({ recovered: false, anomalies: ['p1: fcs_drop'] })), null);
  assert.equal(nothingToRepair(measurement({ inconclusive: 'the baseline did not answer p1 (timeout)' })), null);
});

test('a later revision after a verified repair, its probes healthy now: recovered by the kept repair, nothing re-run, nobody paged', async () => {
  // bench:healing's stale feed: the report revised (its group grew) right after switch_to_backup_source was
  // verified; the revision's before-measurement found nothing failing and paged a person for a healed incident.
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true, touchesQdrant: true }] });
  const first = report('inc-revised');
  assert.equal(await loop.effector.process(first), 'recovered');
  const grown = report('inc-revised', {
    report_revision: 2,
    affected_probes: [...first.affected_probes, { probe_id: 'probe-grown', probe_version: 1, query: 'a probe that joined later' }],
  });
  assert.equal(await loop.effector.process(grown), 'recovered');
  assert.equal(loop.rag.log.filter((line) => line.startsWith('execute fix_a')).length, 1, 'fix_a ran once');
  assert.ok(!loop.lifecycle('inc-revised').some((step) => step.includes('escalated')), loop.lifecycle('inc-revised').join(' '));
  assert.equal((await loop.deps.incidents.get('inc-revised'))?.doc.status, 'recovered');
});

test('a later revision after a verified repair whose probes fail again: not taken as healed, the plan goes on', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true, touchesQdrant: true }] });
  const first = report('inc-relapse');
  assert.equal(await loop.effector.process(first), 'recovered');
  loop.rag.healthy = false;
  const grown = report('inc-relapse', {
    report_revision: 2,
    affected_probes: [...first.affected_probes, { probe_id: 'probe-grown', probe_version: 1, query: 'a probe that joined later' }],
  });
  await loop.effector.process(grown);
  assert.ok(
    loop.rag.log.filter((line) => line.startsWith('execute fix_a')).length === 2 ||
      loop.lifecycle('inc-relapse').some((s) => s.includes('escalated')),
    `the revision was acted on: ${loop.lifecycle('inc-relapse').join(' ')}`,
  );
});

test('the before-repair figures get the verification budget when it is the larger: they run the same probes', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true, touchesQdrant: true }], verifyTimeoutMs: 300_000 });
  assert.equal(await loop.effector.process(report('inc-budget')), 'recovered');
  // Before: max(one RAG call's budget, 60 s, the verification's); after: the verifier's own (undefined here).
  assert.deepEqual(loop.rag.measureBudgets, [300_000, undefined]);
  const floor = await startLoop({ tools: [{ name: 'fix_a', heals: true, touchesQdrant: true }], verifyTimeoutMs: 1 });
  assert.equal(await floor.effector.process(report('inc-floor')), 'recovered');
  assert.deepEqual(floor.rag.measureBudgets, [60_000, undefined], 'a tiny verification budget leaves the floor');
});
