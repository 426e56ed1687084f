/**
 * A RAG with no /traces is diagnosed from its OTLP spans alone. The reference RAG pair runs with
 * GET /traces switched off and exports OpenInference spans to the trace intake (real Elasticsearch);
 * identifier B (auto: the RAGs' capabilities say `otlp`) reads them from the intake. Identifier A
 * reads the same probe results through /traces, served by a view of the same RAGs' recorded traces
 * (what their endpoint would answer). Both consume the same ProbeResults from Kafka: a vector-index
 * corruption gets the same cause, the same confidence and the same detector measurements.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import type { EventBus } from '@rag-immune/bus';
import { callFaultAdmin } from '@rag-immune/rag-contract';
import { loadQuestions, startReferenceRagPair, type ReferenceRag, type ReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { selectProbes } from '@rag-immune/test-kit/identifier/scenarios';
import { ProbeDriver } from '@rag-immune/test-kit/identifier/probe-driver';
import { waitFor } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import {
  cleanup,
  collectReports,
  identifierEnv,
  namespace,
  spawnIdentifier,
  spawnTraceIntake,
  type ServiceProcess,
} from '@rag-immune/test-kit/identifier/stack';

const ns = namespace('idt');
const logger = pino({ level: 'warn' });
let intake: ServiceProcess;
let rags: ReferenceRagPair;
let bus: EventBus;
let driver: ProbeDriver;
const identifiers: Record<'endpoint' | 'intake', Awaited<ReturnType<typeof spawnIdentifier>> | undefined> = {
  endpoint: undefined,
  intake: undefined,
};
const views: Server[] = [];

/** GET /traces of one RAG's recorded traces, as its endpoint would serve them; /knowledge passes through. */
async function endpointView(rag: ReferenceRag, url: string): Promise<string> {
  const app = express();
  app.get('/traces/:id', (req, res) => {
    const recorded = rag.service.trace(req.params.id);
    if (recorded) res.json(recorded);
    else res.status(404).json({ error: 'unknown trace id' });
  });
  app.get('/knowledge/:id', async (req, res) => {
    const upstream = await fetch(`${url}/knowledge/${encodeURIComponent(req.params.id)}`);
    res
      .status(upstream.status)
      .type('application/json')
      .send(await upstream.text());
  });
  const server = app.listen(0, '127.0.0.1');
  views.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

before(async () => {
  intake = await spawnTraceIntake({
    TRACE_INTAKE_PORT: '0',
    ELASTICSEARCH_URL: endpoints.elasticsearchUrl,
    ES_INDEX_PREFIX: `${ns.indexPrefix}-i`,
  });
  rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages: 25,
    label: 'it-idt',
    logger,
    otlpTracesUrl: `http://127.0.0.1:${intake.port}/v1/traces`,
    tracesEndpoint: 'disabled',
  });
  // The reports topic is the namespace's; the comparison reads each identifier's own incident store.
  ({ bus } = await collectReports(ns));
  const probes = selectProbes(loadQuestions(), rags.knowledgeIds, 6, ns.run);
  driver = await ProbeDriver.create({ online: rags.onlineUrl, baseline: rags.baselineUrl }, probes as never, await bus.publisher());
  const view = { online: await endpointView(rags.online, rags.onlineUrl), baseline: await endpointView(rags.baseline, rags.baselineUrl) };
  identifiers.endpoint = await spawnIdentifier(
    identifierEnv(ns, view, {
      IDENTIFIER_TRACE_SOURCE: 'endpoint',
      ES_INDEX_PREFIX: `${ns.indexPrefix}-a`,
      IDENTIFIER_GROUP_ID: `it-idt-a-${ns.run}`,
    }),
  );
  identifiers.intake = await spawnIdentifier(
    identifierEnv(
      ns,
      { online: rags.onlineUrl, baseline: rags.baselineUrl },
      {
        ES_INDEX_PREFIX: `${ns.indexPrefix}-b`,
        IDENTIFIER_INTAKE_INDEX_PREFIX: `${ns.indexPrefix}-i`,
        // Spans come in exporter batches; on a loaded CI machine 15 s once was not enough for one probe's.
        IDENTIFIER_INTAKE_WAIT_MS: '30000',
        IDENTIFIER_GROUP_ID: `it-idt-b-${ns.run}`,
      },
    ),
  );
});

after(async () => {
  await identifiers.endpoint?.stop();
  await identifiers.intake?.stop();
  for (const server of views) server.close();
  await bus?.stop();
  await rags?.close();
  await intake?.stop();
  await cleanup(ns);
});

interface IncidentView {
  incident: {
    incident_id: string;
    state: string;
    probe_event_ids: string[];
    /** The verdict over every analysis so far (the report revisions depend on the order partitions were read in). */
    verdict: { outcome: string; root_cause: string; component: string; confidence: number } | null;
    last_report: { root_cause: string; affected_component: string; confidence: number; report_revision: number } | null;
  };
  evidence: {
    kind: string;
    probe_event_id: string | null;
    detector: string | null;
    metric: string;
    subject: string;
    observed: number;
    baseline: number | null;
    detail: Record<string, unknown>;
  }[];
}

