import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Registry } from 'prom-client';
import { exampleProbeResult, type ProbeResult } from '@rag-immune/contracts';
import type { GoldenProbe } from '@rag-immune/probing';
import { DriftMonitor } from '../../../src/traffic/drift-monitor.ts';
import { SegmentResolver } from '../../../src/traffic/segment-resolver.ts';
import { ShadowReplay } from '../../../src/traffic/shadow-replay.ts';
import { citationCheck } from '../../../src/traffic/signals/citation-check.ts';
import { retrievalHealth } from '../../../src/traffic/signals/retrieval-health.ts';
import { TrafficMetrics } from '../../../src/traffic/traffic-metrics.ts';
import { TrafficWatcher } from '../../../src/traffic/traffic-watcher.ts';
import { PromotedReplays } from '../../../src/traffic/promoted-replays.ts';
import type { UserAnswer } from '../../../src/traffic/user-answer.ts';
import { userAnswer } from './user-answer-fixture.ts';

const QUESTIONS: Record<string, string[]> = {
  'pkg-a': ['what does alpha do', 'alpha configuration file'],
  'pkg-b': ['bravo maintainer email jane@example.org', 'bravo release notes'],
  'pkg-c': ['charlie dependencies', 'charlie license terms'],
};

/** Users asking about three packages; after `faultAt` answers, questions about pkg-b retrieve pkg-c. */
function traffic(faultAt: number) {
  let served = 0;
  return {
    poll() {
      const answers: UserAnswer[] = [];
      for (let i = 0; i < 30; i++) {
        const segment = Object.keys(QUESTIONS)[served % 3]!;
        const query = QUESTIONS[segment]![Math.floor(served / 3) % 2]!;
        const faulty = segment === 'pkg-b' && served >= faultAt;
        answers.push(userAnswer({ knowledgeId: faulty ? 'pkg-c' : segment, score: faulty ? 0.5 : 0.8, query }));
        served++;
      }
      return Promise.resolve({ answers, skipped: 0, unreadable: 0 });
    },
  };
}

function setup(anomalous: boolean) {
  const registry = new Registry();
  const metrics = new TrafficMetrics(registry);
  const published: ProbeResult[] = [];
  const ran: GoldenProbe[] = [];
  const runner = {
    run(probe: GoldenProbe) {
      ran.push(probe);
      return Promise.resolve({ ...exampleProbeResult(probe.id), query: probe.query, anomaly: anomalous });
    },
  };
  let logs = '';
  const logger = pino(
    { level: 'debug' },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        logs += chunk.toString();
        done();
      },
    }),
  );
  const monitor = new DriftMonitor({
    profileAnswers: 20,
    priorWeight: 20,
    minCleanRate: 0.005,
    confidenceZ: 1.645,
    shift: 0.3,
    answersPerDay: 100_000,
    alarmsPerDay: 1,
    cooldownMs: 600_000,
  });
  const replay = new ShadowReplay(
    runner,
    (r) => (published.push(r), Promise.resolve()),
    { perSegment: 3, perIncident: 10, incidentWindowMs: 3_600_000, perHour: 60 },
    0.5,
  );
  const watcher = new TrafficWatcher(
    traffic(150),
    [retrievalHealth({ scoreDropRatio: 0.8 }), citationCheck()],
    monitor,
    new SegmentResolver(),
    replay,
    metrics,
    { pollMs: 10, scoreDropRatio: 0.8, queriesKept: 10 },
    logger,
    new PromotedReplays(runner, (r) => (published.push(r), Promise.resolve()), {
      intervalMs: 0,
      cleanRoundsToExpire: 2,
      ttlMs: 3_600_000,
      maxProbes: 10,
    }),
  );
  return { watcher, published, ran, registry, logs: () => logs };
}

const metric = async (registry: Registry, name: string) =>
  ((await registry.getSingleMetric(name)?.get())?.values ?? []).reduce((sum, v) => sum + v.value, 0);

test('a segment whose queries stop retrieving their knowledge is flagged, confirmed by replay and published as traffic ProbeResults', async () => {
  const { watcher, published, ran, registry, logs } = setup(true);
  for (let i = 0; i < 5; i++) await watcher.tick();
  assert.equal(published.length, 0, 'nothing before the fault');
  for (let i = 0; i < 5; i++) await watcher.tick();
  await watcher.settled();
  assert.equal(await metric(registry, 'rag_immune_traffic_segments_flagged_total'), 1);
  assert.equal(await metric(registry, 'rag_immune_traffic_segments_confirmed_total'), 1);
  assert.equal(await metric(registry, 'rag_immune_traffic_segments_relearned_total'), 0);
  // pkg-b's own queries only; one of its two reaches the bar (half), so the replay stops there.
  assert.ok(ran.length >= 1 && ran.every((p) => QUESTIONS['pkg-b']!.includes(p.query)), 'only the flagged segment is replayed');
  assert.ok(published.length > 0 && published.every((r) => r.origin === 'traffic' && r.segment === 'pkg-b'));
  assert.equal(await metric(registry, 'rag_immune_traffic_answers_read_total'), 300);
  // The confirmed replays are promoted: later polls re-run and publish them again.
  await watcher.tick();
  await watcher.settled();
  const confirmedIds = watcher.outcomes[0]!.published;
  assert.ok(confirmedIds.length > 0);
  for (const id of confirmedIds) assert.ok(published.filter((r) => r.probe_id === id).length >= 2, `${id} re-run after promotion`);
  for (const question of Object.values(QUESTIONS).flat()) assert.ok(!logs().includes(question), 'no user text in the logs');
});

test('a flagged segment the replay does not confirm is counted and publishes nothing', async () => {
  const { watcher, published, registry } = setup(false);
  for (let i = 0; i < 10; i++) await watcher.tick();
  await watcher.settled();
  assert.equal(await metric(registry, 'rag_immune_traffic_segments_flagged_total'), 1);
  assert.equal(await metric(registry, 'rag_immune_traffic_segments_rejected_total'), 1);
  assert.equal(published.length, 0);
  // The rejection re-learned the segment's clean rate from its answers since the profile; a confirmed one does not.
  assert.equal(await metric(registry, 'rag_immune_traffic_segments_relearned_total'), 1);
  assert.equal(watcher.segments().find((s) => s.segment === 'pkg-b')?.relearned, 1);
});
