/**
 * kill -9 at every step of an action, on the in-memory twins (issue 29): the first replica dies at a
 * crash point (EFFECTOR_TEST_CRASH_AT's steps; in-process, everything it would do next never happens),
 * a second replica under a NEW instance id takes over — its recovery sweep once the dead one's lease
 * ran out, or its start-up recovery for steps that hold no lease — and the RAG ends repaired exactly
 * once: no execute on top of a half-applied one, the incident recovered, `succeeded` published.
 * The second variant has no restart at all: a surviving replica's periodic sweep alone finishes every
 * case, the `planned` step (claimed or not) and the `succeeded` one whose event was lost included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CRASH_POINTS, type CrashPoint } from '../../src/index.ts';
import { PLANNED_CLAIM_MS } from '../../src/run/action-runner.ts';
import { RecoverySweep } from '../../src/run/recovery-sweep.ts';
import { report, startLoop, type Loop } from './support/loop-fixture.ts';

const LEASE_MS = 300;
/** Long enough that the sweep's too-early pass surely runs inside it on a loaded machine. */
const SWEEP_LEASE_MS = 1_500;
/** Crash points at which the dead replica still holds a claim on the step (a lease to run out first). */
const CLAIMED_AT: readonly CrashPoint[] = ['after_snapshot', 'after_started', 'after_execute', 'after_executed'];

/** Polls `check` until it holds (no fixed sleeps: the machine may be slow). */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function sweepOf(loop: Loop, instanceId: string, leaseMs = LEASE_MS): RecoverySweep {
  const replica = loop.replica(instanceId);
  return new RecoverySweep({
    actions: loop.deps.actions,
    incidents: loop.deps.incidents,
    instanceId,
    leaseMs,
    logger: loop.deps.logger,
    process: (r) => replica.process(r),
  });
}

/** Each execute that is not the first is preceded by an undo and the restore of its snapshot. */
function executionsEachOnABeforeState(log: readonly string[]): void {
  let applied = false;
  for (const line of log) {
    if (line.startsWith('execute ')) {
      assert.ok(!applied, `an execute on top of an applied repair: ${log.join(' | ')}`);
      applied = true;
    }
    if (line.startsWith('restore ')) applied = false;
  }
}

for (const crashAt of CRASH_POINTS) {
  test(`killed ${crashAt}: a new replica takes over, one repair applied, the incident recovered, succeeded published`, async () => {
    const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }], leaseMs: LEASE_MS });
    const r = report(`inc-k-${crashAt}`);
    const first = await loop.crashingReplica('effector-0', crashAt);
    void first.effector.process(r); // never settles once dead
    await until(`effector-0 to die ${crashAt}`, first.dead);

    const [left] = await loop.deps.actions.list({ incident: r.incident_id });
    assert.ok(left);
    // The step is claimed from the start of its run (snapshot included) until it is verified.
    const leased = left.lease_until !== null && left.owner === 'effector-0';
    assert.equal(leased, CLAIMED_AT.includes(crashAt), `${left.status} owner ${left.owner}`);
    if (leased) {
      // effector-1 (a new instance id: it owns nothing) must keep off until the lease runs out ...
      assert.equal(await loop.replica('effector-1').process(r), left.status === 'planned' ? 'contended' : 'in_progress_elsewhere');
      await until("the dead replica's lease to run out", () => Date.now() > (left.lease_until ?? 0));
      // ... then its sweep takes the action over with no restart.
      const swept = await sweepOf(loop, 'effector-1').sweep();
      assert.deepEqual(swept, [{ incident_id: r.incident_id, outcome: 'recovered' }]);
    } else {
      // Nothing leased (planned, or succeeded without its event): start-up recovery re-runs the open incident.
      const outcomes = await loop.replica('effector-1').recoverInFlight();
      assert.deepEqual(outcomes, [{ incident_id: r.incident_id, outcome: 'recovered' }]);
    }

    await assertRepairedOnce(loop, r.incident_id, crashAt);
  });

  test(`killed ${crashAt}: a surviving replica's periodic sweep alone takes it over and finishes it (no restart, no redelivery)`, async () => {
    const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }], leaseMs: SWEEP_LEASE_MS });
    const r = report(`inc-s-${crashAt}`);
    const first = await loop.crashingReplica('effector-0', crashAt);
    void first.effector.process(r);
    await until(`effector-0 to die ${crashAt}`, first.dead);
    const sweep = sweepOf(loop, 'effector-1', SWEEP_LEASE_MS);
    // Too early: a claim still live, or a step left alone for less than a lease, is not the sweep's yet.
    assert.deepEqual(await sweep.sweep(), []);
    assert.equal(loop.events.filter((e) => e.incident_id === r.incident_id && e.status === 'succeeded').length, 0);
    await new Promise((resolve) => setTimeout(resolve, SWEEP_LEASE_MS + 20));
    assert.deepEqual(await sweep.sweep(), [{ incident_id: r.incident_id, outcome: 'recovered' }]);
    await assertRepairedOnce(loop, r.incident_id, crashAt);
    // Done: the next pass finds nothing (the incident is recovered).
    assert.deepEqual(await sweep.sweep(), []);
  });
}

