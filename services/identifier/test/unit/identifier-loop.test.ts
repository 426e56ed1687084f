/**
 * The identifier's loop (grouping, report staging and outbox, repair feedback) on in-memory stores
 * (@rag-immune/es-store's twin) with recorded reference-RAG traces served in-process under the RAG
 * contract: what identifier-resilience proves on the real stack, in milliseconds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { trace } from '@opentelemetry/api';
import { exampleRepairAction, type ProbeResult, type RepairAction, type RootCauseReport } from '@rag-immune/contracts';
import { memoryStores } from '@rag-immune/es-store';
import { RagClient, type Trace } from '@rag-immune/rag-contract';
import { EvidenceLedger, Identifier, IdentifierMetrics, IncidentStore, loadCalibration } from '../../src/index.ts';
import { loadRecordedRuns } from '../fixtures/recorded-runs.ts';

const runs = loadRecordedRuns();
const traces = new Map<string, Trace>(runs.flatMap((r) => [r.online_trace!, r.baseline_trace!]).map((t) => [t.trace_id, t]));
/** GET /traces/{id} answered from the recordings, as the reference RAG answered it. */
const recordedFetch: typeof fetch = async (input) => {
  const id = decodeURIComponent(String(input).replace(/^.*\/traces\//, ''));
  const found = traces.get(id);
  return new Response(JSON.stringify(found ?? { error: `unknown trace id ${id}` }), {
    status: found ? 200 : 404,
    headers: { 'content-type': 'application/json' },
  });
};
const rag = new RagClient({ baseUrl: 'http://recorded.invalid', timeoutMs: 1000, fetch: recordedFetch });
const calibration = loadCalibration();

function startIdentifier(options: { publish?: (report: RootCauseReport) => Promise<void>; now?: () => number } = {}) {
  const docs = memoryStores();
  const store = new IncidentStore(docs, 'unit');
  const ledger = new EvidenceLedger(docs, 'unit');
  const reports: RootCauseReport[] = [];
  const make = () =>
    new Identifier({
      store,
      ledger,
      rag: { online: rag, baseline: rag },
      publishReport: options.publish ?? (async (report) => void reports.push(report)),
      calibration,
      policy: { acceptConfidence: 0.7, minResults: 2, maxWaitMs: 900_000 },
      groupWindowMs: 3_600_000,
      cleanRoundsToClose: 2,
      traceTimeoutMs: 1000,
      metrics: new IdentifierMetrics(new Registry()),
      logger: pino({ level: 'silent' }),
      tracer: trace.getTracer('unit'),
      ...(options.now ? { now: options.now } : {}),
    });
  return { identifier: make(), replica: make, store, ledger, reports };
}

const fresh = (result: ProbeResult, at = Date.now()): ProbeResult => ({ ...result, event_id: randomUUID(), occurred_at: at });
const anomalies = (kind: string) => runs.filter((r) => r.kind === kind && r.result.anomaly).map((r) => r.result);
const cleanOf = (result: ProbeResult, at: number): ProbeResult => ({
  ...result,
  event_id: randomUUID(),
  occurred_at: at,
  anomaly: false,
  anomaly_signals: [],
  severity: 'none',
});
const action = (report: RootCauseReport, status: RepairAction['status'], recovered: boolean | null = null): RepairAction => ({
  ...exampleRepairAction(report.incident_id),
  status,
  verification:
    recovered === null
      ? null
      : {
          probe_ids: [],
          fcs_before: 0.1,
          fcs_after: 0.9,
          ic_before: 0,
          ic_after: 1,
          kf_age_days_before: null,
          kf_age_days_after: null,
          recovered,
          outcome: 'unknown' as const,
          healed_probe_ids: [],
          unhealed_probe_ids: [],
          worsened_probe_ids: [],
        },
});

test('recorded reranker drift: one report naming the cause, every claim citing a ledger record of the incident; the chain verifies', async () => {
  const { identifier, store, ledger, reports } = startIdentifier();
  for (const result of anomalies('reranker-drift')) await identifier.handleProbeResult(fresh(result));
  assert.equal(reports.length, 1);
  const [report] = reports;
  assert.equal(report?.root_cause, 'reranker_drift');
  assert.equal(report?.affected_component, 'reranker');
  assert.deepEqual(report?.recommended_intents, ['rollback_reranker']);
  assert.ok(report!.claims.length > 0);
  const cited = report!.claims.flatMap((c) => c.evidence_ids);
  assert.equal((await ledger.existing(report!.incident_id, cited)).size, new Set(cited).size);
  assert.equal((await ledger.verify(report!.incident_id, (await store.get(report!.incident_id))!.doc.ledger_head)).ok, true);
  // The report carries the chain's head after its verdict record (the anchor Kafka keeps), and the ledger verifies against it.
  const head = (await store.get(report!.incident_id))!.doc.ledger_head;
  const anchor = report!.ledger_head!;
  assert.ok(anchor.seq > 0 && anchor.seq <= head.seq);
  const [anchored] = await ledger.recordsById(report!.incident_id, [anchor.hash]);
  assert.deepEqual({ kind: anchored?.kind, seq: anchored?.seq }, { kind: 'verdict', seq: anchor.seq });
  assert.equal((await ledger.verify(report!.incident_id, head, [anchor])).ok, true);
  const incident = (await store.get(report!.incident_id))!.doc;
  assert.equal(incident.state, 'reported');
  assert.equal(incident.pending_report, null, 'the outbox published and cleared it');
});

test('a replay of the same ProbeResults adds no ledger record and no report', async () => {
  const { identifier, replica, ledger, reports } = startIdentifier();
  const results = anomalies('reranker-drift').map((r) => fresh(r));
  for (const result of results) await identifier.handleProbeResult(result);
  const incidentId = reports[0]!.incident_id;
  const before = (await ledger.records(incidentId)).length;
  const again = replica();
  for (const result of results) await again.handleProbeResult(result);
  assert.equal((await ledger.records(incidentId)).length, before);
  assert.equal(reports.length, 1);
});

test('clean results open nothing', async () => {
  const { identifier, store, reports } = startIdentifier();
  for (const run of runs.filter((r) => r.kind === 'clean')) await identifier.handleProbeResult(fresh(run.result));
  assert.deepEqual(await store.list(), []);
  assert.deepEqual(reports, []);
});

test('repair feedback: planned → repairing, a verified success → verified; clean rounds then close it as repaired', async () => {
  const { identifier, store, reports } = startIdentifier();
  const results = anomalies('reranker-drift').map((r) => fresh(r));
  for (const result of results) await identifier.handleProbeResult(result);
  const report = reports[0]!;
  await identifier.handleRepairAction(action(report, 'planned'));
  assert.equal((await store.get(report.incident_id))?.doc.state, 'repairing');
  await identifier.handleRepairAction(action(report, 'succeeded', true));
  assert.equal((await store.get(report.incident_id))?.doc.state, 'verified');
  const probes = new Map(results.map((r) => [r.probe_id, r]));
  for (const round of [1, 2]) for (const r of probes.values()) await identifier.handleProbeResult(cleanOf(r, Date.now() + round * 1000));
  const closed = (await store.get(report.incident_id))!.doc;
  assert.equal(closed.state, 'closed');
  assert.equal(closed.resolution, 'repaired');
});

test('a "success" whose verification did not recover fails the incident; a replayed action changes nothing', async () => {
  const { identifier, store, reports } = startIdentifier();
  for (const result of anomalies('reranker-drift')) await identifier.handleProbeResult(fresh(result));
  const report = reports[0]!;
  await identifier.handleRepairAction(action(report, 'started'));
  const unrecovered = action(report, 'succeeded', false);
  await identifier.handleRepairAction(unrecovered);
  const after = (await store.get(report.incident_id))!.doc;
  assert.equal(after.state, 'failed');
  await identifier.handleRepairAction(unrecovered);
  assert.equal((await store.get(report.incident_id))!.doc.timeline.length, after.timeline.length);
});

test('a publish that fails leaves the report staged; the next delivery publishes it before anything else', async () => {
  let failing = true;
  const published: RootCauseReport[] = [];
  const { identifier, store } = startIdentifier({
    publish: async (report) => {
      if (failing) throw new Error('kafka down');
      published.push(report);
    },
  });
  const results = anomalies('reranker-drift').map((r) => fresh(r));
  let failed = 0;
  for (const result of results) await identifier.handleProbeResult(result).catch(() => (failed += 1));
  assert.ok(failed > 0);
  const [staged] = await store.list();
  assert.equal(staged?.pending_report?.report_revision, 1);
  failing = false;
  await identifier.handleProbeResult(cleanOf(results[0]!, Date.now() + 1000));
  assert.equal(published[0]?.event_id, staged?.pending_report?.event_id);
  assert.equal((await store.list())[0]?.pending_report, null);
});

test('two replicas on one store: concurrent anomalies on an open incident all join it (compare-and-set retries), no revision twice', async () => {
  const { identifier, replica, store, ledger, reports } = startIdentifier();
  const other = replica();
  const results = anomalies('reranker-drift').map((r) => fresh(r));
  await identifier.handleProbeResult(results[0]!);
  await Promise.all(results.slice(1).map((result, i) => (i % 2 === 0 ? identifier : other).handleProbeResult(result)));
  const incidents = await store.list();
  assert.equal(incidents.length, 1);
  assert.equal(incidents[0]?.probe_event_ids.length, results.length);
  assert.equal(new Set(reports.map((r) => r.report_revision)).size, reports.length, 'no revision reported twice');
  // The replica that lost the incident's compare-and-set never forked the evidence chain.
  const verified = await ledger.verify(incidents[0]!.incident_id, incidents[0]!.ledger_head);
  assert.deepEqual(verified.orphans, []);
  assert.equal(verified.ok, true, JSON.stringify(verified.problems));
  const cited = incidents[0]!.analyses.flatMap((a) => Object.values(a.evidence_ids).flatMap((ids) => ids ?? []));
  const served = new Set((await ledger.records(incidents[0]!.incident_id)).map((r) => r.record_id));
  assert.ok(
    cited.every((id) => served.has(id)),
    'an analysis cites evidence off the chain',
  );
});

/** A reranker-drift incident whose repair was verified at `verifiedAt`; `at(t)` moves the identifier's clock. */
async function verifiedDriftIncident() {
  let clock = Date.now();
  const started = startIdentifier({ now: () => clock });
  const drift = anomalies('reranker-drift').map((r) => fresh(r, clock));
  for (const result of drift) await started.identifier.handleProbeResult(result);
  const first = started.reports[0]!;
  await started.identifier.handleRepairAction(action(first, 'started'));
  await started.identifier.handleRepairAction(action(first, 'succeeded', true));
  const verifiedAt = clock;
  const at = (time: number) => {
    clock = time;
    return time;
  };
  return { ...started, drift, first, verifiedAt, at };
}

test('after a verified repair, a probe run begun since then opens a new incident (the old one closes as repaired); one begun before joins the old one', async () => {
  const { identifier, store, drift, first, verifiedAt, at } = await verifiedDriftIncident();
  // A run of one of its own probes that finished right after the verification began before it: the repaired fault.
  await identifier.handleProbeResult(fresh(drift[0]!, verifiedAt + 100));
  assert.equal((await store.list()).length, 1, 'a run begun before the verification joins the repaired incident');
  // A run that finished long after the verification, less its two RAG calls, began after it.
  const later = anomalies('vector-index-corruption')[0]!;
  await identifier.handleProbeResult(fresh(later, at(verifiedAt + 60_000)));
  const old = (await store.get(first.incident_id))!.doc;
  assert.equal(old.state, 'closed');
  assert.equal(old.resolution, 'repaired');
  const incidents = await store.list();
  assert.equal(incidents.length, 2);
  assert.ok(incidents.some((i) => i.incident_id !== first.incident_id && i.probe_event_ids.length === 1));
});

test("a probe still failing every few seconds after a verified repair does not move the verification's time: a run begun 5 s after it opens a new incident", async () => {
  const { identifier, store, drift, first, verifiedAt, at } = await verifiedDriftIncident();
  // One of its probes, run every 4 s: the first runs began before the verification (plus the margin) and join.
  for (const after of [2_000, 4_500]) await identifier.handleProbeResult(fresh(drift[0]!, at(verifiedAt + after)));
  assert.equal((await store.list()).length, 1);
  // This run began well after the verification: the repaired incident closes, a new one opens.
  await identifier.handleProbeResult(fresh(drift[0]!, at(verifiedAt + 8_500)));
  const old = (await store.get(first.incident_id))!.doc;
  assert.equal(old.state, 'closed', 'the anomalies noted after the verification pushed its time forward');
  assert.equal(old.resolution, 'repaired');
  assert.equal((await store.list()).length, 2);
});
