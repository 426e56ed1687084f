import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ProbeObservation } from '@rag-immune/contracts';
import { compareWithBaseline, defaultThresholds } from '../../src/signals/baseline-comparison.ts';
import {
  alteredChunks,
  answerAgreement,
  keyFacts,
  onlineKnowledgeIsNewer,
  ungroundedFacts,
  sameEvidence,
  factReplaced,
  type AnswerComparison,
  type AnswerSide,
} from '../../src/signals/answer-agreement.ts';
import { CallHealthWindow } from '../../src/signals/call-health.ts';
import { detectability } from '../../src/signals/detectability.ts';

const ok = (latency = 10): ProbeObservation => ({
  call_status: 'ok',
  http_status: 200,
  error_message: null,
  trace_id: 't',
  traceparent: null,
  latency_ms: latency,
  signals: { fcs: 0.9, fcs_status: 'scored', fcs_truncated: false, ic: 1, kf_as_of: 0, kf_age_days: 0 },
  retrieved_documents: [],
  component_versions: { embedder: null, reranker: null, generator: null },
  answer_hash: null,
});
const failed = (status: ProbeObservation['call_status'], latency: number): ProbeObservation => ({
  ...ok(latency),
  call_status: status,
  http_status: null,
  error_message: 'x',
  signals: null,
});

const answers = (over: Partial<AnswerComparison> = {}): AnswerComparison => ({
  answer_agreement: 1,
  online_answer_vs_baseline_fcs: null,
  baseline_answer_vs_online_fcs: null,
  knowledge_update: false,
  altered_chunks: [],
  online_answer_empty: false,
  online_ungrounded_facts: [],
  baseline_ungrounded_facts: [],
  fact_replaced_on_same_evidence: false,
  ...over,
});

test('key facts: versions, dates, names; agreement is their overlap', () => {
  assert.deepEqual(
    [...keyFacts('The latest version of bash (5.2.15-2) was released on Tue, 05 Mar 2024 and uploaded by Matthias Klose.')].sort(),
    ['05', '2024', '5.2.15-2', 'klose', 'mar', 'matthias', 'tue'],
  );
  assert.equal(answerAgreement('The latest version of acl is 2.3.1-3.', 'The latest version of acl is 2.3.1-3.'), 1);
  assert.ok((answerAgreement('The latest version of acl is 9.9.9-1.', 'The latest version of acl is 2.3.1-3.') ?? 1) < 1);
  assert.ok((answerAgreement('uploaded by Jane Roe.', 'uploaded by Matthias Klose.') ?? 1) < 1);
  assert.equal(answerAgreement('   ', 'The latest version of acl is 2.3.1-3.'), null);
});

const side = (chunks: Partial<AnswerSide['chunks'][number]>[], asOf = 1000): AnswerSide => ({
  answer: 'a',
  abstained: false,
  asOf,
  chunks: chunks.map((c) => ({ chunk_id: 'c1', knowledge_id: 'k', version: '1', text: 't', updated_at: 100, valid_from: 100, ...c })),
});

test('altered chunks: same id, version and times, other text; a newer version is an update, not an alteration', () => {
  assert.deepEqual(alteredChunks(side([{ text: 'edited' }]), side([{}])), ['c1']);
  assert.deepEqual(alteredChunks(side([{ text: 'edited', version: '2', updated_at: 200 }]), side([{}])), []);
  assert.equal(onlineKnowledgeIsNewer(side([{ text: 'edited' }]), side([{}])), false);
  assert.equal(onlineKnowledgeIsNewer(side([{ version: '2', updated_at: 200, valid_from: 200 }]), side([{}])), true);
  assert.equal(onlineKnowledgeIsNewer(side([{ chunk_id: 'c2', knowledge_id: 'new', updated_at: 5000 }]), side([{}], 1000)), true);
});

