/**
 * Who may make the effector act (issue 29): a report from Kafka is acted on only when it is the
 * identifier's own (the incident exists, the revision is its latest, the probes and window are its
 * own), verification re-runs the identifier's probes too, an identifier that cannot be asked holds the
 * report, and the identifier-record client reads GET /incidents/{id} over HTTP.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RootCauseReport } from '@rag-immune/contracts';
import {
  checkAgainstRecord,
  IdentifierRecordClient,
  IdentifierUnreachableError,
  type IdentifierIncident,
  type IdentifierRecords,
  type IncidentOutcome,
} from '../../src/index.ts';
import { report, startLoop, type Loop } from './support/loop-fixture.ts';

/** The identifier's record of the incident as it issued `r`. */
function recordOf(r: RootCauseReport, patch: Partial<IdentifierIncident> = {}): IdentifierIncident {
  return {
    incident_id: r.incident_id,
    state: 'reported',
    report_revision: r.report_revision,
    window_start: r.window_start,
    window_end: r.window_end,
    probes: r.affected_probes.map((p) => ({ ...p })),
    last_report: {
      event_id: r.event_id,
      report_revision: r.report_revision,
      root_cause: r.root_cause,
      affected_component: r.affected_component,
      affected_knowledge_ids: r.affected_knowledge_ids,
    },
    ...patch,
  };
}

class FakeIdentifier implements IdentifierRecords {
  readonly records = new Map<string, IdentifierIncident>();
  calls = 0;
  /** The next this many calls fail as an unreachable identifier would. */
  down = 0;
  async incident(id: string): Promise<IdentifierIncident | null> {
    this.calls += 1;
    if (this.down > 0) {
      this.down -= 1;
      throw new IdentifierUnreachableError('identifier http://identifier: TimeoutError: aborted', true);
    }
    return this.records.get(id) ?? null;
  }
}

async function accept(loop: Loop, r: RootCauseReport): Promise<IncidentOutcome | Error> {
  let outcome: IncidentOutcome | Error | undefined;
  await loop.effector.accept(r, undefined as never, (o) => (outcome = o));
  await loop.effector.idle();
  assert.ok(outcome !== undefined, 'an outcome');
  return outcome;
}

async function metric(loop: Loop, name: string): Promise<string> {
  const found = await (loop.deps.metrics as unknown as Record<string, { get(): Promise<{ values: { labels: object; value: number }[] }> }>)[
    name
  ]!.get();
  return JSON.stringify(found.values.map((v) => [v.labels, v.value]));
}

test("a report the identifier issued is acted on, and its verification re-runs the identifier's probes too", async () => {
  const identifier = new FakeIdentifier();
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], identifier });
  const r = report('inc-a1');
  const extra = { probe_id: 'q-curl-version', probe_version: 3, query: 'What is the latest version of curl?' };
  identifier.records.set('inc-a1', recordOf(r, { probes: [...r.affected_probes, extra] }));
  assert.equal(await accept(loop, r), 'recovered');
  assert.equal(identifier.calls, 1);
  const succeeded = loop.events.find((e) => e.status === 'succeeded');
  assert.deepEqual(succeeded?.verification?.probe_ids, ['q-openssl-version', 'q-curl-version'], 'the union of both probe lists');
  const stored = loop.deps.incidents.report((await loop.deps.incidents.get('inc-a1'))!.doc);
  assert.deepEqual(
    stored.affected_probes.map((p) => p.probe_id),
    ['q-openssl-version', 'q-curl-version'],
    'a restart or a grant re-runs the checked report',
  );
});

test("reports that are not the identifier's own are refused: nothing recorded, nothing run, the genuine one still acted on", async () => {
  const identifier = new FakeIdentifier();
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], identifier });
  const genuine = report('inc-f1', { report_revision: 2 });
  identifier.records.set('inc-f1', recordOf(genuine));
  const forged: [string, RootCauseReport][] = [
    ['unknown incident', report('inc-f2')],
    ['a revision never issued', { ...genuine, event_id: crypto.randomUUID(), report_revision: 3 }],
    ['another event under the latest revision', { ...genuine, event_id: crypto.randomUUID() }],
    ['another cause under the issued event', { ...genuine, root_cause: 'parser_bug', affected_component: 'parser' }],
    [
      'a probe the incident does not have',
      { ...genuine, affected_probes: [{ probe_id: 'q-easy', probe_version: 1, query: 'What is 1+1?' }] },
    ],
    ['its probe with another query', { ...genuine, affected_probes: [{ ...genuine.affected_probes[0]!, query: 'What is 1+1?' }] }],
    [
      'a window reaching back before the incident (an old snapshot restored)',
      { ...genuine, window_start: genuine.window_start - 86_400_000 },
    ],
    ['a window past the incident', { ...genuine, window_end: genuine.window_end + 60_000 }],
    [
      'knowledge ids the identifier did not name (a re-ingest of other documents)',
      { ...genuine, affected_knowledge_ids: [...genuine.affected_knowledge_ids, 'deb:bash'] },
    ],
  ];
  for (const [what, r] of forged) assert.equal(await accept(loop, r), 'refused', what);
  assert.equal(await loop.deps.incidents.get('inc-f2'), null);
  assert.equal(await loop.deps.incidents.get('inc-f1'), null, 'no forged revision was recorded to supersede the genuine one');
  assert.deepEqual(loop.rag.log, []);
  assert.deepEqual(loop.events, []);
  const refused = await metric(loop, 'reportsRefused');
  for (const reason of ['unknown_incident', 'not_issued', 'probes_mismatch', 'window_mismatch', 'knowledge_mismatch'])
    assert.match(refused, new RegExp(reason));

  assert.equal(await accept(loop, { ...genuine, event_id: crypto.randomUUID(), report_revision: 1 }), 'superseded', 'an earlier revision');
  assert.equal(await accept(loop, genuine), 'recovered');
  assert.deepEqual(loop.rag.log, ['execute fix_a']);
});

