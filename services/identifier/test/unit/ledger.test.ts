import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, chain, contentHash, EMPTY_HEAD, GENESIS_HASH, verifyChain, type EvidenceDraft } from '../../src/testing.ts';

const draft = (metric: string, observed: number): EvidenceDraft => ({
  kind: 'measurement',
  probe_event_id: 'e1',
  probe_id: 'p1',
  detector: 'reranker_drift',
  claim_kind: 'rerank_score_shift',
  subject: 'p1',
  metric,
  observed,
  baseline: 0,
  occurred_at: 1_700_000_000_000,
  detail: { b: 2, a: [1, { z: 1, y: 2 }] },
});

test('canonical JSON sorts keys at every depth, so equal content hashes equally', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: 2, c: [3, { f: 1, e: 2 }] } }), '{"a":{"c":[3,{"e":2,"f":1}],"d":2},"b":1}');
  assert.equal(contentHash({ x: 1, y: 2 }), contentHash({ y: 2, x: 1 }));
  assert.throws(() => canonicalJson({ x: Number.NaN }));
});

test('a chain links every record to its predecessor and verifies', () => {
  const { records, head } = chain('inc-1', EMPTY_HEAD, [draft('a', 1), draft('b', 2), draft('c', 3)]);
  assert.equal(records[0]!.prev_hash, GENESIS_HASH);
  assert.equal(records[1]!.prev_hash, records[0]!.record_id);
  assert.equal(head.seq, 3);
  const verified = verifyChain(
    'inc-1',
    records.map((r) => ({ id: r.record_id, record: r })),
    head,
  );
  assert.equal(verified.ok, true, JSON.stringify(verified.problems));
  assert.equal(verified.records, 3);
});

test('the same drafts after the same head get the same ids (a replay writes nothing new)', () => {
  const first = chain('inc-1', EMPTY_HEAD, [draft('a', 1)]);
  const again = chain('inc-1', EMPTY_HEAD, [draft('a', 1)]);
  assert.equal(first.records[0]!.record_id, again.records[0]!.record_id);
});

test('tampering with one record, or removing one, fails verification', () => {
  const { records, head } = chain('inc-1', EMPTY_HEAD, [draft('a', 1), draft('b', 2), draft('c', 3)]);
  const stored = records.map((r) => ({ id: r.record_id, record: { ...r } }));
  stored[1]!.record.observed = 99;
  const tampered = verifyChain('inc-1', stored, head);
  assert.equal(tampered.ok, false);
  assert.match(tampered.problems[0]!.problem, /content hash/);
  const removed = verifyChain(
    'inc-1',
    records.filter((_, i) => i !== 1).map((r) => ({ id: r.record_id, record: r })),
    head,
  );
  assert.equal(removed.ok, false);
  assert.match(removed.problems.map((p) => p.problem).join(), /missing/);
});

test('records not on the chain from the head are orphans, and an orphan fails verification', () => {
  const main = chain('inc-1', EMPTY_HEAD, [draft('a', 1)]);
  const lostRace = chain('inc-1', EMPTY_HEAD, [draft('other', 5)]);
  const verified = verifyChain(
    'inc-1',
    [...main.records, ...lostRace.records].map((r) => ({ id: r.record_id, record: r })),
    main.head,
  );
  assert.equal(verified.ok, false);
  assert.deepEqual(verified.orphans, [lostRace.records[0]!.record_id]);
  assert.match(verified.problems.map((p) => p.problem).join(), /orphan/);
});
