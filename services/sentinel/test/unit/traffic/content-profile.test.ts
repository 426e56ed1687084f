import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { exampleProbeResult } from '@rag-immune/contracts';
import { DriftMonitor } from '../../../src/traffic/drift-monitor.ts';
import { SegmentResolver } from '../../../src/traffic/segment-resolver.ts';
import { ShadowReplay } from '../../../src/traffic/shadow-replay.ts';
import { ContentProfile, contentKey, keyFacts } from '../../../src/traffic/signals/content-profile.ts';
import { TrafficMetrics } from '../../../src/traffic/traffic-metrics.ts';
import { TrafficWatcher } from '../../../src/traffic/traffic-watcher.ts';
import type { UserAnswer } from '../../../src/traffic/user-answer.ts';
import { userAnswer } from './user-answer-fixture.ts';

const SEGMENT = { segment: 'pkg-openssl' };
const QUESTIONS = ['which version of openssl is packaged?', 'who maintains openssl?', 'what does openssl depend on?'];

/** A clean answer to question i (the same context and fact every time it is asked). */
function clean(i: number, query = QUESTIONS[i]!): UserAnswer {
  const facts = ['3.0.2', 'Jane Roe', 'libc6 2.36'];
  return userAnswer({
    query,
    answer: `openssl: ${facts[i]}.`,
    context: [
      { ...userAnswer().trace.context[0]!, chunk_id: `pkg-openssl#${i}`, text: `openssl field ${i}: ${facts[i]}` },
      { ...userAnswer({ knowledgeId: 'pkg-other' }).trace.context[0]!, text: `neighbour ${i}` },
    ],
  });
}

function profile() {
  const signal = new ContentProfile({ novelShare: 0.5 });
  return signal;
}

async function learnClean(signal: ContentProfile) {
  for (let round = 0; round < 3; round++) for (let i = 0; i < QUESTIONS.length; i++) await signal.read(clean(i), SEGMENT);
}

test('key facts: versions, numbers and names the answer brings, not the query words nor the sentence opener', () => {
  assert.deepEqual(keyFacts('Openssl 3.0.2 is maintained by Jane Roe since 2021.', 'which version of openssl 3.0.2?').sort(), [
    '2021',
    'jane',
    'roe',
  ]);
  assert.deepEqual(keyFacts('It has no evidence.', 'q'), []);
});

test('clean traffic stays quiet: repeated questions and a first-time question (learned, not measured)', async () => {
  const signal = profile();
  assert.equal(await signal.read(clean(0), SEGMENT), null, 'a new cluster is learned, not judged');
  await learnClean(signal);
  const readings = [];
  for (let i = 0; i < 30; i++) readings.push(await signal.read(clean(i % 3), SEGMENT));
  assert.ok(readings.every((r) => r !== null && !r.bad));
  const novelQuestion = userAnswer({ query: 'openssl license terms', answer: 'openssl: Apache 2.0.' });
  assert.equal(await signal.read(novelQuestion, SEGMENT), null);
});

test('a stale or re-parsed version of a known chunk is novel context', async () => {
  const signal = profile();
  await learnClean(signal);
  const stale = clean(0);
  stale.trace.context[0] = { ...stale.trace.context[0]!, version: '1.1.1', text: 'openssl field 0: 3.0.2 (old)' };
  const reading = await signal.read(stale, SEGMENT);
  assert.equal(reading?.bad, true);
  assert.equal(reading?.kind, 'novel_context');
  assert.equal(reading?.decisive, true, "a changed context is the retriever's doing: decisive");
  assert.notEqual(contentKey(stale.trace.context[0]), contentKey(clean(0).trace.context[0]!));
});

test("the segment's chunks gone from a context its cluster was answered from is novel context", async () => {
  const signal = profile();
  await learnClean(signal);
  const zeroed = clean(1);
  zeroed.trace.context = zeroed.trace.context.filter((c) => c.knowledge_id !== 'pkg-openssl');
  assert.equal((await signal.read(zeroed, SEGMENT))?.kind, 'novel_context');
});

test('a different fact from the same context (a swapped generator) is novel facts', async () => {
  const signal = profile();
  await learnClean(signal);
  const swapped = clean(0);
  swapped.trace.answer = 'openssl: 3.0.3.';
  const reading = await signal.read(swapped, SEGMENT);
  assert.equal(reading?.bad, true);
  assert.equal(reading?.kind, 'novel_facts');
  assert.equal(reading?.decisive, false, "novel facts can be the generator's wording alone: not decisive");
});

