import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleProbeResult, type ProbeResult } from '@rag-immune/contracts';
import type { GoldenProbe } from '@rag-immune/probing';
import { PromotedReplays } from '../../../src/traffic/promoted-replays.ts';
import type { PromotedStore, StoredPromotion } from '../../../src/traffic/promoted-store.ts';
import { replayProbeId } from '../../../src/traffic/shadow-replay.ts';

function confirmed(segment: string, query: string): ProbeResult {
  return { ...exampleProbeResult(replayProbeId(segment, query)), query, origin: 'traffic', segment };
}

/** A RAG that stays broken: every promoted probe is anomalous. */
const alwaysAnomalous = {
  run: (probe: GoldenProbe) => Promise.resolve({ ...exampleProbeResult(probe.id), anomaly: true }),
};

test('promoted replays are re-run and published until clean for the rounds the incident needs, then expire', async () => {
  let now = 0;
  let healthy = false;
  const ran: GoldenProbe[] = [];
  const published: ProbeResult[] = [];
  const runner = {
    run(probe: GoldenProbe) {
      ran.push(probe);
      return Promise.resolve({ ...exampleProbeResult(probe.id), query: probe.query, anomaly: !healthy });
    },
  };
  const promoted = new PromotedReplays(
    runner,
    (r) => (published.push(r), Promise.resolve()),
    {
      intervalMs: 1000,
      cleanRoundsToExpire: 2,
      ttlMs: 3_600_000,
      maxProbes: 10,
    },
    () => now,
  );
  promoted.promote('pkg-zlib', [confirmed('pkg-zlib', 'what does zlib do'), confirmed('pkg-zlib', 'zlib license')]);
  assert.equal((await promoted.runDue()).ran, 0, 'not due before one interval');
  now += 1000;
  assert.deepEqual(await promoted.runDue(), { ran: 2, anomalous: 2, expired: [], healedSegments: [] });
  assert.deepEqual(
    ran.map((p) => p.query),
    ['what does zlib do', 'zlib license'],
  );
  assert.ok(published.every((r) => r.origin === 'traffic' && r.segment === 'pkg-zlib'));
  healthy = true;
  now += 1000;
  assert.deepEqual((await promoted.runDue()).expired, []);
  now += 1000;
  const last = await promoted.runDue();
  assert.equal(last.expired.length, 2);
  assert.deepEqual(last.healedSegments, ['pkg-zlib'], 'its last promoted probe expired clean: the incident is over');
  assert.deepEqual(promoted.probeIds(), []);
  assert.equal(published.filter((r) => !r.anomaly).length, 4, 'the clean results are published too: they close the incident');
});

test('a promoted probe expires after its lifetime even if never clean', async () => {
  let now = 0;
  const promoted = new PromotedReplays(
    alwaysAnomalous,
    () => Promise.resolve(),
    { intervalMs: 1000, cleanRoundsToExpire: 2, ttlMs: 5000, maxProbes: 10 },
    () => now,
  );
  promoted.promote('s', [confirmed('s', 'q')]);
  now = 5000;
  const run = await promoted.runDue();
  assert.deepEqual(run.expired, [replayProbeId('s', 'q')]);
  assert.deepEqual(run.healedSegments, [], 'expired by age, never clean: not healed');
});

test('a segment is healed only when its last promoted probe expires clean', async () => {
  let now = 0;
  const anomalousQueries = new Set(['still bad']);
  const runner = {
    run: (probe: GoldenProbe) => Promise.resolve({ ...exampleProbeResult(probe.id), anomaly: anomalousQueries.has(probe.query) }),
  };
  const promoted = new PromotedReplays(
    runner,
    () => Promise.resolve(),
    { intervalMs: 1000, cleanRoundsToExpire: 1, ttlMs: 3_600_000, maxProbes: 10 },
    () => now,
  );
  promoted.promote('s', [confirmed('s', 'fine now'), confirmed('s', 'still bad')]);
  now = 1000;
  const first = await promoted.runDue();
  assert.deepEqual(first.expired, [replayProbeId('s', 'fine now')]);
  assert.deepEqual(first.healedSegments, [], 'another of its probes is still anomalous');
  anomalousQueries.clear();
  now = 2000;
  assert.deepEqual((await promoted.runDue()).healedSegments, ['s']);
});

