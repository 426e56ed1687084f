/**
 * GET /incidents/{id} as the effector reads it before acting on a report (issue 29): the incident's
 * latest report revision and event id, its probes and its window, with or without the evidence chain.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { exampleProbeResult, exampleRootCauseReport } from '@rag-immune/contracts';
import { memoryStores } from '@rag-immune/es-store';
import { workerHttpApp } from '@rag-immune/worker-runtime';
import { incidentRoutes } from '../../src/http/routes.ts';
import { newIncident } from '../../src/incidents/grouping.ts';
import { IncidentStore } from '../../src/incidents/incident-store.ts';
import type { EvidenceLedger } from '../../src/ledger/evidence-ledger.ts';

test('GET /incidents/{id} answers the report revision, last report, probes and window; ?evidence=false skips the ledger', async () => {
  const store = new IncidentStore(memoryStores(), 'unit');
  await store.ensureIndex();
  const id = 'inc-0123456789abcdef';
  const incident = newIncident(id, { ...exampleProbeResult(), occurred_at: 1_000 }, 2_000);
  incident.window_end = 5_000;
  incident.probes.push({
    probe_id: 'p-1',
    probe_version: 2,
    query: 'what is curl?',
    event_ids: ['e1'],
    last_anomaly_at: 5_000,
    clean_streak: 0,
  });
  incident.report_revision = 3;
  const report = { ...exampleRootCauseReport(id), report_revision: 3 };
  incident.pending_report = report;
  incident.last_report = {
    event_id: report.event_id,
    report_revision: 3,
    root_cause: report.root_cause,
    affected_component: report.affected_component,
    confidence: report.confidence,
  };
  await store.save(incident, null);
  let ledgerReads = 0;
  const verifyCalls: unknown[][] = [];
  const pageCalls: unknown[] = [];
  const ledger = {
    page: async (_id: string, options: unknown) => {
      ledgerReads += 1;
      pageCalls.push(options);
      return { records: [{ record_id: 'r1' }], next: { seq: 4, hash: 'a'.repeat(64) } };
    },
    verify: async (...args: unknown[]) => {
      verifyCalls.push(args);
      return { ok: true };
    },
  } as unknown as EvidenceLedger;
  const app = workerHttpApp({
    worker: 'identifier',
    registry: new Registry(),
    logger: pino({ level: 'silent' }),
    health: () => ({ ready: true }),
    routes: incidentRoutes(store, ledger),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const full = (await (await fetch(`${base}/incidents/${id}`)).json()) as { incident: Record<string, unknown>; evidence: unknown[] };
    assert.equal(ledgerReads, 1);
    assert.equal(full.evidence.length, 1);
    assert.equal(full.incident.report_revision, 3);
    assert.equal(full.incident.pending_report, undefined, 'the outbox stays internal');

    const lean = await fetch(`${base}/incidents/${id}?evidence=false`);
    assert.equal(lean.status, 200);
    const body = (await lean.json()) as { incident: Record<string, unknown>; evidence?: unknown };
    assert.equal(ledgerReads, 1, 'the ledger is not read');
    assert.equal(body.evidence, undefined);
    assert.equal(body.incident.incident_id, id);
    assert.equal(body.incident.report_revision, 3);
    assert.deepEqual(body.incident.last_report, incident.last_report);
    assert.equal(body.incident.window_start, 1_000);
    assert.equal(body.incident.window_end, 5_000);
    assert.deepEqual(
      (body.incident.probes as { probe_id: string; probe_version: number; query: string }[]).map(({ probe_id, probe_version, query }) => ({
        probe_id,
        probe_version,
        query,
      })),
      [{ probe_id: 'p-1', probe_version: 2, query: 'what is curl?' }],
    );
    assert.equal((await fetch(`${base}/incidents/inc-ffffffffffffffff?evidence=false`)).status, 404);

    // The evidence is paged: a limit, and the cursor of the older records.
    assert.equal((full as unknown as { evidence_next: string }).evidence_next, `4:${'a'.repeat(64)}`);
    await fetch(`${base}/incidents/${id}?evidence_limit=2&evidence_before=4:${'a'.repeat(64)}`);
    assert.deepEqual(pageCalls.at(-1), { limit: 2, anchor: incident.ledger_head, before: { seq: 4, hash: 'a'.repeat(64) } });
    assert.equal((await fetch(`${base}/incidents/${id}?evidence_limit=0`)).status, 400);
    // Verification against heads published in RootCauseReports (?anchor=<seq>:<hash>, repeatable).
    const anchored = await fetch(`${base}/incidents/${id}/ledger/verify?anchor=2:${'b'.repeat(64)}&anchor=3:${'c'.repeat(64)}`);
    assert.equal(anchored.status, 200);
    assert.deepEqual(verifyCalls.at(-1)?.[2], [
      { seq: 2, hash: 'b'.repeat(64) },
      { seq: 3, hash: 'c'.repeat(64) },
    ]);
    const bad = await fetch(`${base}/incidents/${id}/ledger/verify?anchor=nonsense`);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /invalid anchor/);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
