/**
 * The effector's loop (intake, plan, runner, undo, escalation, grants, rollback) on in-memory
 * stores with fake tools: every outcome the integration tests reach on the real stack, here in
 * milliseconds and without a RAG (support/loop-fixture.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RollbackRefused } from '../../src/index.ts';
import { report, startLoop } from './support/loop-fixture.ts';

test('the first tool heals: planned → started → succeeded, the incident recovered, the escalation never reached', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'fix_a', heals: true },
      { name: 'fix_b', heals: true },
    ],
  });
  assert.equal(await loop.effector.process(report('inc-1')), 'recovered');
  assert.deepEqual(loop.lifecycle('inc-1'), ['fix_a:planned', 'fix_a:started', 'fix_a:succeeded']);
  assert.equal((await loop.deps.incidents.get('inc-1'))?.doc.status, 'recovered');
  const [action] = await loop.deps.actions.list({ incident: 'inc-1' });
  assert.equal(action?.executions, 1);
  assert.equal(loop.events.at(-1)?.verification?.recovered, true);
  assert.deepEqual(loop.rag.log, ['execute fix_a']);
});

test('a repair that does not heal is undone and the next one tried; its failure names verification', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'fix_a', heals: false },
      { name: 'fix_b', heals: true },
    ],
  });
  assert.equal(await loop.effector.process(report('inc-2')), 'recovered');
  assert.deepEqual(loop.lifecycle('inc-2'), [
    'fix_a:planned',
    'fix_a:started',
    'fix_a:failed',
    'fix_a:rolled_back',
    'fix_b:planned',
    'fix_b:started',
    'fix_b:succeeded',
  ]);
  assert.equal(loop.events.find((e) => e.status === 'failed')?.failure?.reason, 'verification_failed');
  assert.equal(loop.events.find((e) => e.status === 'rolled_back')?.rollback_of_action_id, loop.events[0]?.action_id);
  assert.deepEqual(loop.rag.log, ['execute fix_a', 'undo fix_a', 'execute fix_b']);
});

test('a Qdrant-writing repair snapshots first; when it fails, undo restores that snapshot', async () => {
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: false, touchesQdrant: true }] });
  assert.equal(await loop.effector.process(report('inc-3')), 'escalated');
  const started = loop.events.find((e) => e.status === 'started');
  assert.ok(started?.snapshot_id);
  assert.deepEqual(loop.rag.log, [`snapshot ${started.snapshot_id}`, 'execute rewrite', 'undo rewrite', `restore ${started.snapshot_id}`]);
  assert.equal(loop.rag.points, 100, 'the collection is back where it was');
  assert.equal((await loop.deps.snapshots.get(started.snapshot_id))?.status, 'restored');
});

test('every planned repair failing ends in one escalation under the terminal tool, the incident escalated', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'fix_a', heals: false },
      { name: 'fix_b', throws: true, heals: false },
    ],
  });
  assert.equal(await loop.effector.process(report('inc-4')), 'escalated');
  const steps = loop.lifecycle('inc-4');
  assert.deepEqual(steps.slice(-2), ['page_on_call:planned', 'page_on_call:escalated']);
  assert.equal(loop.events.filter((e) => e.status === 'failed')[1]?.failure?.reason, 'tool_error');
  assert.equal((await loop.deps.incidents.get('inc-4'))?.doc.status, 'escalated');
  assert.ok(!loop.rag.log.includes('execute page_on_call'), 'the terminal tool is never executed');
});

test('the breaker escalates after the failed-repair limit before the next repair runs', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'fix_a', heals: false },
      { name: 'fix_b', heals: false },
      { name: 'fix_c', heals: true },
    ],
    maxFailedRepairs: 2,
  });
  assert.equal(await loop.effector.process(report('inc-5')), 'escalated');
  assert.ok(!loop.rag.log.includes('execute fix_c'));
  const escalated = loop.events.find((e) => e.status === 'escalated');
  assert.equal(escalated?.arguments.escalation, 'failed_repairs');
  assert.equal(escalated?.arguments.chosen_by, 'breaker');
  assert.equal(escalated?.attempt, 2);
});

test('a tool that does not apply is a typed policy_denied failure with no execution; the plan goes on', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'scoped', heals: true, inapplicable: true },
      { name: 'fix_b', heals: true },
    ],
  });
  assert.equal(await loop.effector.process(report('inc-6')), 'recovered');
  assert.deepEqual(loop.lifecycle('inc-6'), ['scoped:failed', 'fix_b:planned', 'fix_b:started', 'fix_b:succeeded']);
  assert.equal(loop.events[0]?.failure?.reason, 'policy_denied');
  assert.equal(await loop.deps.actions.failedCount('inc-6'), 0, 'an inapplicable tool is no failed repair');
});

test('observe mode plans and publishes planned only; nothing runs', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], mode: 'observe' });
  assert.equal(await loop.effector.process(report('inc-7')), 'planned');
  assert.deepEqual(loop.lifecycle('inc-7'), ['fix_a:planned', 'page_on_call:planned']);
  assert.deepEqual(loop.rag.log, []);
  assert.equal((await loop.deps.incidents.get('inc-7'))?.doc.status, 'observed');
});

test('approve mode waits for a grant; an approval resumes the plan and the grant is on the event', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], mode: 'approve' });
  assert.equal(await loop.effector.process(report('inc-8')), 'awaiting_grant');
  const [pending] = await loop.deps.grants.list({ status: 'pending' });
  assert.equal(pending?.tool, 'fix_a');
  assert.deepEqual(loop.rag.log, []);
  await loop.effector.decideGrant(pending!.key, 'approved', 'alice', 'go');
  await loop.effector.idle();
  assert.deepEqual(loop.lifecycle('inc-8'), ['fix_a:planned', 'fix_a:started', 'fix_a:succeeded']);
  assert.equal(loop.events.at(-1)?.grant?.granted_by, 'alice');
  assert.deepEqual(
    ((await loop.deps.audit.list()) as { command: string }[]).map((a) => a.command),
    ['grants.approve'],
  );
});

test('a denied grant fails that action and the plan moves to the next one; an irreversible tool waits even in auto', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'forever', heals: true, reversible: false },
      { name: 'fix_b', heals: true },
    ],
  });
  assert.equal(await loop.effector.process(report('inc-9')), 'awaiting_grant');
  const [pending] = await loop.deps.grants.list({ status: 'pending' });
  await loop.effector.decideGrant(pending!.key, 'denied', 'bob', null);
  await loop.effector.idle();
  assert.deepEqual(loop.lifecycle('inc-9'), ['forever:planned', 'forever:failed', 'fix_b:planned', 'fix_b:started', 'fix_b:succeeded']);
  assert.match(loop.events[1]?.failure?.message ?? '', /grant denied by bob/);
});

test('a redelivered report runs nothing again; an older revision is superseded', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }] });
  const r2 = report('inc-10', { report_revision: 2 });
  assert.equal(await loop.effector.process(r2), 'recovered');
  const published = loop.events.length;
  assert.equal(await loop.effector.process(r2), 'recovered');
  assert.equal(loop.events.length, published);
  assert.equal(await loop.effector.process(report('inc-10', { report_revision: 1 })), 'superseded');
  assert.deepEqual(loop.rag.log, ['execute fix_a']);
});

test('no policy branch: a failed no_policy_branch record, the incident failed', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }] });
  assert.equal(
    await loop.effector.process(report('inc-11', { root_cause: 'parser_bug', affected_component: 'parser' })),
    'no_policy_branch',
  );
  assert.deepEqual(loop.lifecycle('inc-11'), ['no_policy_branch:failed']);
  assert.equal((await loop.deps.incidents.get('inc-11'))?.doc.status, 'failed');
});

test('start-up resumes an interrupted action: undo, then one more execution, then verified', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], mode: 'approve' });
  const r = report('inc-13');
  assert.equal(await loop.effector.process(r), 'awaiting_grant');
  const [doc] = await loop.deps.actions.list({ incident: 'inc-13' });
  const v = (await loop.deps.actions.get(doc!.key))!;
  // This replica had started the action when it died: its record says started, owned by it.
  await loop.deps.actions.move(v, 'started', {
    owner: 'replica-a',
    lease_until: Date.now() + 60_000,
    executions: 1,
    prior_json: '{"healthy_before":false}',
  });
  await loop.deps.modes.set('auto', 'test');
  const [recovered] = await loop.effector.recoverInFlight();
  assert.deepEqual(recovered, { incident_id: 'inc-13', outcome: 'recovered' });
  const [after] = await loop.deps.actions.list({ incident: 'inc-13' });
  assert.equal(after?.resumes, 1);
  assert.equal(after?.executions, 2);
  assert.deepEqual(loop.rag.log, ['undo fix_a', 'execute fix_a']);
});

test("another replica's live lease: this one keeps its hands off (in_progress_elsewhere)", async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], mode: 'approve' });
  const r = report('inc-14');
  await loop.effector.process(r);
  const [doc] = await loop.deps.actions.list({ incident: 'inc-14' });
  await loop.deps.actions.move((await loop.deps.actions.get(doc!.key))!, 'started', {
    owner: 'replica-b',
    lease_until: Date.now() + 60_000,
  });
  await loop.deps.modes.set('auto', 'test');
  assert.equal(await loop.effector.process(r), 'in_progress_elsewhere');
  assert.deepEqual(loop.rag.log, []);
});

test('two replicas handling one report: exactly one execution', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }] });
  const r = report('inc-15');
  const outcomes = await Promise.all([loop.effector.process(r), loop.replica('replica-b').process(r)]);
  assert.ok(outcomes.includes('recovered'), outcomes.join());
  assert.equal(loop.rag.log.filter((l) => l === 'execute fix_a').length, 1);
});

test('rollback: a dry run changes nothing; the real one undoes the repair, restores its snapshot and escalates the incident', async () => {
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }] });
  assert.equal(await loop.effector.process(report('inc-16')), 'recovered');
  const snapshot = loop.events.find((e) => e.status === 'succeeded')?.snapshot_id;
  const dry = await loop.effector.rollback('inc-16', { dryRun: true, actor: 'carol' });
  assert.equal(dry.done, false);
  assert.deepEqual(dry.steps[0]?.changes, ['rewrite undone', `collection kb restored from snapshot ${snapshot}`]);
  assert.equal(loop.rag.points, 101);
  const done = await loop.effector.rollback('inc-16', { dryRun: false, actor: 'carol' });
  assert.equal(done.done, true);
  assert.equal(loop.rag.points, 100);
  assert.deepEqual(loop.lifecycle('inc-16').at(-1), 'rewrite:rolled_back');
  assert.equal((await loop.deps.incidents.get('inc-16'))?.doc.status, 'escalated');
  await assert.rejects(
    loop.effector.rollback('inc-16', { dryRun: false, actor: 'carol' }),
    (e: unknown) => e instanceof RollbackRefused && e.status === 409,
  );
  await assert.rejects(
    loop.effector.rollback('nothing-here', { dryRun: true, actor: 'carol' }),
    (e: unknown) => e instanceof RollbackRefused && e.status === 404,
  );
});

test('snapshot retention after a new snapshot keeps the newest and those of unfinished actions', async () => {
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }] });
  await loop.effector.process(report('inc-17a'));
  await loop.effector.process(report('inc-17b', { window_start: Date.now() - 1000 }));
  await new Promise((resolve) => setTimeout(resolve, 50)); // the prune runs off the repair's path
  const live = await loop.deps.snapshots.list({ live: true });
  assert.equal(live.length, 1, 'keep-last 1, keep-within 0 days');
  assert.equal(loop.archive.taken.size, 1);
});

test('memory answering from similar cases with confidence reorders the plan and says so', async () => {
  const loop = await startLoop({
    tools: [
      { name: 'fix_a', heals: false },
      { name: 'fix_b', heals: true, intent: 'rollback_reranker' },
    ],
    recommendation: {
      incident_id: 'inc-18',
      source: 'cases',
      degraded: false,
      strategy: [{ intent: 'rollback_reranker', tool: 'fix_b' }],
      confidence: 0.9,
      top_similarity: 0.95,
      citations: [{ case_id: 'case-1', similarity: 0.95, outcome: 'recovered', intents: ['rollback_reranker'] }],
      rules_version: null,
      reason: 'similar_cases',
      audit_id: 'audit-1',
    },
  });
  assert.equal(await loop.effector.process(report('inc-18')), 'recovered');
  assert.deepEqual(loop.lifecycle('inc-18'), ['fix_b:planned', 'fix_b:started', 'fix_b:succeeded']);
  assert.equal(loop.events[0]?.arguments.chosen_by, 'memory');
  assert.equal(loop.events[0]?.arguments.case_ids, 'case-1');
});

test("start-up after a kill between a whole-index rebuild's succeeded state and its event: the event is published, the incident closed", async () => {
  const loop = await startLoop({ tools: [{ name: 'rebuild_all', heals: true, coversAllKnowledge: true }], mode: 'approve' });
  const r = report('inc-30');
  assert.equal(await loop.effector.process(r), 'awaiting_grant');
  const [doc] = await loop.deps.actions.list({ incident: 'inc-30' });
  // The replica verified the rebuild and wrote `succeeded`, then died before publishing the event.
  const started = await loop.deps.actions.move((await loop.deps.actions.get(doc!.key))!, 'started', { executions: 1 });
  const executed = await loop.deps.actions.move(started!, 'executed', {});
  await loop.deps.actions.move(executed!, 'succeeded', {
    finished_at: new Date(r.window_end + 60_000).toISOString(),
    lease_until: null,
  });
  await loop.deps.modes.set('auto', 'test');
  const [recovered] = await loop.effector.recoverInFlight();
  assert.deepEqual(recovered, { incident_id: 'inc-30', outcome: 'recovered' });
  assert.deepEqual(loop.lifecycle('inc-30'), ['rebuild_all:planned', 'rebuild_all:succeeded']);
  assert.equal((await loop.deps.incidents.get('inc-30'))?.doc.status, 'recovered');
  assert.deepEqual(loop.rag.log, [], 'the rebuild is not run again');
});
