/**
 * The evidence ledger on the in-memory twin of Elasticsearch (@rag-immune/es-store): the chain head
 * is claimed under compare-and-set before records are written (two replicas never fork the chain),
 * verification fails on orphans, truncation, tampering and a rewrite by someone without the key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContendedError, memoryStores, type DocumentStore } from '@rag-immune/es-store';
import {
  chain,
  EMPTY_HEAD,
  EvidenceLedger,
  GENESIS_HASH,
  headMac,
  type EvidenceDraft,
  type EvidenceRecord,
  type LedgerHeadDocument,
} from '../../src/index.ts';

const KEY = 'k'.repeat(16) + 'unit-ledger-key-0123456789';
const INCIDENT = 'inc-0123456789abcdef';

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
  detail: { trace: 't1' },
});

type LedgerSetup = { key?: string; previousKeys?: string[]; previousKeyCutoffs?: number[]; attempts?: number };

function setup(options: LedgerSetup = {}) {
  const stores = memoryStores();
  const make = (o: LedgerSetup = options) => new EvidenceLedger(stores, 'unit', undefined, o);
  const ledger = make();
  // What someone who can write the ledger's indices (but holds no key) can touch.
  const records = stores.open<EvidenceRecord>({ name: 'unit-evidence-ledger', mappings: { properties: {} } });
  const heads = stores.open<LedgerHeadDocument>({ name: 'unit-evidence-ledger-heads', mappings: { properties: {} } });
  return { ledger, replica: make, records, heads };
}

const problems = (v: { problems: { problem: string }[] }) => v.problems.map((p) => p.problem).join(' | ');

async function forks(records: DocumentStore<EvidenceRecord>): Promise<number> {
  const all = await records.find({ where: { incident_id: INCIDENT }, size: 1000 });
  const byPrev = new Map<string, number>();
  for (const { doc } of all) byPrev.set(doc.prev_hash, (byPrev.get(doc.prev_hash) ?? 0) + 1);
  return [...byPrev.values()].filter((n) => n > 1).length;
}

test('two replicas append after the same head: one claims it, the other re-reads and chains after it; no fork, nothing off the chain', async () => {
  const { ledger, replica, records } = setup();
  const other = replica();
  const [a, b] = await Promise.all([
    ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('a2', 2)]),
    other.append(INCIDENT, EMPTY_HEAD, [draft('b', 3)]),
  ]);
  const [first, second] = a.head.seq < b.head.seq ? [a, b] : [b, a];
  assert.equal(first.records[0]!.prev_hash, GENESIS_HASH);
  assert.equal(second.records[0]!.prev_hash, first.head.hash, 'the loser chained after the winner');
  assert.equal(second.records[0]!.seq, first.head.seq + 1);
  assert.equal(await forks(records), 0, 'two records name the same predecessor');
  const served = await ledger.records(INCIDENT);
  assert.equal(served.length, 3);
  served.forEach((r, i) => assert.equal(r.prev_hash, i === 0 ? GENESIS_HASH : served[i - 1]!.record_id));
  const verified = await ledger.verify(INCIDENT, second.head);
  assert.equal(verified.ok, true, problems(verified));
  assert.deepEqual(verified.orphans, []);
});

test('a replica that keeps losing the head gives up with ContendedError and leaves no record behind', async () => {
  const { ledger, replica, records } = setup();
  const loser = replica({ attempts: 1 });
  const [won, lost] = await Promise.allSettled([
    ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1)]),
    loser.append(INCIDENT, EMPTY_HEAD, [draft('b', 2)]),
  ]);
  assert.equal(won.status, 'fulfilled');
  assert.equal(lost.status, 'rejected');
  assert.ok((lost as PromiseRejectedResult).reason instanceof ContendedError);
  const stored = await records.find({ where: { incident_id: INCIDENT } });
  assert.deepEqual(
    stored.map((s) => s.doc.metric),
    ['a'],
  );
  assert.deepEqual(
    (await ledger.records(INCIDENT)).map((r) => r.metric),
    ['a'],
  );
  assert.equal((await ledger.verify(INCIDENT)).ok, true);
});

test('a redelivery after a crash between append and incident save adds nothing', async () => {
  const { ledger, records } = setup({ key: KEY });
  const first = await ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2)]);
  // The incident was never saved: it still knows the empty head.
  const again = await ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2)]);
  assert.deepEqual(again, first);
  assert.equal(await records.count({ where: { incident_id: INCIDENT } }), 2);
});

test('an append interrupted between claiming the head and writing its records is completed by the next one', async () => {
  const { ledger, records } = setup({ key: KEY });
  const first = await ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1)]);
  // As if the replica died right after its claim: the claimed record never reached the index.
  await records.deleteMany(first.records.map((r) => r.record_id));
  assert.deepEqual(
    (await ledger.records(INCIDENT)).map((r) => r.metric),
    ['a'],
    'served from the head document meanwhile',
  );
  // Chained and signed in the head document: the evidence is whole, an append in flight is no truncation.
  const meanwhile = await ledger.verify(INCIDENT, first.head);
  assert.equal(meanwhile.ok, true, problems(meanwhile));
  assert.equal(meanwhile.records, 1);
  await ledger.append(INCIDENT, EMPTY_HEAD, [draft('z', 9)]);
  const verified = await ledger.verify(INCIDENT);
  assert.equal(verified.ok, true, problems(verified));
  assert.equal(verified.records, 2);
});

test('verify while another replica appends: the records written after the head was read chain after it, no orphans', async () => {
  const { ledger, replica, records } = setup({ key: KEY });
  const first = await ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1)]);
  const heads = (ledger as unknown as { heads: DocumentStore<LedgerHeadDocument> }).heads;
  const read = heads.get.bind(heads);
  let raced = false;
  // The append lands between verify's read of the head and its scan of the records.
  heads.get = async (id: string) => {
    const head = await read(id);
    if (!raced) {
      raced = true;
      await replica().append(INCIDENT, first.head, [draft('b', 2), draft('c', 3)]);
    }
    return head;
  };
  const verified = await ledger.verify(INCIDENT, first.head);
  assert.ok(raced);
  assert.equal(verified.ok, true, problems(verified));
  assert.equal(verified.records, 3);
  // A record forged beyond the head (chained after it, the head never moved) is still an orphan.
  heads.get = read;
  const tip = (await heads.get(INCIDENT))!.doc;
  const forged = chain(INCIDENT, { hash: tip.hash, seq: tip.seq }, [draft('forged', 7)], KEY).records[0]!;
  await records.create(forged.record_id, forged);
  const after = await ledger.verify(INCIDENT);
  assert.equal(after.ok, false);
  assert.deepEqual(after.orphans, [forged.record_id]);
});

test('a record claimed by the head but neither indexed nor in the head document fails as missing', async () => {
  const { ledger, records, heads } = setup({ key: KEY });
  const first = await ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1)]);
  const second = await ledger.append(INCIDENT, first.head, [draft('b', 2)]);
  await records.deleteMany(second.records.map((r) => r.record_id));
  const head = await heads.get(INCIDENT);
  await heads.replace(INCIDENT, { ...head!.doc, batch: [] }, head);
  assert.match(problems(await ledger.verify(INCIDENT, second.head)), /missing head/);
});

test('verify fails on an orphan: a record of the incident off the chain from the head is never served', async () => {
  const { ledger, records } = setup();
  const { head } = await ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2)]);
  const fork = chain(INCIDENT, EMPTY_HEAD, [draft('fork', 7)]).records[0]!;
  await records.create(fork.record_id, fork);
  const verified = await ledger.verify(INCIDENT, head);
  assert.equal(verified.ok, false);
  assert.deepEqual(verified.orphans, [fork.record_id]);
  assert.match(problems(verified), /orphan/);
  assert.ok(!(await ledger.records(INCIDENT)).some((r) => r.record_id === fork.record_id), 'an orphan was served as evidence');
});

test('verify fails on a truncated chain: the newest records gone with the head, or the first one gone', async () => {
  const { ledger, records, heads } = setup();
  const { records: written, head } = await ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2), draft('c', 3)]);
  await records.delete(written[2]!.record_id);
  // Head document and newest record gone: nothing in the ledger says where the chain ended.
  await heads.delete(INCIDENT);
  const headless = await ledger.verify(INCIDENT);
  assert.equal(headless.ok, false);
  assert.match(problems(headless), /no head/);
  // The incident's own head (kept outside the ledger) still names the removed record.
  const anchored = await ledger.verify(INCIDENT, head);
  assert.equal(anchored.ok, false);
  assert.match(problems(anchored), /missing head/);

  // Another chain: its first record removed (an older append's, so the head document no longer holds it).
  const other = setup();
  const older = await other.ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2)]);
  const chained = await other.ledger.append(INCIDENT, older.head, [draft('c', 3)]);
  await other.records.delete(older.records[0]!.record_id);
  const headless2 = await other.ledger.verify(INCIDENT, chained.head);
  assert.equal(headless2.ok, false);
  assert.match(problems(headless2), /missing/);
});

test('verify fails on a tampered record of a keyed chain', async () => {
  const { ledger, records } = setup({ key: KEY });
  const { records: written, head } = await ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2), draft('c', 3)]);
  const clean = await ledger.verify(INCIDENT, head);
  assert.equal(clean.ok, true, problems(clean));
  assert.equal(clean.keyed, true);
  const victim = written[1]!;
  await records.put(victim.record_id, { ...victim, observed: 12345 });
  const tampered = await ledger.verify(INCIDENT, head);
  assert.equal(tampered.ok, false);
  assert.ok(
    tampered.problems.some((p) => p.record_id === victim.record_id && /HMAC/.test(p.problem)),
    problems(tampered),
  );
});

test('verify fails on a full rewrite of a keyed chain by someone without the key', async () => {
  const original = async () => {
    const s = setup({ key: KEY });
    const { records: written, head } = await s.ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2), draft('c', 3)]);
    const drafts = written.map(
      ({ kind, probe_event_id, probe_id, detector, claim_kind, subject, metric, observed, baseline, occurred_at, detail }) => ({
        kind,
        probe_event_id,
        probe_id,
        detector,
        claim_kind,
        subject,
        metric,
        observed: metric === 'b' ? 99 : observed,
        baseline,
        occurred_at,
        detail,
      }),
    );
    await s.records.deleteMany(written.map((r) => r.record_id));
    return { ...s, drafts, head };
  };
  // Rewritten unkeyed (plain SHA-256, as the unkeyed ledger hashes), with an unsigned head to match.
  {
    const s = await original();
    const forged = chain(INCIDENT, EMPTY_HEAD, s.drafts);
    await s.records.createMany(forged.records.map((r) => ({ id: r.record_id, doc: r })));
    await s.heads.put(INCIDENT, { incident_id: INCIDENT, hash: forged.head.hash, seq: forged.head.seq, mac: null, batch: [] });
    const verified = await s.ledger.verify(INCIDENT);
    assert.equal(verified.ok, false, 'a keyless rewrite verified');
    assert.match(problems(verified), /unsigned head/);
    // Its head document removed as well: the incident's head, kept outside the ledger, is not on the forged chain.
    await s.heads.delete(INCIDENT);
    assert.equal((await s.ledger.verify(INCIDENT)).ok, false);
    assert.match(problems(await s.ledger.verify(INCIDENT, s.head)), /not on the ledger's chain|missing head/);
  }
  // Rewritten as keyed records under another key, the head signed with it.
  {
    const s = await original();
    const forger = setup({ key: 'f'.repeat(40) });
    await forger.ledger.append(INCIDENT, EMPTY_HEAD, s.drafts);
    const forgedRecords = await forger.records.find({ where: { incident_id: INCIDENT } });
    await s.records.createMany(forgedRecords.map((r) => ({ id: r.id, doc: r.doc })));
    await s.heads.put(INCIDENT, (await forger.heads.get(INCIDENT))!.doc);
    const verified = await s.ledger.verify(INCIDENT);
    assert.equal(verified.ok, false, 'a rewrite under another key verified');
    assert.match(problems(verified), /HMAC/);
    assert.match(problems(verified), /head's MAC/);
  }
});

test('a clean keyed chain verifies as keyed; an old unkeyed ledger (no head document) still verifies, as unkeyed', async () => {
  const keyed = setup({ key: KEY });
  const { head } = await keyed.ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2)]);
  const next = await keyed.ledger.append(INCIDENT, head, [draft('c', 3)]);
  const clean = await keyed.ledger.verify(INCIDENT, next.head);
  assert.deepEqual(
    { ok: clean.ok, keyed: clean.keyed, records: clean.records, unkeyed: clean.unkeyed_records },
    { ok: true, keyed: true, records: 3, unkeyed: 0 },
  );
  assert.ok((await keyed.ledger.records(INCIDENT)).every((r) => r.hash_scheme === 'hmac-sha256'));

  // A ledger as written before keys and head documents: unkeyed records, the head only in the incident.
  const old = setup({ key: KEY });
  const legacy = chain(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2)]);
  await old.records.createMany(legacy.records.map((r) => ({ id: r.record_id, doc: r })));
  assert.equal(legacy.records[0]!.hash_scheme, undefined);
  const asOld = await old.ledger.verify(INCIDENT, legacy.head);
  assert.deepEqual({ ok: asOld.ok, keyed: asOld.keyed, unkeyed: asOld.unkeyed_records }, { ok: true, keyed: false, unkeyed: 2 });
  const unkeyedReader = await old.replica({}).verify(INCIDENT, legacy.head);
  assert.deepEqual({ ok: unkeyedReader.ok, keyed: unkeyedReader.keyed }, { ok: true, keyed: false });
  // Appending with the key continues the old chain keyed: the whole chain is then protected by its signed head.
  const continued = await old.ledger.append(INCIDENT, legacy.head, [draft('c', 3)]);
  assert.equal(continued.records[0]!.prev_hash, legacy.head.hash);
  const mixed = await old.ledger.verify(INCIDENT, continued.head);
  assert.deepEqual(
    { ok: mixed.ok, keyed: mixed.keyed, unkeyed: mixed.unkeyed_records },
    { ok: true, keyed: true, unkeyed: 2 },
    problems(mixed),
  );

  // An unkeyed (development) ledger: ok, and says it is not keyed.
  const dev = setup();
  const devHead = await dev.ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1)]);
  const devVerified = await dev.ledger.verify(INCIDENT, devHead.head);
  assert.deepEqual({ ok: devVerified.ok, keyed: devVerified.keyed }, { ok: true, keyed: false });
});

test('key rotation: chains written under a retired key still verify, and nobody holding only the old key can extend them', async () => {
  const NEW_KEY = 'n'.repeat(16) + 'unit-ledger-key-rotated-0001';
  const s = setup({ key: KEY });
  const before = await s.ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2)]);
  // Rotated: the new key writes, the old one only verifies.
  const rotated = s.replica({ key: NEW_KEY, previousKeys: [KEY] });
  const untouched = await rotated.verify(INCIDENT, before.head);
  assert.deepEqual(
    { ok: untouched.ok, keyed: untouched.keyed, retired: untouched.retired_key_records },
    { ok: true, keyed: true, retired: 2 },
    problems(untouched),
  );
  const after = await rotated.append(INCIDENT, before.head, [draft('c', 3)]);
  const mixed = await rotated.verify(INCIDENT, after.head);
  assert.deepEqual(
    { ok: mixed.ok, keyed: mixed.keyed, records: mixed.records, retired: mixed.retired_key_records },
    { ok: true, keyed: true, records: 3, retired: 2 },
    problems(mixed),
  );
  // Without the retired key the old records cannot be checked: verification says so instead of passing.
  const forgotten = await s.replica({ key: NEW_KEY }).verify(INCIDENT, after.head);
  assert.equal(forgotten.ok, false);
  assert.match(problems(forgotten), /any retired key/);

  // Someone who kept the old key appends after the rotation, re-signing the head with it.
  const leaked = s.replica({ key: KEY });
  const forged = await leaked.append(INCIDENT, after.head, [draft('d', 4)]);
  const caught = await rotated.verify(INCIDENT, forged.head);
  assert.equal(caught.ok, false, 'a record under the retired key after the rotation verified');
  assert.match(problems(caught), /retired key after record/);
});

test('key rotation: a head re-signed with another ring key than its record fails', async () => {
  const NEW_KEY = 'n'.repeat(16) + 'unit-ledger-key-rotated-0001';
  const s = setup({ key: NEW_KEY, previousKeys: [KEY] });
  const written = await s.ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1)]);
  const doc = (await s.heads.get(INCIDENT))!.doc;
  // The MAC an old-key holder would write for this head: a key of the ring, but not its record's.
  await s.heads.put(INCIDENT, { ...doc, mac: headMac(KEY, INCIDENT, written.head) });
  const verified = await s.ledger.verify(INCIDENT, written.head);
  assert.equal(verified.ok, false);
  assert.match(problems(verified), /head signed under retired key 1, its record under the ledger key/);
});

test('tail truncation: an old signed head restored with the newer records deleted fails against a head anchored in a RootCauseReport', async () => {
  const { ledger, records, heads } = setup({ key: KEY });
  const first = await ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1), draft('b', 2)]);
  const oldHead = (await heads.get(INCIDENT))!.doc;
  // Report 1 carried first.head; report 2 (after the next append) carries second.head, and Kafka keeps both.
  const second = await ledger.append(INCIDENT, first.head, [draft('c', 3)]);
  // Someone with write access to Elasticsearch (no key) cuts the chain back: the newer record gone,
  // the old head document (validly signed) put back, and the incident's own head with it.
  await records.delete(second.records[0]!.record_id);
  await heads.put(INCIDENT, oldHead);
  const inside = await ledger.verify(INCIDENT, first.head);
  assert.equal(inside.ok, true, `nothing inside Elasticsearch can tell: ${problems(inside)}`);
  const anchored = await ledger.verify(INCIDENT, first.head, [first.head, second.head]);
  assert.equal(anchored.ok, false, 'a ledger behind the newest published head verified');
  assert.match(problems(anchored), /truncated: the ledger's head is at sequence 2, behind sequence 3 published in a RootCauseReport/);
  // The newest anchor on the chain (nothing removed): it verifies.
  const clean = setup({ key: KEY });
  const a = await clean.ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1)]);
  const b = await clean.ledger.append(INCIDENT, a.head, [draft('b', 2)]);
  assert.equal((await clean.ledger.verify(INCIDENT, b.head, [a.head, b.head])).ok, true);
  // An anchor at the head's sequence but another hash: the chain was rewritten since it was published.
  const rewritten = await clean.ledger.verify(INCIDENT, b.head, [{ hash: 'f'.repeat(64), seq: 2 }]);
  assert.equal(rewritten.ok, false);
  assert.match(problems(rewritten), /published in a RootCauseReport is not on the chain/);
});

test('key rotation: a record under a retired key that happened after its cut-off fails', async () => {
  const NEW_KEY = 'n'.repeat(16) + 'unit-ledger-key-rotated-0001';
  const s = setup({ key: KEY });
  // Someone who kept the old key writes a whole new chain after the rotation (no newer record to betray it).
  const forged = await s.ledger.append(INCIDENT, EMPTY_HEAD, [{ ...draft('a', 1), occurred_at: 1_700_000_500_000 }]);
  const noCutoff = await s.replica({ key: NEW_KEY, previousKeys: [KEY] }).verify(INCIDENT, forged.head);
  assert.equal(noCutoff.ok, true, problems(noCutoff));
  const rotated = s.replica({ key: NEW_KEY, previousKeys: [KEY], previousKeyCutoffs: [1_700_000_100_000] });
  const caught = await rotated.verify(INCIDENT, forged.head);
  assert.equal(caught.ok, false, 'a record under a retired key after its cut-off verified');
  assert.match(problems(caught), /under retired key 1 .* after its cut-off 2023-11-14T22:15:00.000Z/);
  // Before the cut-off: still fine.
  const early = setup({ key: KEY });
  const old = await early.ledger.append(INCIDENT, EMPTY_HEAD, [draft('a', 1)]);
  const kept = await early
    .replica({ key: NEW_KEY, previousKeys: [KEY], previousKeyCutoffs: [1_700_000_100_000] })
    .verify(INCIDENT, old.head);
  assert.equal(kept.ok, true, problems(kept));
});

test('pages of a long chain: read by sequence range, served in chain order, continuing from the hash each page names; an inserted record is never served', async () => {
  const { ledger, records } = setup({ key: KEY });
  const written = await ledger.append(
    INCIDENT,
    EMPTY_HEAD,
    [1, 2, 3, 4, 5, 6, 7].map((n) => draft(`m${n}`, n)),
  );
  // An insertion beside the chain at sequence 5 (same predecessor): off the chain, never served.
  const fake = { ...written.records[4]!, observed: 99, record_id: 'e'.repeat(64) };
  await records.put(fake.record_id, fake);
  const first = await ledger.page(INCIDENT, { limit: 3 });
  assert.deepEqual(
    first.records.map((r) => r.seq),
    [5, 6, 7],
  );
  assert.deepEqual(first.next, { seq: 4, hash: written.records[3]!.record_id });
  const second = await ledger.page(INCIDENT, { limit: 3, before: first.next! });
  assert.deepEqual(
    second.records.map((r) => r.seq),
    [2, 3, 4],
  );
  const last = await ledger.page(INCIDENT, { limit: 3, before: second.next! });
  assert.deepEqual(
    last.records.map((r) => r.seq),
    [1],
  );
  assert.equal(last.next, null);
  const served = [...last.records, ...second.records, ...first.records].map((r) => r.record_id);
  assert.deepEqual(
    served,
    written.records.map((r) => r.record_id),
  );
  assert.ok(!served.includes(fake.record_id));
  // The records a report cites, by id only.
  const cited = await ledger.recordsById(INCIDENT, [written.records[1]!.record_id, 'f'.repeat(64)]);
  assert.deepEqual(
    cited.map((r) => r.seq),
    [2],
  );
});
