/**
 * A repair is never left half-done (issue 29), on the in-memory loop (support/loop-fixture.ts): the
 * lease of an action is renewed while it is worked on and a lost renewal stops the work; a periodic
 * sweep takes over actions whose replica died; a drain gives running repairs up at a safe point for
 * another replica; an execute timeout cancels the RAG call (signal + idempotency key) before the
 * undo; the lease is validated against a renewal's worst round trip.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerConfigError } from '@rag-immune/worker-runtime';
import { RagClient } from '@rag-immune/rag-contract';
import { pinRerankerVersion } from '../../src/actions/pin-reranker-version.ts';
import type { ToolContext } from '../../src/actions/repair-tool.ts';
import { effectorConfigFromEnv } from '../../src/config.ts';
import { RecoverySweep, drainRepairs, stalled } from '../../src/run/recovery-sweep.ts';
import { ActionStore, effectorIndices, newActionDoc, type ActionDoc, type IncidentOutcome } from '../../src/index.ts';
import { report, startLoop, type Loop } from './support/loop-fixture.ts';

/** Polls `check` until it holds (no fixed sleeps: the machine may be slow). */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function actionOf(loop: Loop, incident: string): Promise<ActionDoc> {
  const [doc] = await loop.deps.actions.list({ incident });
  assert.ok(doc, `an action of ${incident}`);
  return doc;
}

/** An action of `incident` left `started` by a replica that died: its lease ran out. */
async function leftByDeadReplica(loop: Loop, incident: string, lease_until: number | null = Date.now() - 1): Promise<void> {
  const r = report(incident);
  await loop.deps.modes.set('approve', 'test');
  assert.equal(await loop.effector.process(r), 'awaiting_grant');
  const doc = await actionOf(loop, incident);
  await loop.deps.actions.move((await loop.deps.actions.get(doc.key))!, 'started', {
    owner: 'replica-dead',
    lease_until,
    executions: 1,
    prior_json: '{"healthy_before":false}',
  });
  await loop.deps.modes.set('auto', 'test');
}

function sweepOf(loop: Loop, instanceId: string, leaseMs = 60_000): RecoverySweep {
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

test('the lease is renewed while the repair runs: past its first expiry another replica still keeps its hands off', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], leaseMs: 300 });
  loop.rag.hangExecutes = 1;
  const r = report('inc-l1');
  const running = loop.effector.process(r);
  await until('the execute to be under way', () => loop.rag.hanging === 1);
  const first = (await actionOf(loop, 'inc-l1')).lease_until!;
  // Past the lease the action started with: only a renewal keeps it live.
  await until('the first lease to have run out', () => Date.now() > first + 50);
  await until('a renewed lease', async () => ((await actionOf(loop, 'inc-l1')).lease_until ?? 0) > Date.now() + 150);
  assert.equal(await loop.replica('replica-b').process(r), 'in_progress_elsewhere');
  loop.rag.finishHung();
  assert.equal(await running, 'recovered');
  assert.deepEqual(loop.rag.log, ['execute fix_a'], 'one execution, nothing undone under it');
  assert.equal((await actionOf(loop, 'inc-l1')).lease_until, null, 'a finished action holds no lease');
});

test('a lost renewal (another replica took the action over) stops this replica: its execute is cancelled, nothing undone', async () => {
  // An execute budget far beyond the wait below: only the lost renewal can end this execute.
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], leaseMs: 300, executeTimeoutMs: 60_000 });
  loop.rag.hangExecutes = 1;
  const running = loop.effector.process(report('inc-l2'));
  await until('the execute to be under way', () => loop.rag.hanging === 1);
  // Another replica (its own store client, as in another process) takes the action over.
  const other = new ActionStore(loop.docs, effectorIndices('unit').actions);
  const doc = await actionOf(loop, 'inc-l2');
  const taken = await other.update((await other.get(doc.key))!, { owner: 'replica-b', lease_until: Date.now() + 60_000 });
  assert.ok(taken);
  let outcome: IncidentOutcome | undefined;
  void running.then((o) => (outcome = o));
  // No finishHung(): only the lost renewal can end this execute.
  await until('this replica to stop', () => outcome !== undefined);
  assert.equal(outcome, 'contended');
  assert.deepEqual(loop.rag.log, ['execute fix_a', 'execute fix_a aborted']);
  const after = await actionOf(loop, 'inc-l2');
  assert.equal(after.status, 'started');
  assert.equal(after.owner, 'replica-b', "the new owner's claim stands");
});