async function reported(side: 'endpoint' | 'intake'): Promise<IncidentView | undefined> {
  const base = `http://127.0.0.1:${identifiers[side]!.port}`;
  const { incidents } = (await (await fetch(`${base}/incidents`)).json()) as { incidents: { incident_id: string }[] };
  for (const { incident_id } of incidents) {
    const view = (await (await fetch(`${base}/incidents/${incident_id}`)).json()) as IncidentView;
    if (view.incident.last_report !== null) return view;
  }
  return undefined;
}

test('the RAGs serve no /traces and say so; a vector-index corruption is diagnosed from intake traces as through /traces', async () => {
  const refused = await fetch(`${rags.onlineUrl}/traces/anything`);
  assert.equal(refused.status, 404);
  assert.match(((await refused.json()) as { error: string }).error, /RAG_TRACES_ENDPOINT=disabled/);
  assert.equal(((await (await fetch(`${rags.baselineUrl}/capabilities`)).json()) as { traces: string }).traces, 'otlp');

  const clean = await driver.round();
  assert.deepEqual(
    clean.filter((r) => r.anomaly).map((r) => r.probe_id),
    [],
    'a clean round first',
  );

  const ids = [...new Set(driver.probes.map((p) => p.expected_sources[0] as string))];
  await callFaultAdmin(rags.onlineUrl, 'POST', 'vector-index-corruption', { mode: 'zero', scope: { knowledge_ids: ids } });
  let views: { endpoint?: IncidentView; intake?: IncidentView } = {};
  try {
    for (let round = 0; round < 4 && !(views.endpoint && views.intake); round += 1) {
      const results = await driver.round();
      assert.ok(results.every((r) => r.online.traceparent !== null && r.baseline.traceparent !== null));
      views = await waitFor(
        'both identifiers reported',
        async () => {
          const [endpoint, intakeView] = await Promise.all([reported('endpoint'), reported('intake')]);
          return endpoint && intakeView ? { endpoint, intake: intakeView } : undefined;
        },
        30_000,
      ).catch(() => ({}));
    }
  } finally {
    await callFaultAdmin(rags.onlineUrl, 'DELETE', 'vector-index-corruption');
  }
  assert.ok(views.endpoint && views.intake, 'both identifiers reported');
  // Compare once both have analysed the same probe results (the intake path waits for span batches).
  const { a, b } = await waitFor(
    'both identifiers analysed the same probe results',
    async () => {
      const [endpoint, intakeView] = await Promise.all([reported('endpoint'), reported('intake')]);
      // The same results grouped, and each one's evidence written on both sides (an identifier adds a
      // result to its incident before its ledger records are all readable).
      const analysed = (x: IncidentView) => [...new Set(x.evidence.map((r) => r.probe_event_id))].sort().join();
      const same = (x: IncidentView, y: IncidentView) =>
        [...x.incident.probe_event_ids].sort().join() === [...y.incident.probe_event_ids].sort().join() && analysed(x) === analysed(y);
      return endpoint && intakeView && same(endpoint, intakeView) ? { a: endpoint, b: intakeView } : undefined;
    },
    90_000,
    1000,
  );
  // The same diffs: every detector measurement is identical.
  const measurements = (view: IncidentView) =>
    view.evidence
      .filter((r) => r.kind === 'measurement')
      .map((r) => `${r.probe_event_id} ${r.detector ?? '-'} ${r.metric} ${r.subject} ${r.observed} ${r.baseline}`)
      .sort();
  assert.ok(measurements(a).length > 0);
  // First: an intake trace missing or incomplete (its reason is in the record) explains a probe
  // without measurements on the intake side, and says why.
  assert.deepEqual(
    b.evidence.filter((r) => r.kind === 'trace_unavailable').map((r) => r.detail.problem),
    [],
    'no intake trace was missing',
  );
  assert.deepEqual(measurements(b), measurements(a));
  // So the same verdict over the same analyses. (Report revisions may differ in number: each
  // identifier read the 16 probe partitions in its own interleaving, and a revision is cut when
  // the verdict changes along the way.)
  const [throughEndpoint, fromIntake] = [a.incident.verdict!, b.incident.verdict!];
  console.log(
    `through /traces: ${throughEndpoint.root_cause} ${throughEndpoint.confidence.toFixed(4)} (report rev ${a.incident.last_report!.report_revision}); ` +
      `from the intake: ${fromIntake.root_cause} ${fromIntake.confidence.toFixed(4)} (report rev ${b.incident.last_report!.report_revision})`,
  );
  assert.equal(throughEndpoint.root_cause, 'vector_index_corruption');
  assert.equal(a.incident.last_report!.root_cause, 'vector_index_corruption');
  assert.equal(b.incident.last_report!.root_cause, 'vector_index_corruption');
  assert.deepEqual(
    { ...fromIntake, confidence: fromIntake.confidence.toFixed(9) },
    { ...throughEndpoint, confidence: throughEndpoint.confidence.toFixed(9) },
  );
  const divergence = b.evidence.find((r) => r.metric === 'first_diverging_layer')!;
  assert.deepEqual(divergence.detail.trace_source, { online: 'intake', baseline: 'intake' });
});