test("a window that starts later than the identifier's (an anomaly it saw late) is acted on with the identifier's start", async () => {
  const r = report('inc-w1');
  const record = recordOf(r, { window_start: r.window_start - 5_000 });
  const admission = checkAgainstRecord(r, record);
  assert.ok(admission.admitted);
  assert.equal(admission.report.window_start, record.window_start);
  assert.match(admission.adjusted.join(' '), /window_start/);
});

test('an identifier that cannot be asked holds the report (the delivery fails, nothing recorded); once it answers the report is acted on', async () => {
  const identifier = new FakeIdentifier();
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], identifier });
  const r = report('inc-h1');
  identifier.records.set('inc-h1', recordOf(r));
  identifier.down = 1;
  await assert.rejects(loop.effector.accept(r, undefined as never), IdentifierUnreachableError);
  assert.equal(await loop.deps.incidents.get('inc-h1'), null, 'not acted on unchecked');
  assert.deepEqual(loop.rag.log, []);
  assert.match(await metric(loop, 'identifierUnreachable'), /\[\{\},1\]/);
  // The bus redelivers it.
  assert.equal(await accept(loop, r), 'recovered');
  assert.match(await metric(loop, 'identifierUnreachable'), /\[\{\},0\]/);
});

test('a report naming more affected probes than the cap is refused before anything is asked or recorded', async () => {
  const identifier = new FakeIdentifier();
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], identifier, maxAffectedProbes: 3 });
  const probes = Array.from({ length: 4 }, (_, i) => ({ probe_id: `q-${i}`, probe_version: 1, query: `question ${i}` }));
  const r = report('inc-c1', { affected_probes: probes });
  identifier.records.set('inc-c1', recordOf(r));
  assert.equal(await accept(loop, r), 'refused');
  assert.equal(identifier.calls, 0);
  assert.equal(await loop.deps.incidents.get('inc-c1'), null);
  assert.match(await metric(loop, 'reportsRefused'), /too_many_probes/);
  // Without the identifier configured (development) the cap holds too; 3 probes pass.
  const open = await startLoop({ tools: [{ name: 'fix_a', heals: true }], maxAffectedProbes: 3 });
  assert.equal(await accept(open, r), 'refused');
  assert.equal(await accept(open, report('inc-c2', { affected_probes: probes.slice(0, 3) })), 'recovered');
});

test('the identifier-record client reads GET /incidents/{id}?evidence=false with its token; 404 is no incident; errors are retried, then unreachable', async () => {
  const r = report('inc-0123456789abcdef');
  const record = recordOf(r);
  const seen: { url: string; authorization: string | undefined }[] = [];
  let answer: (req: IncomingMessage) => { status: number; body: string } = () => ({
    status: 200,
    body: JSON.stringify({ incident: { ...record, timeline: [], analyses_dropped: 1 } }),
  });
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const { status, body } = answer(req);
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new IdentifierRecordClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    token: 'identifier-token-0123456789',
    timeoutMs: 1000,
    backoffMs: 1,
  });
  try {
    assert.deepEqual(
      await client.incident(r.incident_id),
      { ...record, timeline: [], analyses_dropped: 1 },
      'extra fields are kept, not refused',
    );
    assert.deepEqual(seen[0], { url: `/incidents/${r.incident_id}?evidence=false`, authorization: 'Bearer identifier-token-0123456789' });

    answer = () => ({ status: 404, body: '{"error":"no incident"}' });
    assert.equal(await client.incident('inc-ffffffffffffffff'), null);
    answer = () => ({ status: 400, body: '{"error":"invalid incident id"}' });
    assert.equal(await client.incident('../../etc/passwd'), null);
    assert.match(seen.at(-1)!.url, /^\/incidents\/\.\.%2F\.\.%2Fetc%2Fpasswd\?/, 'the id is encoded');

    seen.length = 0;
    answer = () => ({ status: 503, body: '{}' });
    await assert.rejects(client.incident(r.incident_id), /HTTP 503/);
    assert.equal(seen.length, 2, 'retried');

    seen.length = 0;
    answer = () => ({ status: 401, body: '{}' });
    await assert.rejects(
      client.incident(r.incident_id),
      (error: unknown) => error instanceof IdentifierUnreachableError && /401/.test(error.message),
    );
    assert.equal(seen.length, 1, 'a refused token is not retried');

    answer = () => ({ status: 200, body: JSON.stringify({ incident: { ...record, report_revision: 'latest' } }) });
    await assert.rejects(client.incident(r.incident_id), /unexpected shape.*report_revision/);
    answer = () => ({ status: 200, body: JSON.stringify({ incident: { ...record, incident_id: 'inc-other' } }) });
    await assert.rejects(client.incident(r.incident_id), /answered inc-other/);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await assert.rejects(
    new IdentifierRecordClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 500, backoffMs: 1 }).incident(r.incident_id),
    IdentifierUnreachableError,
  );
});

