/**
 * The probe-set rotation's rules, one test each, with the ports faked and the proposal file real:
 * retire-unmoving, retire-gone-source, add-frequent, add-fragile, skipped during an incident, and a
 * proposal that changes nothing until it is accepted. The builder is faked as one that accepts every
 * candidate attributable to the knowledge it asks about (the real one is in the integration test).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { GoldenProbe, ProbeSetReport, QueryLogEntry } from '@rag-immune/probing';
import { formatProbeFile } from '@rag-immune/probing';
import { ProbeRotation, type RotationRefusal, type RotationOptions, type RotationPorts } from '../../../src/rotation/probe-rotation.ts';
import { ProposalStore } from '../../../src/rotation/proposal.ts';
import { TrafficDigest, type TrafficCluster } from '../../../src/rotation/traffic-digest.ts';
import { querySignature } from '../../../src/traffic/segment-resolver.ts';
import { userAnswer } from '../traffic/user-answer-fixture.ts';

const probe = (id: string, source: string, query = `which version of ${source} is packaged?`): GoldenProbe => ({
  id,
  version: 1,
  query,
  expected_sources: [source],
  business_value: 1,
  cluster: 'head',
  created_at: '2026-01-01T00:00:00Z',
  retired_at: null,
});

const cluster = (knowledge: string, asks: number, weak = 0, query = `what license does ${knowledge} use`): TrafficCluster => ({
  signature: querySignature(query),
  knowledge_id: knowledge,
  query,
  asks,
  weak,
});

const options: RotationOptions = {
  intervalMs: 30 * 86_400_000,
  minRuns: 5,
  unmovingAbove: 0.95,
  maxRetireShare: 0.5,
  minAsks: 3,
  fragileShare: 0.2,
  maxFrequent: 2,
  maxFragile: 2,
};

interface World {
  probes: GoldenProbe[];
  history?: Map<string, number[]>;
  flagged?: Set<string>;
  gone?: Set<string>;
  clusters?: TrafficCluster[] | null;
  incidents?: string[] | null;
}

function setup(world: World) {
  let text = formatProbeFile(world.probes);
  const applied: GoldenProbe[][] = [];
  const vetted: QueryLogEntry[][] = [];
  const ports: RotationPorts = {
    loadCatalog: async () => {
      const probes = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as GoldenProbe);
      return { probes, text, active: probes.filter((p) => p.retired_at === null || p.retired_at === undefined) };
    },
    saveCatalog: async (probes) => {
      text = formatProbeFile(probes);
    },
    applied: (active) => applied.push(active),
    openIncidents: async () => (world.incidents === undefined ? [] : world.incidents),
    history: async () => ({ fcs: world.history ?? new Map(), flaggedSegments: world.flagged ?? new Set() }),
    knowledgeExists: async (id) => !(world.gone ?? new Set()).has(id),
    traffic: async () => (world.clusters === null ? null : { answers: 100, clusters: world.clusters ?? [] }),
    vet: async (candidates, size): Promise<ProbeSetReport> => {
      vetted.push(candidates);
      const accepted = candidates.slice(0, size);
      return {
        probes: accepted.map((c, i) => probe(`${c.query.replaceAll(' ', '-')}-${i + 1}`, /pkg-\w+/.exec(c.query)![0], c.query)),
        verdicts: candidates.map((c, i) => ({
          query: c.query,
          cluster: 'head',
          count: c.count,
          fcs_mean: 0.7,
          fcs_std: 0.05,
          source: null,
          source_share: null,
          accepted: i < size,
          reason: i < size ? 'fragile and attributable' : 'not needed',
        })),
      };
    },
  };
  const store = new ProposalStore(join(mkdtempSync(join(tmpdir(), 'rotation-')), 'proposals.json'));
  const rotation = new ProbeRotation(ports, store, options, undefined, () => new Date('2026-12-06T08:00:00Z'));
  return {
    rotation,
    store,
    vetted,
    applied,
    probeFile: () => text,
    editProbeFile: (next: string) => {
      text = next;
    },
  };
}

const steady = (n: number, fcs = 0.98) => Array.from({ length: n }, () => fcs);

test('retire-unmoving: a probe whose online FCS never left 0.95+ over N runs is proposed for retirement; fewer runs or a moving FCS keep it', async () => {
  const { rotation } = setup({
    probes: [probe('still', 'pkg-a'), probe('moving', 'pkg-b'), probe('young', 'pkg-c'), probe('other', 'pkg-d')],
    history: new Map([
      ['still', steady(6)],
      ['moving', [0.98, 0.6, 0.97, 0.5, 0.9, 0.95]],
      ['young', steady(3)],
    ]),
    clusters: [],
  });
  const { proposal } = await rotation.tick();
  assert.ok(proposal, 'a proposal');
  assert.deepEqual(
    proposal.changes.map((c) => [c.kind, c.rule, c.probe_id]),
    [['retire', 'retire-unmoving', 'still']],
  );
  assert.match(proposal.changes[0]!.reason, /never moved over 6 runs/);
});

test('retire-gone-source: a probe whose expected knowledge the online RAG answers 404 for is proposed for retirement', async () => {
  const { rotation } = setup({
    probes: [probe('gone', 'pkg-removed'), probe('here', 'pkg-kept'), probe('also', 'pkg-x')],
    gone: new Set(['pkg-removed']),
    clusters: [],
  });
  const { proposal } = await rotation.tick();
  assert.deepEqual(
    proposal!.changes.map((c) => [c.rule, c.probe_id]),
    [['retire-gone-source', 'gone']],
  );
  assert.match(proposal!.changes[0]!.reason, /pkg-removed.*404/);
});

test('retire caps: never more than the configured share of the probe set, and not when every source looks gone at once', async () => {
  const many = ['a', 'b', 'c', 'd'].map((x) => probe(x, `pkg-${x}`));
  const capped = await setup({
    probes: many,
    history: new Map(many.map((p) => [p.id, steady(10)])),
    clusters: [],
  }).rotation.tick();
  assert.equal(capped.proposal!.changes.length, 2, 'half of four');
  assert.equal(capped.proposal!.declined.filter((d) => /over the cap/.test(d.reason)).length, 2);
  const allGone = await setup({ probes: many, gone: new Set(many.map((p) => p.expected_sources[0]!)), clusters: [] }).rotation.tick();
  assert.deepEqual(allGone.proposal!.changes, []);
});

test('add-frequent: the most asked clusters whose knowledge no probe covers go through the builder and are proposed with their counts', async () => {
  const { rotation, vetted } = setup({
    probes: [probe('p1', 'pkg-covered')],
    clusters: [
      cluster('pkg-covered', 50),
      cluster('pkg-hot', 40),
      cluster('pkg-warm', 12),
      cluster('pkg-rare', 2),
      cluster('pkg-hot', 30, 0, 'who maintains pkg-hot'),
    ],
  });
  const { proposal } = await rotation.tick();
  assert.deepEqual(
    vetted.map((v) => v.map((e) => [e.query, e.count])),
    [
      [
        ['what license does pkg-hot use', 40],
        ['what license does pkg-warm use', 12],
      ],
    ],
    'covered knowledge, rare clusters and a second cluster of the same knowledge are not candidates',
  );
  assert.deepEqual(
    proposal!.changes.map((c) => [c.kind, c.rule, c.query]),
    [
      ['add', 'add-frequent', 'what license does pkg-hot use'],
      ['add', 'add-frequent', 'what license does pkg-warm use'],
    ],
  );
  assert.match(proposal!.changes[0]!.reason, /asked 40 times; pkg-hot has no probe; builder: fragile and attributable/);
  assert.deepEqual(
    proposal!.changes.map((c) => [c.probe_id, c.probe?.expected_sources]),
    [
      ['what-license-does-pkg-hot-use-r20261206', ['pkg-hot']],
      ['what-license-does-pkg-warm-use-r20261206', ['pkg-warm']],
    ],
  );
});

test('add-fragile: clusters with weak answers, or whose segment the watcher flagged, are proposed as fragile before frequent ones', async () => {
  const { rotation } = setup({
    probes: [probe('p1', 'pkg-covered')],
    flagged: new Set(['pkg-flagged']),
    clusters: [cluster('pkg-popular', 100), cluster('pkg-weak', 10, 5), cluster('pkg-flagged', 4)],
  });
  const { proposal } = await rotation.tick();
  assert.deepEqual(
    proposal!.changes.map((c) => [c.rule, c.query]),
    [
      ['add-fragile', 'what license does pkg-flagged use'],
      ['add-fragile', 'what license does pkg-weak use'],
      ['add-frequent', 'what license does pkg-popular use'],
    ],
  );
  assert.match(proposal!.changes[0]!.reason, /flagged segment pkg-flagged/);
  assert.match(proposal!.changes[1]!.reason, /5 of 10 answers weak/);
});

test('the per-RAG traffic switch: with traffic off, nothing is added and the proposal says traffic was not read', async () => {
  const { rotation, vetted } = setup({ probes: [probe('p1', 'pkg-a')], clusters: null });
  const { proposal } = await rotation.tick();
  assert.equal(proposal!.considered.traffic, 'off');
  assert.equal(vetted.length, 0);
});

test('skipped during an incident: no proposal while one is open or while the identifier cannot say; the skip is recorded', async () => {
  const open = setup({ probes: [probe('p1', 'pkg-a')], history: new Map([['p1', steady(10)]]), incidents: ['inc-0123456789abcdef'] });
  const check = await open.rotation.tick();
  assert.equal(check.outcome, 'skipped-incident');
  assert.deepEqual(await open.store.list(), []);
  assert.equal((await open.store.lastCheck())?.outcome, 'skipped-incident');
  const unknown = setup({ probes: [probe('p1', 'pkg-a')], incidents: null });
  assert.equal((await unknown.rotation.tick(true)).outcome, 'skipped-unknown-incidents');
  assert.deepEqual(await unknown.store.list(), []);
});

test('a proposal changes nothing until accepted; accepting applies it once; reject, stale files and open incidents are refused', async () => {
  const world: World = {
    probes: [probe('still', 'pkg-a'), probe('keep', 'pkg-b')],
    history: new Map([['still', steady(6)]]),
    clusters: [cluster('pkg-new', 9)],
  };
  const { rotation, probeFile, editProbeFile, applied } = setup(world);
  const before = probeFile();
  const { proposal } = await rotation.tick();
  assert.equal(proposal!.state, 'pending');
  assert.equal(probeFile(), before, 'proposed, not applied');
  assert.equal((await rotation.tick()).outcome, 'not-due', 'the next one waits for the interval');

  world.incidents = ['inc-0123456789abcdef'];
  await assert.rejects(rotation.accept(proposal!.proposal_id, 'alice'), (e: RotationRefusal) => e.status === 409);
  assert.equal(probeFile(), before);
  assert.equal(applied.length, 0);
  world.incidents = [];

  const accepted = await rotation.accept(proposal!.proposal_id, 'alice');
  assert.deepEqual(
    applied.at(-1)?.map((p) => p.id),
    ['keep', 'what-license-does-pkg-new-use-r20261206'],
    'the running sentinel is told the new active set',
  );
  assert.equal(accepted.state, 'accepted');
  assert.equal(accepted.decided_by, 'alice');
  const after = probeFile()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as GoldenProbe);
  assert.match(after.find((p) => p.id === 'still')!.retired_at ?? '', /^2026-12-06/);
  assert.match(after.find((p) => p.id === 'still')!.retired_reason ?? '', /never moved/);
  assert.ok(
    after.some((p) => p.query === 'what license does pkg-new use' && p.retired_at === null),
    'the new probe is active',
  );
  await assert.rejects(rotation.accept(proposal!.proposal_id, 'alice'), /accepted, not pending/);

  const second = (await rotation.tick(true)).proposal!;
  assert.equal((await rotation.reject(second.proposal_id, 'bob')).state, 'rejected');
  const third = (await rotation.tick(true)).proposal!;
  // Someone edits the probe file after the proposal: accepting it is refused.
  editProbeFile(probeFile().replace('"business_value":1', '"business_value":0.5'));
  await assert.rejects(rotation.accept(third.proposal_id, 'alice'), /probe file changed/);
  await assert.rejects(rotation.accept('rot-nope-000000', 'alice'), (e: RotationRefusal) => e.status === 404);
});

test('the traffic digest counts asks and weak answers per query cluster, keeping the wording users typed most', () => {
  const digest = new TrafficDigest(0.3);
  const ask = (query: string, score: number, knowledgeId = 'pkg-zlib') => digest.add(userAnswer({ query, score, knowledgeId }));
  ask('what license does zlib use', 0.8);
  ask('What license does zlib use', 0.1);
  ask('what license does zlib use', 0.9);
  ask('who maintains curl', 0.7, 'pkg-curl');
  const clusters = digest.clusters().sort((a, b) => b.asks - a.asks);
  assert.equal(digest.answers, 4);
  assert.deepEqual(
    clusters.map((c) => [c.query, c.knowledge_id, c.asks, c.weak]),
    [
      ['what license does zlib use', 'pkg-zlib', 3, 1],
      ['who maintains curl', 'pkg-curl', 1, 0],
    ],
  );
});