test('an execute timeout cancels the RAG call (abort signal, idempotency key = action id) before the undo starts', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], executeTimeoutMs: 100 });
  loop.rag.hangExecutes = 1;
  assert.equal(await loop.effector.process(report('inc-l3')), 'escalated');
  assert.deepEqual(loop.rag.log, ['execute fix_a', 'execute fix_a aborted', 'undo fix_a']);
  const failed = loop.events.find((e) => e.status === 'failed');
  assert.equal(failed?.failure?.reason, 'timeout');
  assert.deepEqual(loop.rag.idempotencyKeys, [failed?.action_id]);
});

test("a repair hook's call carries the execute's signal and the Idempotency-Key header", async () => {
  const seen: { headers: Headers; signal: AbortSignal | null | undefined }[] = [];
  const fetchSpy: typeof fetch = async (_input, init) => {
    seen.push({ headers: new Headers(init?.headers), signal: init?.signal });
    return new Response(JSON.stringify({ ok: true, action: 'pin_reranker', detail: {} }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  const online = new RagClient({ baseUrl: 'http://rag.invalid', fetch: fetchSpy });
  const controller = new AbortController();
  const ctx = { online, timeoutMs: 1000, signal: controller.signal, idempotencyKey: 'action-1' } as unknown as ToolContext;
  await pinRerankerVersion.execute(ctx, { version: 'v2' } as never).catch(() => undefined);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.headers.get('idempotency-key'), 'action-1');
  assert.equal(seen[0]!.signal?.aborted, false);
  controller.abort();
  assert.equal(seen[0]!.signal?.aborted, true, "the execute's signal reaches fetch");
});

test('the recovery sweep takes over an action whose replica died (lease expired): put back, resumed, verified', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }] });
  await leftByDeadReplica(loop, 'inc-l4');
  const outcomes = await sweepOf(loop, 'replica-b').sweep();
  assert.deepEqual(outcomes, [{ incident_id: 'inc-l4', outcome: 'recovered' }]);
  assert.deepEqual(loop.rag.log, ['undo fix_a', 'execute fix_a']);
  const after = await actionOf(loop, 'inc-l4');
  assert.equal(after.status, 'succeeded');
  assert.equal(after.resumes, 1);
});

test('the sweep leaves a live lease, and a repair held for a human, alone', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }] });
  await leftByDeadReplica(loop, 'inc-l5', Date.now() + 60_000);
  // Held after an inconclusive verification: applied, neither verified nor undone, its lease set aside.
  await leftByDeadReplica(loop, 'inc-l6', Date.now() - 1);
  const held = await actionOf(loop, 'inc-l6');
  await loop.deps.actions.update((await loop.deps.actions.get(held.key))!, { hold_reason: 'verification inconclusive; held for a human' });
  assert.deepEqual(await sweepOf(loop, 'replica-b').sweep(), []);
  assert.deepEqual(loop.rag.log, []);
});

test('the sweep runs periodically once started, and stops', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }] });
  const sweep = sweepOf(loop, 'replica-b');
  sweep.start(20);
  await leftByDeadReplica(loop, 'inc-l7');
  await until('the sweep to resume the action', async () => (await actionOf(loop, 'inc-l7')).status === 'succeeded');
  await sweep.stop();
  assert.deepEqual(loop.rag.log, ['undo fix_a', 'execute fix_a']);
});

test('drain: a repair still running at the end of the grace is given up (lease expired, execute cancelled) and another replica resumes it', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }] });
  loop.rag.hangExecutes = 1;
  const running = loop.effector.process(report('inc-l8'));
  await until('the execute to be under way', () => loop.rag.hanging === 1);
  const given = await drainRepairs({
    idle: () => loop.effector.idle(),
    leases: () => loop.deps.actions.heldLeases(),
    graceMs: 20,
    settleMs: 5_000,
    logger: loop.deps.logger,
  });
  const doc = await actionOf(loop, 'inc-l8');
  assert.deepEqual(given, [doc.key]);
  assert.equal(await running, 'contended');
  assert.deepEqual(loop.rag.log, ['execute fix_a', 'execute fix_a aborted'], 'nothing undone by the draining replica');
  assert.equal(doc.status, 'started');
  assert.equal(doc.lease_until, 0, 'its lease is expired at once');
  assert.deepEqual(await sweepOf(loop, 'replica-b').sweep(), [{ incident_id: 'inc-l8', outcome: 'recovered' }]);
  assert.deepEqual(loop.rag.log.slice(2), ['undo fix_a', 'execute fix_a']);
});

