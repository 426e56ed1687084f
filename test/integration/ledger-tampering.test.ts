/**
 * A forged and a truncated evidence ledger on the real stack (issue 40 item 10). The identifier runs
 * in-process on real Kafka and Elasticsearch, fed recorded reranker-drift ProbeResults, and publishes
 * a RootCauseReport whose `ledger_head` anchors the chain outside Elasticsearch. Then the ledger is
 * tampered with directly in Elasticsearch, as someone with write access to it could:
 *  - forged: one record's figure rewritten;
 *  - truncated: its newest records deleted and the head document and the incident's own head set
 *    back to an older record, so the chain left behind is consistent with itself (a plain
 *    `immune ledger verify` passes: that is the attack).
 * Each time the effector's admission (the check Effector.accept runs on a report before anything is
 * recorded, over the identifier's real HTTP API) refuses the report with `ledger_truncated`, and
 * `immune ledger verify --anchor <seq:hash>` exits 65 naming why.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client } from '@elastic/elasticsearch';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import type { ProbeResult, RootCauseReport } from '@rag-immune/contracts';
import type { Trace } from '@rag-immune/rag-contract';
import { admitReport, EffectorMetrics, IdentifierRecordClient } from '@rag-immune/effector';
import { startIdentifierWorker, type IdentifierWorker } from '@rag-immune/identifier';
import { repoRoot } from '@rag-immune/stack';
import { waitFor } from '@rag-immune/test-kit';
import { serveRecordedTraces } from '@rag-immune/test-kit/identifier/recorded-rag';
import { cleanup, collectReports, identifierEnv, namespace, type Namespace } from '@rag-immune/test-kit/identifier/stack';
import { endpoints } from '@rag-immune/test-kit/stack';
import type { EventBus } from '@rag-immune/bus';
import { startTelemetry, type Telemetry } from '@rag-immune/worker-runtime';

const logger = pino({ level: 'warn' });
const es = new Client({ node: endpoints.elasticsearchUrl });

interface RecordedRun {
  kind: string;
  result: ProbeResult;
  online_trace: Trace | null;
  baseline_trace: Trace | null;
}

/** The identifier's recorded probe runs (scripts/record-trace-pairs.ts), read as data. */
const runs = gunzipSync(readFileSync(join(repoRoot(), 'services/identifier/test/fixtures/trace-pairs.jsonl.gz')))
  .toString('utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as RecordedRun);

let rag: Awaited<ReturnType<typeof serveRecordedTraces>>;
/** Each test its own namespace and identifier (a second batch of the same probes would join the first incident). */
interface Setup {
  ns: Namespace;
  bus: EventBus;
  identifier: IdentifierWorker;
  reports: RootCauseReport[];
  url: string;
}
const setups: Setup[] = [];
// One tracer provider for the file (OpenTelemetry registers the first one globally), shared by the identifiers.
let telemetry: Telemetry;

before(async () => {
  telemetry = startTelemetry('identifier', 'test', { env: {} });
  rag = await serveRecordedTraces(runs.flatMap((r) => [r.online_trace!, r.baseline_trace!]));
});

after(async () => {
  for (const s of setups) {
    await s.identifier.stop().catch(() => undefined);
    await s.bus.stop().catch(() => undefined);
    await cleanup(s.ns);
  }
  await rag?.close();
  await es.close();
  await telemetry?.shutdown();
});

async function setup(label: string): Promise<Setup> {
  const ns = namespace(label);
  const { reports, bus } = await collectReports(ns);
  const identifier = await startIdentifierWorker(
    identifierEnv(ns, { online: rag.url, baseline: rag.url }, { IDENTIFIER_TRACE_TIMEOUT_MS: '1000', IDENTIFIER_MAX_WAIT_SECONDS: '2' }),
    logger,
    { telemetry },
  );
  const s = { ns, bus, identifier, reports, url: `http://127.0.0.1:${identifier.port}` };
  setups.push(s);
  return s;
}

function immune(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'apps/cli/src/main.ts', ...args],
      { cwd: repoRoot(), timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A fresh reranker-drift incident: its report, as Kafka carried it. */
async function reportedIncident({ bus, reports, ns }: Setup): Promise<RootCauseReport> {
  const publisher = await bus.publisher();
  const results = runs
    .filter((r) => r.kind === 'reranker-drift' && r.result.anomaly)
    .map((r) => ({ ...r.result, event_id: randomUUID(), occurred_at: Date.now() }));
  await publisher.publishMany('probes', results);
  const first = await waitFor('a report', () => reports.find((r) => r.report_revision === 1), 60_000);
  // Settled: no new revision and no new ledger record for 3 s (the tampering must come after the last append).
  let last = '';
  let since = Date.now();
  await waitFor(
    'the incident to settle',
    async () => {
      const now = `${reports.length}/${(await ledgerRecords(ns, first.incident_id)).length}`;
      if (now !== last) [last, since] = [now, Date.now()];
      return Date.now() - since >= 3_000 ? true : undefined;
    },
    60_000,
    500,
  );
  const report = reports.filter((r) => r.incident_id === first.incident_id).sort((a, b) => b.report_revision - a.report_revision)[0]!;
  assert.ok(
    report.ledger_head !== null && report.ledger_head.seq > 3,
    `the report anchors the ledger: ${JSON.stringify(report.ledger_head)}`,
  );
  return report;
}

/** The effector's admission of the report against the identifier's real API: what Effector.accept does first. */
async function admitted({ identifier }: Setup, report: RootCauseReport) {
  const registry = new Registry();
  const admission = await admitReport(
    {
      identifierRecords: new IdentifierRecordClient({ baseUrl: `http://127.0.0.1:${identifier.port}`, timeoutMs: 10_000 }),
      logger,
      metrics: new EffectorMetrics(registry),
    },
    report,
  );
  return { admission, metrics: await registry.metrics() };
}

const anchorOf = (report: RootCauseReport) => `${report.ledger_head!.seq}:${report.ledger_head!.hash}`;
const ledgerIndex = (ns: Namespace) => `${ns.indexPrefix}-evidence-ledger`;

async function ledgerRecords(ns: Namespace, incidentId: string): Promise<{ id: string; seq: number }[]> {
  await es.indices.refresh({ index: ledgerIndex(ns) });
  const found = await es.search<{ seq: number }>({
    index: ledgerIndex(ns),
    query: { term: { incident_id: incidentId } },
    sort: [{ seq: 'asc' }],
    size: 1000,
  });
  return found.hits.hits.map((h) => ({ id: h._id!, seq: h._source!.seq }));
}

test('a record rewritten in Elasticsearch: the effector refuses the report (ledger_truncated), verify --anchor fails naming the record', async () => {
  const at = await setup('ledger-forged');
  const { ns, url } = at;
  const report = await reportedIncident(at);
  // Untouched: admitted, and verified against its anchor.
  const untouched = (await admitted(at, report)).admission;
  assert.equal(untouched.admitted, true, JSON.stringify(untouched));
  const clean = await immune(['ledger', 'verify', report.incident_id, '--anchor', anchorOf(report), '--url', url]);
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);

  const records = await ledgerRecords(ns, report.incident_id);
  const victim = records[1]!.id;
  await es.update({ index: ledgerIndex(ns), id: victim, doc: { observed: 12345 }, refresh: true });

  const { admission, metrics } = await admitted(at, report);
  assert.equal(admission.admitted, false);
  assert.equal('reason' in admission ? admission.reason : null, 'ledger_truncated', JSON.stringify(admission));
  assert.match(metrics, /effector_reports_refused_total\{reason="ledger_truncated"\} 1/);
  const verify = await immune(['ledger', 'verify', report.incident_id, '--anchor', anchorOf(report), '--url', url]);
  assert.equal(verify.code, 65, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /BROKEN/);
  assert.match(verify.stdout, new RegExp(victim.slice(0, 8)));
});

test('the ledger cut back (tail deleted, head and incident head restored to an older record): consistent on its own, refused against the report’s anchor', async () => {
  const at = await setup('ledger-cut');
  const { ns, url } = at;
  const report = await reportedIncident(at);
  const untouched = (await admitted(at, report)).admission;
  assert.equal(untouched.admitted, true, JSON.stringify(untouched));

  // Keep the chain up to two records before the report's head; delete everything after.
  const records = await ledgerRecords(ns, report.incident_id);
  const keep = records.find((r) => r.seq === report.ledger_head!.seq - 2)!;
  assert.ok(keep, `record ${report.ledger_head!.seq - 2} is in the ledger`);
  const doomed = records.filter((r) => r.seq > keep.seq);
  assert.ok(doomed.length >= 2);
  for (const r of doomed) await es.delete({ index: ledgerIndex(ns), id: r.id });
  const olderHead = { seq: keep.seq, hash: keep.id };
  await es.update({
    index: `${ns.indexPrefix}-evidence-ledger-heads`,
    id: report.incident_id,
    doc: { hash: olderHead.hash, seq: olderHead.seq, mac: null, batch: [] },
  });
  await es.update({ index: `${ns.indexPrefix}-incidents`, id: report.incident_id, doc: { ledger_head: olderHead } });
  await es.indices.refresh({ index: `${ns.indexPrefix}-*` });

  // Without the anchor from Kafka the cut-back chain verifies: the tampering is only visible against it.
  const plain = await immune(['ledger', 'verify', report.incident_id, '--url', url]);
  assert.equal(plain.code, 0, `the truncated ledger is consistent on its own: ${plain.stdout}${plain.stderr}`);

  const anchored = await immune(['ledger', 'verify', report.incident_id, '--anchor', anchorOf(report), '--url', url]);
  assert.equal(anchored.code, 65, anchored.stdout + anchored.stderr);
  assert.match(anchored.stdout, /truncated: the ledger's head is at sequence \d+, behind sequence \d+ published in a RootCauseReport/);

  const { admission, metrics } = await admitted(at, report);
  assert.equal(admission.admitted, false);
  assert.equal('reason' in admission ? admission.reason : null, 'ledger_truncated', JSON.stringify(admission));
  assert.match('message' in admission ? admission.message : '', /behind sequence|cut back|does not verify/);
  assert.match(metrics, /effector_reports_refused_total\{reason="ledger_truncated"\} 1/);
});
