/**
 * Repairs are bounded (issue 29): at most EFFECTOR_MAX_CONCURRENT_REPAIRS at once per process, the
 * others waiting in order; the component rate limit is an atomic claim (create-only or
 * compare-and-set slots on the Elasticsearch twin), so two replicas cannot both start past it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { exampleProbeResult } from '@rag-immune/contracts';
import { memoryStores } from '@rag-immune/es-store';
import {
  ComponentRateClaims,
  RecoveryVerifier,
  RepairBacklogFullError,
  RepairSlots,
  defineTool,
  effectorConfigFromEnv,
  effectorIndices,
  type RepairTool,
} from '../../src/index.ts';
import { report, startLoop } from './support/loop-fixture.ts';

/** A repair tool whose execute waits until the test lets it finish; `running` says which are executing. */
function gatedTool(name: string, options: { preconditions?: () => Promise<void> } = {}) {
  const running = new Set<string>();
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const tool = defineTool({
    name,
    version: '1',
    intent: 'rebuild_index_incremental',
    description: `gated ${name}`,
    input: z.object({ target: z.string() }).strict(),
    touchesQdrant: false,
    reversible: true,
    plan: async () => ({ target: 'rag' }),
    preconditions: async () => {
      await options.preconditions?.();
    },
    capture: async () => ({}),
    async execute(ctx) {
      const incident = ctx.report.incident_id;
      running.add(incident);
      started.push(incident);
      await new Promise<void>((resolve) => gates.set(incident, resolve));
      running.delete(incident);
      return { detail: {} };
    },
    verify: async () => null,
    undo: async () => {},
    describeUndo: () => [],
  }) as unknown as RepairTool;
  const until = async (what: () => boolean) => {
    for (let i = 0; i < 500 && !what(); i += 1) await new Promise((resolve) => setTimeout(resolve, 2));
    assert.ok(what(), 'reached in time');
  };
  return { tool, running, started, finish: (incident: string) => gates.get(incident)?.(), until };
}

test('at most EFFECTOR_MAX_CONCURRENT_REPAIRS repairs run at once; the others wait and start in the order they came', async () => {
  const gated = gatedTool('slow_fix');
  const loop = await startLoop({ tools: [], realTools: [gated.tool], maxConcurrentRepairs: 2 });
  // An incident's probes answer well once its repair has executed: sick before (a repair of healthy probes is not run).
  loop.rag.healthyIncident = (id) => gated.started.includes(id) && !gated.running.has(id);
  const incidents = ['inc-b1', 'inc-b2', 'inc-b3', 'inc-b4'];
  const outcomes = incidents.map((id) => loop.effector.process(report(id)));
  await gated.until(() => gated.running.size === 2);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual([...gated.running], ['inc-b1', 'inc-b2'], 'two at once, the first two');
  gated.finish('inc-b2');
  await gated.until(() => gated.running.has('inc-b3'));
  assert.equal(gated.running.size, 2);
  gated.finish('inc-b1');
  await gated.until(() => gated.running.has('inc-b4'));
  gated.finish('inc-b3');
  gated.finish('inc-b4');
  assert.deepEqual(await Promise.all(outcomes), ['recovered', 'recovered', 'recovered', 'recovered']);
  assert.deepEqual(gated.started, incidents, 'in arrival order');
});

test('RepairSlots: a FIFO semaphore; a failing repair frees its slot', async () => {
  const slots = new RepairSlots(1);
  const order: string[] = [];
  const first = slots.run(async () => {
    await new Promise((resolve) => setTimeout(resolve, 5));
    order.push('a');
    throw new Error('a broke');
  });
  const second = slots.run(async () => void order.push('b'));
  const third = slots.run(async () => void order.push('c'));
  assert.deepEqual(slots.load, { running: 1, waiting: 2 });
  await assert.rejects(first, /a broke/);
  await Promise.all([second, third]);
  assert.deepEqual(order, ['a', 'b', 'c']);
  assert.deepEqual(slots.load, { running: 0, waiting: 0 });
  assert.throws(() => new RepairSlots(0), RangeError);
});

