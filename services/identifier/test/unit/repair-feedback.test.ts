/**
 * The effector's RepairActions fed back into their incident: a repair's outcome that arrives after a
 * new report revision put the incident back at `reported` still ends the repair (through
 * `repairing`), and a step no transition fits is kept in the timeline, never thrown (thrown, the
 * identifier retried it for ever and the actions partition stopped: bench/traffic, 2026-12-06).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { exampleProbeResult, exampleRepairAction } from '@rag-immune/contracts';
import { memoryStores } from '@rag-immune/es-store';
import { IdentifierMetrics, IncidentStore } from '../../src/index.ts';
import { newIncident } from '../../src/incidents/grouping.ts';
import { moveTo } from '../../src/incidents/incident.ts';
import { pathTo, RepairFeedback } from '../../src/incidents/repair-feedback.ts';
import type { IncidentState } from '../../src/incidents/incident-state.ts';

async function setup(states: IncidentState[]) {
  const store = new IncidentStore(memoryStores(), 'unit');
  const incident = newIncident('inc-0123456789abcdef', exampleProbeResult(), 1_000);
  for (const state of states) moveTo(incident, state, 2_000, 'test', {});
  await store.save(incident, null);
  const feedback = new RepairFeedback({
    store,
    metrics: new IdentifierMetrics(new Registry()),
    logger: pino({ level: 'silent' }),
    now: () => 3_000,
  });
  return { store, feedback, id: incident.incident_id };
}

test('pathTo: straight when allowed, through repairing after a new revision, null when nothing fits', () => {
  assert.deepEqual(pathTo('repairing', 'failed'), ['failed']);
  assert.deepEqual(pathTo('reported', 'failed'), ['repairing', 'failed']);
  assert.deepEqual(pathTo('reported', 'verified'), ['repairing', 'verified']);
  assert.equal(pathTo('open', 'failed'), null);
});

test("a repair's failure that arrives after a new revision (incident reported) fails the incident through repairing", async () => {
  const { store, feedback, id } = await setup(['reported', 'repairing', 'reported']);
  await feedback.apply({ ...exampleRepairAction(id), status: 'failed', verification: null });
  const after = (await store.get(id))!.doc;
  assert.equal(after.state, 'failed');
  assert.deepEqual(
    after.timeline.slice(-2).map((t) => t.state),
    ['repairing', 'failed'],
  );
});

test('a step no transition fits is kept in the timeline, and apply does not throw', async () => {
  const { store, feedback, id } = await setup([]);
  await feedback.apply({ ...exampleRepairAction(id), status: 'failed', verification: null });
  const after = (await store.get(id))!.doc;
  assert.equal(after.state, 'open');
  assert.ok(after.timeline.some((t) => t.event === 'repair_failed_out_of_order'));
});