/** After the takeover: one repair applied on a before state, the action succeeded once, published once, the incident recovered. */
async function assertRepairedOnce(loop: Loop, incident: string, crashAt: CrashPoint): Promise<void> {
  {
    const r = { incident_id: incident };
    const executes = loop.rag.log.filter((l) => l.startsWith('execute ')).length;
    const undos = loop.rag.log.filter((l) => l.startsWith('undo ')).length;
    assert.ok(executes >= 1 && executes <= undos + 1, `executes ${executes}, undos ${undos}: ${loop.rag.log.join(' | ')}`);
    executionsEachOnABeforeState(loop.rag.log);
    if (crashAt === 'after_execute' || crashAt === 'after_executed')
      assert.deepEqual([executes, undos], [2, 1], 'the applied repair was put back once, then run once more');
    else if (crashAt !== 'after_started') assert.deepEqual([executes, undos], [1, 0], 'nothing to put back: run once');
    assert.equal(loop.rag.healthy, true, 'the RAG is in the after state');
    assert.equal(loop.rag.points, 101, 'exactly one Qdrant-writing repair applied');
    const [action] = await loop.deps.actions.list({ incident: r.incident_id });
    assert.equal(action?.status, 'succeeded');
    assert.equal((await loop.deps.incidents.get(r.incident_id))?.doc.status, 'recovered');
    // Published after the state change, re-published at restart when lost: at least once. Here the
    // dead replica published nothing after its crash point, so exactly once, for the one action.
    const succeeded = loop.events.filter((e) => e.incident_id === r.incident_id && e.status === 'succeeded');
    assert.equal(succeeded.length, 1);
    assert.equal(succeeded[0]?.action_id, action.action_id);
    assert.equal(succeeded[0]?.snapshot_id, action.snapshot_id);
    assert.equal(loop.lifecycle(r.incident_id).filter((s) => s.endsWith(':escalated')).length, 0);
  }
}

test('a planned step is claimed for at most PLANNED_CLAIM_MS, not the whole lease: a replica killed before the repair starts costs minutes, not the lease', async () => {
  const leaseMs = 600_000;
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }], leaseMs });
  const r = report('inc-k-claim');
  const first = await loop.crashingReplica('effector-0', 'after_snapshot');
  const claimedAt = Date.now();
  void first.effector.process(r); // never settles once dead
  await until('effector-0 to die after its snapshot', first.dead);
  const [left] = await loop.deps.actions.list({ incident: r.incident_id });
  assert.ok(left && left.status === 'planned' && left.owner === 'effector-0', `${left?.status} owner ${left?.owner}`);
  assert.ok(left.lease_until !== null && left.lease_until <= Date.now() + PLANNED_CLAIM_MS, 'claimed beyond PLANNED_CLAIM_MS');
  assert.ok(left.lease_until >= claimedAt + PLANNED_CLAIM_MS - 1_000, 'claimed for the planned-claim time');
  assert.ok(PLANNED_CLAIM_MS < leaseMs);
});

test("a planned step's claim is renewed while its snapshot outlasts it: another replica's sweep keeps off, the repair runs once", async () => {
  // The claim is min(lease, PLANNED_CLAIM_MS), renewed every third of it: long enough that a loaded
  // machine's late timers do not let it lapse, short enough that the snapshot outlasts it three times.
  const leaseMs = 1_500;
  const loop = await startLoop({ tools: [{ name: 'rewrite', heals: true, touchesQdrant: true }], leaseMs });
  const take = loop.archive.take.bind(loop.archive);
  let snapshotting = false;
  loop.archive.take = async (collection: string) => {
    snapshotting = true;
    await new Promise((resolve) => setTimeout(resolve, 3 * leaseMs));
    snapshotting = false;
    return take(collection);
  };
  const r = report('inc-k-slow-snapshot');
  const done = loop.effector.process(r);
  await until('the snapshot to start', () => snapshotting);
  const sweep = sweepOf(loop, 'effector-1', leaseMs);
  const swept: unknown[] = [];
  while (snapshotting) {
    swept.push(...(await sweep.sweep()));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(await done, 'recovered');
  assert.deepEqual(swept, [], 'the sweep took the claimed step over while its snapshot ran');
  assert.equal(loop.rag.log.filter((l) => l.startsWith('snapshot ')).length, 1, loop.rag.log.join(' | '));
  assert.equal(loop.lifecycle(r.incident_id).filter((s) => s.endsWith(':started')).length, 1);
});