test('two replicas racing past the component rate limit: one repair starts, the other is escalated by the breaker', async () => {
  // Both replicas read the count (0 started) before either starts: the barrier holds the first in its
  // preconditions until the second arrives (or 300 ms pass), as a slow precondition would.
  let arrived = 0;
  let open: () => void = () => undefined;
  const barrier = new Promise<void>((resolve) => (open = resolve));
  const gated = gatedTool('slow_fix', {
    preconditions: async () => {
      arrived += 1;
      if (arrived >= 2) open();
      await Promise.race([barrier, new Promise((resolve) => setTimeout(resolve, 300))]);
    },
  });
  const loop = await startLoop({ tools: [], realTools: [gated.tool], componentRateLimit: 1 });
  loop.rag.healthyIncident = (id) => gated.started.includes(id) && !gated.running.has(id);
  const other = loop.replica('replica-b');
  const outcomes = Promise.all([loop.effector.process(report('inc-q1')), other.process(report('inc-q2'))]);
  await gated.until(() => gated.started.length >= 1);
  await new Promise((resolve) => setTimeout(resolve, 350));
  for (const id of gated.started) gated.finish(id);
  const [a, b] = await outcomes;
  assert.equal(gated.started.length, 1, `one repair started, not ${gated.started.join(' and ')}`);
  assert.deepEqual([a, b].sort(), ['escalated', 'recovered']);
  const escalated = loop.events.find((e) => e.status === 'escalated');
  assert.equal(escalated?.arguments.escalation, 'component_rate_limit');
});

test('rate claims: at most `limit` in a window whatever the concurrency; a claim is idempotent per action, expires with the window, and is released', async () => {
  const claims = new ComponentRateClaims(memoryStores(), 'unit-repair-rate-claims');
  await claims.init();
  const request = (actionKey: string, now = 1_000_000) => ({
    component: 'vector_index',
    actionKey,
    owner: 'r',
    limit: 3,
    windowMs: 60_000,
    now,
  });
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => claims.claim(request(`inc-${i}:r1:fix`))));
  assert.equal(results.filter((r) => r.claimed).length, 3);
  assert.deepEqual(
    results.find((r) => !r.claimed),
    { claimed: false, active: 3 },
  );
  assert.deepEqual(await claims.claim(request('inc-0:r1:fix')), { claimed: true, slot: 0 }, 'a resumed repair keeps its claim');
  assert.equal((await claims.claim(request('inc-9:r1:fix'))).claimed, false);
  assert.equal(
    (await claims.claim(request('inc-9:r1:fix', 1_000_000 + 60_001))).claimed,
    true,
    'a slot whose claim left the window is taken over',
  );
  assert.equal(await claims.release({ component: 'vector_index', actionKey: 'inc-1:r1:fix', limit: 3 }), true);
  assert.equal((await claims.claim(request('inc-10:r1:fix'))).claimed, true, 'a released slot is free');
  assert.equal((await claims.claim({ ...request('inc-11:r1:fix'), component: 'reranker' })).claimed, true, 'per component');
});

test('a repair that never started (a precondition refused it) gives its rate-limit slot back', async () => {
  const loop = await startLoop({
    tools: [],
    realTools: [
      gatedTool('refused_fix', {
        preconditions: async () => {
          throw new Error('not applicable');
        },
      }).tool,
    ],
    componentRateLimit: 1,
  });
  assert.equal(await loop.effector.process(report('inc-p1')), 'escalated');
  assert.equal(loop.events.find((e) => e.status === 'escalated')?.arguments.escalation, 'policy', 'not the rate limit');
  assert.equal(await loop.effector.process(report('inc-p2')), 'escalated');
  assert.equal(loop.events.filter((e) => e.status === 'escalated').at(-1)?.arguments.escalation, 'policy', 'the slot was given back');
});

test('verification runs at most its concurrency of probes at once, results in the probes’ order', async () => {
  let running = 0;
  let most = 0;
  const runner = {
    async run(probe: { id: string }) {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running -= 1;
      return { ...exampleProbeResult(probe.id), anomaly: false };
    },
  };
  const probes = Array.from({ length: 20 }, (_, i) => ({ probe_id: `q-${i}`, probe_version: 1, query: `question ${i}` }));
  const measured = await new RecoveryVerifier(runner as never, 5_000, 3).measure(report('inc-v1', { affected_probes: probes }));
  assert.equal(most, 3);
  assert.deepEqual(
    measured.results.map((r) => r.probe_id),
    probes.map((p) => p.probe_id),
  );
});

test('the bounds and the identifier are configured from the environment', () => {
  const base = {
    EFFECTOR_ONLINE_RAG_URL: 'http://127.0.0.1:1',
    EFFECTOR_BASELINE_RAG_URL: 'http://127.0.0.1:2',
    EFFECTOR_QDRANT_COLLECTION: 'c',
  };
  const defaults = effectorConfigFromEnv({ ...base, EFFECTOR_API_TOKEN: 'effector-token-0123456789' });
  assert.equal(defaults.EFFECTOR_IDENTIFIER_URL, undefined);
  assert.equal(defaults.EFFECTOR_MAX_AFFECTED_PROBES, 200);
  assert.equal(defaults.EFFECTOR_MAX_CONCURRENT_REPAIRS, 2);
  assert.equal(defaults.EFFECTOR_VERIFY_CONCURRENCY, 8);
  const set = effectorConfigFromEnv({
    ...base,
    EFFECTOR_API_TOKEN: 'effector-token-0123456789',
    EFFECTOR_IDENTIFIER_URL: 'http://identifier:9465',
    EFFECTOR_IDENTIFIER_TOKEN: 'identifier-token-0123456789',
    EFFECTOR_MAX_CONCURRENT_REPAIRS: '4',
  });
  assert.equal(set.EFFECTOR_IDENTIFIER_URL, 'http://identifier:9465');
  assert.equal(set.EFFECTOR_MAX_CONCURRENT_REPAIRS, 4);
  assert.equal(effectorIndices('p').rateClaims, 'p-repair-rate-claims');
  assert.throws(() =>
    effectorConfigFromEnv({ ...base, EFFECTOR_API_TOKEN: 'effector-token-0123456789', EFFECTOR_MAX_CONCURRENT_REPAIRS: '0' }),
  );
});