test('answer_disagreement: differing facts with altered evidence is high; a knowledge update is no anomaly', () => {
  const corrupted = compareWithBaseline(ok(), ok(), defaultThresholds, {
    answers: answers({ answer_agreement: 0.5, altered_chunks: ['c1'] }),
  });
  assert.deepEqual([corrupted.anomaly, corrupted.severity, corrupted.signals], [true, 'high', ['answer_disagreement']]);
  const unsupported = compareWithBaseline(ok(), ok(), defaultThresholds, {
    answers: answers({ answer_agreement: 0.5, online_answer_vs_baseline_fcs: 0.1, baseline_answer_vs_online_fcs: 0.9 }),
  });
  assert.deepEqual([unsupported.severity, unsupported.signals], ['medium', ['answer_disagreement']]);
  const update = compareWithBaseline(ok(), ok(), defaultThresholds, {
    answers: answers({ answer_agreement: 0.5, knowledge_update: true, online_answer_vs_baseline_fcs: 0.1 }),
  });
  assert.deepEqual([update.anomaly, update.comparison.knowledge_update], [false, true]);
  const paraphrase = compareWithBaseline(ok(), ok(), defaultThresholds, {
    answers: answers({ answer_agreement: 0.5, online_answer_vs_baseline_fcs: 0.95, baseline_answer_vs_online_fcs: 0.9 }),
  });
  assert.equal(paraphrase.anomaly, false, 'a differently worded answer supported by the other side is no disagreement');
  const agreeing = compareWithBaseline(ok(), ok(), defaultThresholds, { answers: answers() });
  assert.equal(agreeing.anomaly, false);
});

test('ungrounded facts: what an answer states that no passage contains', () => {
  const evidence = ['libxml2 (2.9.14+dfsg-1.3~deb12u5) bookworm-security; urgency=medium', ' -- Aron Xu <aron@debian.org>'];
  assert.deepEqual(ungroundedFacts('The latest version of libxml2 is 2.9.14+dfsg-1.3~deb12u5.', evidence), []);
  assert.deepEqual(ungroundedFacts('The latest version of libxml2 is 2.9.14+dfsg-1.3~deb12u6.', evidence), ['2.9.14+dfsg-1.3~deb12u6']);
  assert.deepEqual(ungroundedFacts('The latest release was uploaded by Stephen Kitt.', evidence), ['kitt', 'stephen']);
  assert.deepEqual(ungroundedFacts('It was uploaded by Aron Xu.', evidence), []);
});

test('answer_disagreement: an online fact in no evidence, while the baseline is grounded, disagrees even when FCS is fooled', () => {
  // A generator that swaps in another package's version: both cross-FCS scores stay high.
  const swapped = answers({
    answer_agreement: 0.33,
    online_answer_vs_baseline_fcs: 0.93,
    baseline_answer_vs_online_fcs: 0.95,
    online_ungrounded_facts: ['2.9.14+dfsg-1.3~deb12u6'],
  });
  assert.deepEqual(compareWithBaseline(ok(), ok(), defaultThresholds, { answers: swapped }).signals, ['answer_disagreement']);
  // An abstractive RAG whose baseline also states facts beyond its passages: no verdict from this check.
  const abstractive = { ...swapped, baseline_ungrounded_facts: ['2024'] };
  assert.equal(compareWithBaseline(ok(), ok(), defaultThresholds, { answers: abstractive }).anomaly, false);
  // Newer online knowledge explains a new fact.
  const update = { ...swapped, knowledge_update: true };
  assert.equal(compareWithBaseline(ok(), ok(), defaultThresholds, { answers: update }).anomaly, false);
});