test('a sampling RAG (facts off): other facts from the same context are its clean spread, a lost chunk is still novel context', async () => {
  const signal = new ContentProfile({ novelShare: 0.5, facts: false });
  await learnClean(signal);
  const sampled = clean(0);
  sampled.trace.answer = 'openssl: 3.0.7, by Jane Doe.';
  assert.equal((await signal.read(sampled, SEGMENT))?.bad, false);
  const zeroed = clean(1);
  zeroed.trace.context = zeroed.trace.context.filter((c) => c.knowledge_id !== 'pkg-openssl');
  assert.equal((await signal.read(zeroed, SEGMENT))?.kind, 'novel_context');
});

test('a persisting fault does not teach itself; a rejected replay teaches it, a confirmed one does not', async () => {
  const signal = profile();
  await learnClean(signal);
  const swapped = () => Object.assign(clean(0), {}, { trace: { ...clean(0).trace, answer: 'openssl: 3.0.3.' } });
  for (let i = 0; i < 5; i++) assert.equal((await signal.read(swapped(), SEGMENT))?.bad, true, `answer ${i} still novel`);
  signal.segmentConfirmed('pkg-openssl');
  assert.equal((await signal.read(swapped(), SEGMENT))?.bad, true, 'a confirmed fault is never learned');
  signal.segmentCleared('pkg-openssl');
  assert.equal((await signal.read(swapped(), SEGMENT))?.bad, false, 'the baseline agreed: now clean');
  assert.equal((await signal.read(clean(0), SEGMENT))?.bad, false, 'the earlier content stays known');
});

test('profiles are per segment: the same wording in another segment is new there', async () => {
  const signal = profile();
  await learnClean(signal);
  assert.equal(await signal.read(clean(0), { segment: 'pkg-other' }), null);
});

test('a bad share is refused', () => {
  assert.throws(() => new ContentProfile({ novelShare: 0 }), /novelShare/);
});

/** The watcher with only the content profile: pkg-b's answers state another fact from `faultAt` polls on. */
function watcherWithContent(anomalous: boolean) {
  let swapped = false;
  const registry = new Registry();
  const source = {
    poll() {
      const answers = ['pkg-a', 'pkg-b', 'pkg-c'].flatMap((k) =>
        ['version', 'maintainer'].map((q) =>
          userAnswer({ knowledgeId: k, query: `${q} of ${k}`, answer: `${k}: ${swapped && k === 'pkg-b' ? '9.9.9' : '3.0.2'} (${q}).` }),
        ),
      );
      return Promise.resolve({ answers, skipped: 0, unreadable: 0 });
    },
  };
  const runner = {
    run: (probe: { id: string; query: string }) =>
      Promise.resolve({ ...exampleProbeResult(probe.id), query: probe.query, anomaly: anomalous }),
  };
  const watcher = new TrafficWatcher(
    source,
    [new ContentProfile({ novelShare: 0.5 })],
    new DriftMonitor({
      profileAnswers: 10,
      priorWeight: 20,
      minCleanRate: 0.005,
      confidenceZ: 1.645,
      shift: 0.3,
      answersPerDay: 100_000,
      alarmsPerDay: 1,
      cooldownMs: 0,
    }),
    new SegmentResolver(),
    new ShadowReplay(runner, () => Promise.resolve(), { perSegment: 2, perIncident: 100, incidentWindowMs: 3_600_000, perHour: 100 }, 0.5),
    new TrafficMetrics(registry),
    { pollMs: 10, scoreDropRatio: 0.8, queriesKept: 10 },
  );
  const count = async (name: string) => ((await registry.getSingleMetric(name)?.get())?.values ?? []).reduce((s, v) => s + v.value, 0);
  const polls = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await watcher.tick();
      await watcher.settled();
    }
  };
  return { polls, count, swap: () => (swapped = true) };
}

test('in the watcher: a changed fact flags its segment; a rejected replay teaches it, a confirmed one keeps flagging', async () => {
  for (const anomalous of [false, true]) {
    const w = watcherWithContent(anomalous);
    await w.polls(20);
    assert.equal(await w.count('rag_immune_traffic_segments_flagged_total'), 0, 'clean repeats: quiet');
    w.swap();
    await w.polls(20);
    const flagged = await w.count('rag_immune_traffic_segments_flagged_total');
    if (anomalous) assert.ok(flagged >= 2, `a confirmed fault is never learned: ${flagged} flags`);
    else assert.equal(flagged, 1, 'the baseline agreed once: the new fact is clean from then on');
  }
});