/** The store's contract in memory (the Elasticsearch one is tested on the real server). */
class MemoryStore implements PromotedStore {
  readonly entries = new Map<string, StoredPromotion>();
  put(entry: StoredPromotion) {
    this.entries.set(entry.probe_id, entry);
    return Promise.resolve();
  }
  remove(probeId: string) {
    this.entries.delete(probeId);
    return Promise.resolve();
  }
  load(now: number, ttlMs: number) {
    for (const [id, e] of this.entries) if (e.promoted_at < now - ttlMs) this.entries.delete(id);
    return Promise.resolve([...this.entries.values()]);
  }
}

test('promotions outlive a restart: a new process restores them from the store, runs them at once, and removes them when they expire', async () => {
  let now = 10_000;
  let healthy = false;
  const published: ProbeResult[] = [];
  const runner = {
    run: (probe: GoldenProbe) => Promise.resolve({ ...exampleProbeResult(probe.id), query: probe.query, anomaly: !healthy }),
  };
  const options = { intervalMs: 1000, cleanRoundsToExpire: 2, ttlMs: 60_000, maxProbes: 10 };
  const store = new MemoryStore();
  const before = new PromotedReplays(
    runner,
    () => Promise.resolve(),
    options,
    () => now,
    store,
  );
  before.promote('pkg-zlib', [confirmed('pkg-zlib', 'what does zlib do')]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    [...store.entries.values()].map((e) => [e.segment, e.query]),
    [['pkg-zlib', 'what does zlib do']],
  );

  // The sentinel restarts: the promotion is due at once in the new process, under its segment.
  now += 200;
  const after = new PromotedReplays(
    runner,
    (r) => (published.push(r), Promise.resolve()),
    options,
    () => now,
    store,
  );
  const first = await after.runDue();
  assert.deepEqual([first.ran, first.anomalous], [1, 1]);
  assert.deepEqual(
    published.map((r) => [r.probe_id, r.segment, r.query]),
    [[replayProbeId('pkg-zlib', 'what does zlib do'), 'pkg-zlib', 'what does zlib do']],
  );
  healthy = true;
  now += 1000;
  await after.runDue();
  now += 1000;
  const last = await after.runDue();
  assert.deepEqual(last.healedSegments, ['pkg-zlib']);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(store.entries.size, 0, 'expired: gone from the store');

  // One older than its lifetime is not restored.
  await store.put({ probe_id: 'traffic-old', segment: 'pkg-old', query: 'old', promoted_at: now - 120_000 });
  const later = new PromotedReplays(
    runner,
    () => Promise.resolve(),
    options,
    () => now,
    store,
  );
  assert.equal((await later.runDue()).ran, 0);
  assert.equal(store.entries.size, 0);
});

test('a store that fails loses nothing in memory: the promotion runs, the failure is reported', async () => {
  const errors: unknown[] = [];
  const broken: PromotedStore = {
    put: () => Promise.reject(new Error('es down')),
    remove: () => Promise.reject(new Error('es down')),
    load: () => Promise.reject(new Error('es down')),
  };
  let now = 0;
  const promoted = new PromotedReplays(
    alwaysAnomalous,
    () => Promise.resolve(),
    { intervalMs: 1000, cleanRoundsToExpire: 2, ttlMs: 60_000, maxProbes: 10 },
    () => now,
    broken,
    (e) => errors.push(e),
  );
  promoted.promote('pkg-zlib', [confirmed('pkg-zlib', 'zlib license')]);
  now += 1000;
  assert.equal((await promoted.runDue()).ran, 1);
  assert.ok(errors.length >= 2, 'the put and the load reported');
});