test('RepairSlots: with every slot taken and the waiting line full, one more is refused at once and counted', async () => {
  let refused = 0;
  const slots = new RepairSlots(1, undefined, 1, () => (refused += 1));
  let release!: () => void;
  const first = slots.run(() => new Promise<void>((resolve) => (release = resolve)));
  const second = slots.run(async () => 'b');
  assert.equal(slots.full, true);
  await assert.rejects(
    slots.run(async () => 'c'),
    (error: unknown) => error instanceof RepairBacklogFullError && error.bound === 'waiting',
  );
  assert.equal(refused, 1);
  assert.deepEqual(slots.load, { running: 1, waiting: 1 });
  release();
  await first;
  assert.equal(await second, 'b');
  assert.equal(slots.full, false);
});

test('the backlog is bounded: past the incidents in hand, the runs per incident or the waiting line, a report is left in Kafka (the delivery throws), counted', async () => {
  const gated = gatedTool('slow_fix');
  const loop = await startLoop({
    tools: [],
    realTools: [gated.tool],
    maxConcurrentRepairs: 1,
    backlog: { maxIncidents: 3, maxPerIncident: 2, maxWaiting: 1 },
  });
  loop.rag.healthyIncident = (id) => gated.started.includes(id) && !gated.running.has(id);
  const accept = (id: string, revision = 1) => loop.effector.accept(report(id, { report_revision: revision }), undefined as never);
  const refusals = async () =>
    Object.fromEntries((await loop.deps.metrics.repairBacklogRefused.get()).values.map((v) => [v.labels.bound, v.value]));
  await accept('inc-q1');
  await gated.until(() => gated.running.has('inc-q1'));
  await accept('inc-q2'); // waits for the slot: the waiting line (1) is full now
  for (let i = 0; i < 500 && (await loop.deps.metrics.repairsWaiting.get()).values[0]?.value !== 1; i += 1)
    await new Promise((resolve) => setTimeout(resolve, 2));
  await assert.rejects(accept('inc-q3'), (error: unknown) => error instanceof RepairBacklogFullError && error.bound === 'waiting');
  // A second run of an incident in hand queues behind its first (its chain), not in the slots' line; a third is refused.
  await accept('inc-q1', 2);
  await assert.rejects(accept('inc-q1', 3), (error: unknown) => error instanceof RepairBacklogFullError && error.bound === 'per_incident');
  assert.deepEqual(await refusals(), { waiting: 1, per_incident: 1 });
  assert.equal(await loop.deps.incidents.get('inc-q3'), null, 'a refused report is not recorded: it stays in Kafka');
  gated.finish('inc-q1');
  await gated.until(() => gated.running.has('inc-q2'));
  gated.finish('inc-q2');
  await loop.effector.idle();
  // Drained: the report left in Kafka is taken on its redelivery.
  await accept('inc-q3');
  await gated.until(() => gated.running.has('inc-q3'));
  gated.finish('inc-q3');
  await loop.effector.idle();
  assert.ok(gated.started.includes('inc-q3'));

  // Incidents in hand: a fourth incident while three have work queued or running.
  const held = gatedTool('held_fix');
  const crowded = await startLoop({
    tools: [],
    realTools: [held.tool],
    maxConcurrentRepairs: 3,
    backlog: { maxIncidents: 3, maxPerIncident: 2, maxWaiting: 5 },
  });
  crowded.rag.healthyIncident = (id) => held.started.includes(id) && !held.running.has(id);
  for (const id of ['inc-r1', 'inc-r2', 'inc-r3']) await crowded.effector.accept(report(id), undefined as never);
  await assert.rejects(
    crowded.effector.accept(report('inc-r4'), undefined as never),
    (error: unknown) => error instanceof RepairBacklogFullError && error.bound === 'incidents',
  );
  await held.until(() => held.running.size === 3);
  for (const id of ['inc-r1', 'inc-r2', 'inc-r3']) held.finish(id);
  await crowded.effector.idle();
});
