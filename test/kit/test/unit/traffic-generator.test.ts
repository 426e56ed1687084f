/**
 * Simulated users: popularity follows the configured Zipf law over the question bank, rewordings,
 * out-of-knowledge questions and personal data come in their configured shares, the generator keeps
 * its rate on a clock it does not own (a fake one here: no timing assertion), stops at its count or
 * its duration, caps calls in flight, and sends plain user requests (a fresh traceparent each, no
 * tracestate).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadQuestions } from '@rag-immune/reference-rag/testing';
import { defaultRedactor } from '@rag-immune/redaction';
import { parseTraceparent } from '@rag-immune/traces';
import { TrafficGenerator, type SendQuery } from '../../src/traffic/traffic-generator.ts';
import { PARAPHRASES, UserQueryMix, zipfCumulative } from '../../src/traffic/user-queries.ts';

const questions = loadQuestions().slice(0, 40);

test('popularity follows Zipf: rank r is asked in proportion to 1/r^s', () => {
  const mix = new UserQueryMix(questions, { zipfExponent: 1, outOfKnowledgeShare: 0, seed: 7 });
  const n = 40_000;
  const byRank = new Map<number, number>();
  for (let i = 0; i < n; i += 1) {
    const { rank } = mix.next();
    byRank.set(rank!, (byRank.get(rank!) ?? 0) + 1);
  }
  const expected = zipfCumulative(questions.length, 1).map((c, i, all) => c - (i === 0 ? 0 : all[i - 1]!));
  for (const rank of [1, 2, 5, 10, 40]) {
    const observed = (byRank.get(rank) ?? 0) / n;
    const p = expected[rank - 1]!;
    // Five binomial standard deviations: fails for a wrong law, not by chance.
    const tolerance = 5 * Math.sqrt((p * (1 - p)) / n);
    assert.ok(
      Math.abs(observed - p) <= tolerance,
      `rank ${rank}: observed ${observed.toFixed(4)}, expected ${p.toFixed(4)} ± ${tolerance.toFixed(4)}`,
    );
  }
  assert.ok(byRank.get(1)! > 10 * byRank.get(40)!, 'the head is asked far more than the tail');
  // Popularity is a seeded shuffle of the bank, not its file order.
  assert.notDeepEqual(
    mix.ranked.map((q) => q.id),
    questions.map((q) => q.id),
  );
  assert.deepEqual(
    new UserQueryMix(questions, { seed: 7 }).ranked.map((q) => q.id),
    mix.ranked.map((q) => q.id),
  );
});

test('shares of rewordings, out-of-knowledge questions and personal data are as configured', () => {
  const mix = new UserQueryMix(questions, { paraphraseShare: 0.4, outOfKnowledgeShare: 0.2, personalDataShare: 0.1, seed: 3 });
  const n = 20_000;
  const sample = Array.from({ length: n }, () => mix.next());
  const share = (predicate: (q: (typeof sample)[number]) => boolean, of = sample) => of.filter(predicate).length / of.length;
  const inKnowledge = sample.filter((q) => q.knowledge_id !== null);
  const near = (observed: number, p: number, count: number, what: string) =>
    assert.ok(Math.abs(observed - p) <= 5 * Math.sqrt((p * (1 - p)) / count), `${what}: ${observed} vs ${p}`);
  near(
    share((q) => q.knowledge_id === null),
    0.2,
    n,
    'out of knowledge',
  );
  near(
    share((q) => q.paraphrased, inKnowledge),
    0.4,
    inKnowledge.length,
    'paraphrased',
  );
  near(
    share((q) => q.personal_data !== null),
    0.1,
    n,
    'personal data',
  );

  const byId = new Map(questions.map((q) => [q.id, q]));
  for (const q of inKnowledge.slice(0, 500)) {
    const labelled = byId.get(q.question_id!)!;
    const subject = labelled.knowledge_id.slice(labelled.knowledge_id.indexOf('/') + 1);
    const wordings = PARAPHRASES[labelled.kind].map((t) => t.replace('{s}', subject));
    const asked = q.personal_data === null ? q.query : q.query.slice(0, q.query.lastIndexOf(' ('));
    if (q.paraphrased) assert.ok(wordings.slice(1).includes(asked), asked);
    else assert.equal(asked, labelled.question);
  }
  // The personal data is of the kinds the intake's default redaction removes.
  const redactor = defaultRedactor();
  for (const q of sample.filter((s) => s.personal_data !== null).slice(0, 30))
    assert.ok(redactor.redact(q.query).found[q.personal_data!] === 1, `${q.personal_data} caught in ${q.query}`);
});

/** A fake clock: sleep advances it; a call ends `callMs` after it began. */
function fakeTime(callMs = 0) {
  let t = 1_000_000;
  const sends: { at: number; headers: Record<string, string> }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const send: SendQuery = async (_query, headers) => {
    sends.push({ at: t, headers });
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const end = t + callMs;
    // The generator's sleeps move the clock meanwhile; when it only waits for this call, time jumps.
    for (let idle = 0; t < end; idle += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      if (idle >= 3) t = Math.max(t, end);
    }
    inFlight -= 1;
    return { trace_id: `rag-${sends.length}` };
  };
  return {
    now: () => t,
    sleep: async (ms: number) => {
      if (ms > 0) t += ms;
      await new Promise((resolve) => setImmediate(resolve));
    },
    sends,
    send,
    start: t,
    maxInFlight: () => maxInFlight,
  };
}