test('a fact replaced on the same evidence: only generation differs, and it changed a fact', () => {
  assert.equal(factReplaced('The latest version of fakeroot is 12.0-1.', 'The latest version of fakeroot is 1.31-1.2.'), true);
  // Rewording or adding a fact replaces nothing.
  assert.equal(factReplaced('fakeroot 1.31-1.2 is the latest.', 'The latest version of fakeroot is 1.31-1.2.'), false);
  assert.equal(factReplaced('fakeroot 1.31-1.2, released 2023-03-18.', 'The latest version of fakeroot is 1.31-1.2.'), false);
  const chunks = [{ chunk_id: 'c1' }, { chunk_id: 'c2', text: 'other' }];
  assert.equal(sameEvidence(side(chunks), side([...chunks].reverse())), true);
  assert.equal(sameEvidence(side(chunks), side([chunks[0]!])), false);
  assert.equal(sameEvidence(side([{ chunk_id: 'c1', text: 'edited' }]), side([{ chunk_id: 'c1' }])), false);
  assert.equal(sameEvidence(side([]), side([])), false, 'no evidence is no evidence of anything');

  const swapped = answers({ answer_agreement: 0, online_answer_vs_baseline_fcs: 0.96, fact_replaced_on_same_evidence: true });
  assert.deepEqual(compareWithBaseline(ok(), ok(), defaultThresholds, { answers: swapped }).signals, ['answer_disagreement']);
});

test('empty online answer while the baseline answered is its own signal', () => {
  const verdict = compareWithBaseline(ok(), ok(), defaultThresholds, {
    answers: answers({ answer_agreement: null, online_answer_empty: true }),
  });
  assert.deepEqual([verdict.severity, verdict.signals], ['high', ['empty_answer']]);
});

test('latency_regression needs the p95 ratio, the absolute margin and this run slow; timeout_rate needs a timed-out run', () => {
  const calls = (onlineP95: number, baselineP95: number, latency: number, timedOut = false, rate = 0) => ({
    online_latency_p95_ms: onlineP95,
    baseline_latency_p95_ms: baselineP95,
    online_timeout_rate: rate,
    online_latency_ms: latency,
    online_timed_out: timedOut,
  });
  assert.deepEqual(compareWithBaseline(ok(5000), ok(), defaultThresholds, { calls: calls(5000, 400, 5000) }).signals, [
    'latency_regression',
  ]);
  // Three times slower but only 200 ms more: jitter, not a regression.
  assert.equal(compareWithBaseline(ok(300), ok(), defaultThresholds, { calls: calls(300, 100, 300) }).anomaly, false);
  // The window is slow but this run was fast again: nothing on this probe.
  assert.equal(compareWithBaseline(ok(50), ok(), defaultThresholds, { calls: calls(5000, 400, 50) }).anomaly, false);
  const hung = compareWithBaseline(failed('timeout', 10_000), ok(), defaultThresholds, { calls: calls(400, 400, 10_000, true, 0.5) });
  assert.deepEqual([hung.severity, hung.signals], ['high', ['timeout_rate', 'online_error']]);
  const blip = compareWithBaseline(failed('timeout', 10_000), ok(), defaultThresholds, { calls: calls(400, 400, 10_000, true, 0.02) });
  assert.deepEqual(blip.signals, ['online_error']);
});

test('call window: p95 of successful calls, timeout share of all', () => {
  const window = new CallHealthWindow(10);
  for (let i = 1; i <= 20; i += 1) window.record({ latencyMs: i * 10, ok: true, timedOut: false });
  assert.equal(window.count, 10);
  assert.equal(window.latencyP95(), 200);
  window.record({ latencyMs: 10_000, ok: false, timedOut: true });
  assert.equal(window.timeoutRate(), 0.1);
});

test('detectability: a flat FCS cannot fire; IC alone is flagged; neither is rejected', () => {
  assert.equal(detectability({ fcs: 0.97, ic: 1 }, defaultThresholds).verdict, 'ok');
  assert.equal(detectability({ fcs: 0.09, ic: 1 }, defaultThresholds).verdict, 'flagged');
  const flat = detectability({ fcs: 0.09, ic: 0 }, defaultThresholds);
  assert.equal(flat.verdict, 'rejected');
  assert.match(flat.reason, /cannot fire: clean FCS 0.09/);
  assert.equal(detectability({ fcs: null, ic: null }, defaultThresholds).verdict, 'rejected');
});
