/**
 * A persistent fault keeps an incident's group window sliding: its document must stay bounded (the
 * most recent ids, analyses and timeline entries, with counts of the dropped ones) and its reports
 * must carry recent probe event ids only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { trace } from '@opentelemetry/api';
import type { ProbeResult, RootCauseReport } from '@rag-immune/contracts';
import { memoryStores } from '@rag-immune/es-store';
import { RagClient, type Trace } from '@rag-immune/rag-contract';
import {
  EvidenceLedger,
  Identifier,
  IdentifierMetrics,
  IncidentStore,
  REPORT_MAX_PROBE_EVENT_IDS,
  loadCalibration,
  rollIncident,
  type Incident,
  type IncidentCaps,
  type Verdict,
} from '../../src/index.ts';
import { buildReport } from '../../src/report/report-builder.ts';
import { newIncident } from '../../src/incidents/grouping.ts';
import { loadRecordedRuns } from '../fixtures/recorded-runs.ts';

const runs = loadRecordedRuns();
const traces = new Map<string, Trace>(runs.flatMap((r) => [r.online_trace!, r.baseline_trace!]).map((t) => [t.trace_id, t]));
const recordedFetch: typeof fetch = async (input) => {
  const found = traces.get(decodeURIComponent(String(input).replace(/^.*\/traces\//, '')));
  return new Response(JSON.stringify(found ?? { error: 'unknown trace id' }), {
    status: found ? 200 : 404,
    headers: { 'content-type': 'application/json' },
  });
};
const rag = new RagClient({ baseUrl: 'http://recorded.invalid', timeoutMs: 1000, fetch: recordedFetch });

const CAPS: IncidentCaps = { probeEventIds: 12, probeEventIdsPerProbe: 4, analyses: 6, timeline: 10 };

test('a persistent fault: the incident document keeps the most recent ids, analyses and timeline entries, counting the rest', async () => {
  const docs = memoryStores();
  const store = new IncidentStore(docs, 'caps');
  const reports: RootCauseReport[] = [];
  const identifier = new Identifier({
    store,
    ledger: new EvidenceLedger(docs, 'caps'),
    rag: { online: rag, baseline: rag },
    publishReport: async (report) => void reports.push(report),
    calibration: loadCalibration(),
    policy: { acceptConfidence: 0.7, minResults: 2, maxWaitMs: 900_000 },
    groupWindowMs: 3_600_000,
    cleanRoundsToClose: 2,
    traceTimeoutMs: 1000,
    metrics: new IdentifierMetrics(new Registry()),
    logger: pino({ level: 'silent' }),
    tracer: trace.getTracer('unit'),
    incidentCaps: CAPS,
  });
  const anomalies = runs.filter((r) => r.kind === 'reranker-drift' && r.result.anomaly).map((r) => r.result);
  const sent: ProbeResult[] = [];
  const start = Date.now();
  for (let i = 0; i < 40; i++) {
    const result = { ...anomalies[i % anomalies.length]!, event_id: randomUUID(), occurred_at: start + i * 1000 };
    sent.push(result);
    await identifier.handleProbeResult(result);
  }
  const incidents = await store.list();
  assert.equal(incidents.length, 1, 'one incident: the window slid');
  const incident = incidents[0]!;
  assert.deepEqual(
    incident.probe_event_ids,
    sent.slice(-CAPS.probeEventIds).map((r) => r.event_id),
  );
  assert.ok(incident.probes.every((p) => p.event_ids.length <= CAPS.probeEventIdsPerProbe));
  assert.deepEqual(
    incident.analyses.map((a) => a.probe_event_id),
    sent.slice(-CAPS.analyses).map((r) => r.event_id),
  );
  assert.ok(incident.timeline.length <= CAPS.timeline);
  assert.deepEqual(incident.dropped?.probe_event_ids, 40 - CAPS.probeEventIds);
  assert.deepEqual(incident.dropped?.analyses, 40 - CAPS.analyses);
  assert.ok(incident.dropped!.timeline > 0);
  assert.equal(incident.window_start, start, 'the window still spans the whole incident');
  assert.equal(reports[0]?.root_cause, 'reranker_drift', 'still diagnosed');
  for (const report of reports) assert.ok(report.probe_event_ids.every((id) => sent.some((r) => r.event_id === id)));
  // A replay of a recent result is still recognised.
  await identifier.handleProbeResult(sent.at(-1)!);
  assert.equal((await store.get(incident.incident_id))!.doc.dropped?.probe_event_ids, 40 - CAPS.probeEventIds);
});

function bigIncident(n: number): Incident {
  const first = runs.find((r) => r.result.anomaly)!.result;
  const incident = newIncident('inc-big', first, 0);
  for (let i = 0; i < n; i++) {
    const id = `e-${i}`;
    incident.probe_event_ids.push(id);
    incident.timeline.push({ at: i, event: 'anomaly', state: 'diagnosing', detail: { probe_event_id: id } });
  }
  incident.timeline.splice(5, 0, { at: 5, event: 'repair_succeeded', state: 'verified', detail: {} });
  return incident;
}

test('rolling keeps the latest verified entry of the timeline and drops anomaly entries first', () => {
  const incident = bigIncident(20_000);
  assert.equal(rollIncident(incident), true);
  assert.equal(incident.probe_event_ids.length, 1000);
  assert.equal(incident.probe_event_ids[0], 'e-19000');
  assert.equal(incident.timeline.length, 400);
  assert.ok(
    incident.timeline.some((t) => t.state === 'verified'),
    'the verified entry stays',
  );
  assert.equal(incident.timeline.filter((t) => t.event !== 'anomaly').length, 2, 'opened and verified stay');
  assert.equal(incident.dropped?.timeline, 20_002 - 400);
  assert.equal(rollIncident(incident), false, 'nothing more to drop');
});

test('a report carries the most recent probe event ids only, far below the bus array limit', () => {
  const incident = bigIncident(20_000);
  const verdict = {
    outcome: 'cause',
    root_cause: 'reranker_drift',
    component: 'reranker',
    confidence: 0.9,
    best_cause: 'reranker_drift',
    open_questions: [],
    knowledge_ids: [],
  } as unknown as Verdict;
  const report = buildReport(incident, verdict, 1, [], Date.now());
  assert.equal(report.probe_event_ids.length, REPORT_MAX_PROBE_EVENT_IDS);
  assert.ok(REPORT_MAX_PROBE_EVENT_IDS < 10_000);
  assert.equal(report.probe_event_ids.at(-1), 'e-19999');
  assert.ok(JSON.stringify(report).length < 100_000);
});