test('a steady rate: request i is sent at start + i / rate, and the count bounds the run', async () => {
  const time = fakeTime();
  const report = await new TrafficGenerator({
    mix: new UserQueryMix(questions, { seed: 1 }),
    rate: 4,
    maxRequests: 10,
    maxDurationMs: 60_000,
    send: time.send,
    now: time.now,
    sleep: time.sleep,
    headers: { authorization: 'Bearer t', tracestate: 'rag-immune=probe' },
  }).run();
  assert.equal(report.requests.length, 10);
  assert.equal(report.answered, 10);
  assert.deepEqual(
    time.sends.map((s) => s.at - time.start),
    Array.from({ length: 10 }, (_, i) => i * 250),
  );
  // Plain user requests: each its own valid traceparent, never the probe tracestate.
  const ids = time.sends.map((s) => parseTraceparent(s.headers.traceparent)?.trace_id);
  assert.ok(ids.every((id) => id !== undefined));
  assert.equal(new Set(ids).size, 10);
  assert.ok(time.sends.every((s) => s.headers.tracestate === undefined && s.headers.authorization === 'Bearer t'));
  assert.deepEqual(
    report.requests.map((r) => r.trace_id),
    ids,
  );
  assert.equal(
    [...report.asked.values()].reduce((a, b) => a + b, 0),
    report.requests.filter((r) => r.knowledge_id !== null).length,
  );
});

test('the duration bounds the run; slow calls are capped in flight and counted late, not piled up', async () => {
  const time = fakeTime(2_000);
  const report = await new TrafficGenerator({
    mix: new UserQueryMix(questions, { seed: 2 }),
    rate: 10,
    maxRequests: 1_000,
    maxDurationMs: 3_000,
    maxInFlight: 2,
    send: time.send,
    now: time.now,
    sleep: time.sleep,
  }).run();
  assert.equal(time.maxInFlight(), 2, 'calls overlap up to the cap, never beyond');
  assert.ok(report.requests.length < 30, `the 3 s bound stopped it: ${report.requests.length} requests`);
  assert.ok(report.late > 0, 'a RAG slower than the rate makes requests late');
  assert.ok(
    time.sends.every((s) => s.at - time.start < 3_000),
    'nothing is sent past the duration',
  );
});

test('an abort stops it; a failing RAG is counted, not thrown', async () => {
  const controller = new AbortController();
  let calls = 0;
  const report = await new TrafficGenerator({
    mix: new UserQueryMix(questions),
    rate: 1000,
    maxRequests: 1000,
    maxDurationMs: 60_000,
    signal: controller.signal,
    send: async () => {
      calls += 1;
      if (calls === 5) controller.abort();
      throw new Error('connection refused');
    },
  }).run();
  assert.ok(report.requests.length >= 5 && report.requests.length < 1000);
  assert.equal(report.failed, report.requests.length);
  assert.match(report.requests[0]!.error!, /connection refused/);
  assert.throws(
    () => new TrafficGenerator({ mix: new UserQueryMix(questions), rate: 0, maxRequests: 1, maxDurationMs: 1, url: 'http://x' }),
    /rate/,
  );
  assert.throws(() => new UserQueryMix(questions, { outOfKnowledgeShare: 1.5 }), /outOfKnowledgeShare/);
});