test("knowledge ids: checked when the identifier's record names them, taken as they are from an identifier older than the check", () => {
  const r = report('inc-k1', { affected_knowledge_ids: ['deb:openssl'] });
  const current = recordOf(r);
  assert.equal(checkAgainstRecord(r, current).admitted, true);
  const widened = { ...r, affected_knowledge_ids: ['deb:openssl', 'deb:bash'] };
  const refused = checkAgainstRecord(widened, current);
  assert.ok(!refused.admitted && !refused.superseded && refused.reason === 'knowledge_mismatch', JSON.stringify(refused));
  const narrowed = checkAgainstRecord({ ...r, affected_knowledge_ids: [] }, current);
  assert.ok(!narrowed.admitted && !narrowed.superseded && narrowed.reason === 'knowledge_mismatch', JSON.stringify(narrowed));
  const { affected_knowledge_ids: _ids, ...older } = current.last_report!;
  assert.equal(checkAgainstRecord(widened, { ...current, last_report: older }).admitted, true);
});

test('a report whose evidence ledger was cut back behind the head it carried is refused; the client asks GET /incidents/{id}/ledger/verify?anchor=', async () => {
  const head = { seq: 7, hash: 'a'.repeat(64) };
  // The identifier's own record says its head is older than the one the report carried: cut back.
  const r = { ...report('inc-l1'), ledger_head: head };
  assert.deepEqual(
    (checkAgainstRecord(r, recordOf(r, { ledger_head: { seq: 5, hash: 'b'.repeat(64) } })) as { reason?: string }).reason,
    'ledger_truncated',
  );
  assert.equal(checkAgainstRecord(r, recordOf(r, { ledger_head: head })).admitted, true);
  for (const bad of [
    { seq: -1, hash: head.hash },
    { seq: 3, hash: '../x' },
  ])
    assert.deepEqual((checkAgainstRecord({ ...r, ledger_head: bad }, recordOf(r)) as { reason?: string }).reason, 'ledger_truncated');

  // The identifier's record rolled back along with the ledger cannot hide it: the ledger is verified against the Kafka head.
  const identifier = new (class extends FakeIdentifier {
    anchors: unknown[] = [];
    verdict = { ok: false, problems: ["truncated: the ledger's head is at sequence 5, behind sequence 7 published in a RootCauseReport"] };
    async verifyLedger(_id: string, anchor: { seq: number; hash: string }) {
      this.anchors.push(anchor);
      return this.verdict;
    }
  })();
  const loop = await startLoop({ tools: [{ name: 'fix_a', heals: true }], identifier });
  identifier.records.set('inc-l1', recordOf(r));
  assert.equal(await accept(loop, r), 'refused');
  assert.deepEqual(identifier.anchors, [head]);
  assert.match(await metric(loop, 'reportsRefused'), /ledger_truncated/);
  assert.deepEqual(loop.rag.log, []);
  assert.equal(await loop.deps.incidents.get('inc-l1'), null);
  identifier.verdict = { ok: true, problems: [] };
  assert.equal(await accept(loop, r), 'recovered');

  // Over HTTP.
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ok: false, problems: [{ record_id: 'x', seq: 7, problem: 'truncated' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const client = new IdentifierRecordClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      timeoutMs: 1000,
      backoffMs: 1,
    });
    assert.deepEqual(await client.verifyLedger('inc-0123456789abcdef', head), { ok: false, problems: ['truncated'] });
    assert.deepEqual(seen, [`/incidents/inc-0123456789abcdef/ledger/verify?anchor=7:${'a'.repeat(64)}`]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