test('drain: a repair that finishes within the grace is left to finish', async () => {
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }] });
  loop.rag.hangExecutes = 1;
  const running = loop.effector.process(report('inc-l9'));
  await until('the execute to be under way', () => loop.rag.hanging === 1);
  const draining = drainRepairs({
    idle: () => loop.effector.idle(),
    leases: () => loop.deps.actions.heldLeases(),
    graceMs: 10_000,
    settleMs: 10,
    logger: loop.deps.logger,
  });
  loop.rag.finishHung();
  assert.deepEqual(await draining, []);
  assert.equal(await running, 'recovered');
});

test('config: a lease too short to be renewed in time refuses to start naming EFFECTOR_LEASE_MS; the shipped settings pass', () => {
  const base = {
    EFFECTOR_API_TOKEN: 'a-token-of-16-chars-or-more',
    EFFECTOR_ONLINE_RAG_URL: 'http://127.0.0.1:18400',
    EFFECTOR_BASELINE_RAG_URL: 'http://127.0.0.1:18401',
    EFFECTOR_QDRANT_COLLECTION: 'kb',
  };
  assert.throws(
    () => effectorConfigFromEnv({ ...base, EFFECTOR_LEASE_MS: '30000' }),
    (error: unknown) => error instanceof WorkerConfigError && error.issues.some((i) => i.key === 'EFFECTOR_LEASE_MS'),
  );
  const defaults = effectorConfigFromEnv(base);
  assert.equal(defaults.EFFECTOR_RECOVERY_SWEEP_SECONDS, 60);
  assert.equal(defaults.EFFECTOR_DRAIN_SECONDS, 20);
  // the test kit's loop's effector (60 s lease, default execute and verify budgets) and the integration harness's.
  assert.equal(effectorConfigFromEnv({ ...base, EFFECTOR_LEASE_MS: '60000' }).EFFECTOR_LEASE_MS, 60_000);
  assert.ok(effectorConfigFromEnv({ ...base, EFFECTOR_VERIFY_TIMEOUT_MS: '90000' }));
  // A shorter Elasticsearch timeout allows a shorter lease (the real-stack chaos test's 15 s with 4 s) ...
  assert.equal(
    effectorConfigFromEnv({ ...base, EFFECTOR_ES_REQUEST_TIMEOUT_MS: '4000', EFFECTOR_LEASE_MS: '15000' }).EFFECTOR_LEASE_MS,
    15_000,
  );
  // ... and a longer one needs a longer lease.
  assert.throws(
    () => effectorConfigFromEnv({ ...base, EFFECTOR_ES_REQUEST_TIMEOUT_MS: '60000', EFFECTOR_LEASE_MS: '60000' }),
    (error: unknown) => error instanceof WorkerConfigError && error.issues.some((i) => i.key === 'EFFECTOR_LEASE_MS'),
  );
});

test('stalled: a step of the current plan nobody carries on; not one of a superseded revision, a live claim, or one moved on just now', () => {
  const now = Date.now();
  const tool = { name: 'fix_a', version: '1', intent: 'rebuild_index_incremental' as const, reversible: true };
  const old = new Date(now - 61_000).toISOString();
  const planned = { ...newActionDoc(report('inc-st', { report_revision: 2 }), tool, 0), updated_at: old };
  const incident = { latest_revision: 2 };
  assert.equal(stalled(planned, incident, now, 60_000), true, 'unclaimed, untouched for a lease');
  assert.equal(stalled({ ...planned, updated_at: new Date(now - 1000).toISOString() }, incident, now, 60_000), false);
  assert.equal(stalled(planned, { latest_revision: 3 }, now, 60_000), false, 'superseded by a later revision');
  assert.equal(stalled({ ...planned, owner: 'b', lease_until: now + 1000 }, incident, now, 60_000), false, 'claim still live');
  assert.equal(stalled({ ...planned, owner: 'b', lease_until: now - 1 }, incident, now, 60_000), true, 'claim ran out');
  const succeeded = { ...planned, status: 'succeeded' as const };
  assert.equal(stalled(succeeded, incident, now, 60_000), true, 'verified, event lost');
  // Not while another action of the incident is unfinished (another cause's repair), nor a partial recovery (the plan goes on).
  const other = { ...planned, key: 'inc-st:r2:fix_b', status: 'started' as const };
  assert.equal(stalled(succeeded, incident, now, 60_000, [succeeded, other]), false);
  assert.equal(stalled(succeeded, incident, now, 60_000, [succeeded, { ...other, status: 'rolled_back' }]), true);
  const partial = { ...succeeded, verification: { ...(succeeded.verification ?? {}), outcome: 'partial' } } as ActionDoc;
  assert.equal(stalled(partial, incident, now, 60_000), false);
  assert.equal(stalled({ ...planned, status: 'failed' }, incident, now, 60_000), false);
});
