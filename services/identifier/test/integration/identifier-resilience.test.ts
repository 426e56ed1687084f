/**
 * The identifier in-process against real Kafka, schema registry and Elasticsearch, fed recorded
 * ProbeResults whose traces (real reference-RAG traces) a small server hands out under the RAG
 * contract: replaying the same ProbeResults adds no ledger record; tampering with one record makes
 * verification fail; undecodable events are dead-lettered; unfetchable, slow or malformed traces
 * become open questions; with Elasticsearch unreachable nothing is committed, and the events are
 * handled once it is back.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { pino } from 'pino';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startTelemetry, traceHeaders, type Telemetry } from '@rag-immune/worker-runtime';
import { topicNameOf, type EventBus } from '@rag-immune/bus';
import { exampleRepairAction, type ProbeResult, type RepairAction, type RootCauseReport } from '@rag-immune/contracts';
import { startIdentifierWorker, type IdentifierWorker } from '../../src/index.ts';
import { loadRecordedRuns } from '../fixtures/recorded-runs.ts';
import { MALFORMED_TRACE, SLOW_TRACE, serveRecordedTraces } from '@rag-immune/test-kit/identifier/recorded-rag';
import { sleep, waitFor } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import { cleanup, collectReports, identifierEnv, namespace, type Namespace } from '@rag-immune/test-kit/identifier/stack';

const logger = pino({ level: 'warn' });

/** The `immune` CLI as a process. */
function immune(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'apps/cli/src/main.ts', ...args], { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const runs = loadRecordedRuns();
const es = new Client({ node: endpoints.elasticsearchUrl });
let rag: Awaited<ReturnType<typeof serveRecordedTraces>>;
// One tracer provider for the whole file (OpenTelemetry registers the first one globally), with
// spans kept in memory so the trace-context test can look at them.
const spans = new InMemorySpanExporter();
let telemetry: Telemetry;
const namespaces: Namespace[] = [];
const buses: EventBus[] = [];

before(async () => {
  telemetry = startTelemetry('identifier', 'test', { env: {}, spanProcessors: [new SimpleSpanProcessor(spans)] });
  rag = await serveRecordedTraces(runs.flatMap((r) => [r.online_trace!, r.baseline_trace!]));
});

after(async () => {
  await Promise.all(buses.map((b) => b.stop()));
  await rag?.close();
  await Promise.all(namespaces.map((ns) => cleanup(ns)));
  await es.close();
  await telemetry?.shutdown();
});

async function setup(label: string, extra: Record<string, string> = {}) {
  const ns = namespace(label);
  namespaces.push(ns);
  const { reports, bus } = await collectReports(ns);
  buses.push(bus);
  const publisher = await bus.publisher();
  const env = identifierEnv(
    ns,
    { online: rag.url, baseline: rag.url },
    { IDENTIFIER_TRACE_TIMEOUT_MS: '1000', IDENTIFIER_MAX_WAIT_SECONDS: '2', ...extra },
  );
  return { ns, reports, bus, publisher, env };
}

async function ledgerCount(ns: Namespace, incidentId: string): Promise<number> {
  await es.indices.refresh({ index: `${ns.indexPrefix}-evidence-ledger` });
  return (await es.count({ index: `${ns.indexPrefix}-evidence-ledger`, query: { term: { incident_id: incidentId } } })).count;
}

/** Waits until the group has committed everything published to the probes topic. */
async function drained(ns: Namespace, bus: EventBus, group: string): Promise<void> {
  const admin = bus.kafka.admin();
  await admin.connect();
  try {
    const topic = topicNameOf(ns.busConfig, 'probes');
    await waitFor(
      `group ${group} to commit the probes topic`,
      async () => {
        const ends = await admin.fetchTopicOffsets(topic);
        const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
        const done = ends.every((end) => {
          const c = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
          return end.high === '0' || (c !== '-1' && Number(c) >= Number(end.high));
        });
        return done ? true : undefined;
      },
      30_000,
      500,
    );
  } finally {
    await admin.disconnect();
  }
}

const rerankerRuns = runs.filter((r) => r.kind === 'reranker-drift' && r.result.anomaly);
const fresh = (result: ProbeResult): ProbeResult => ({ ...result, event_id: randomUUID(), occurred_at: Date.now() });

test('recorded reranker drift → one report; a replay of the same ProbeResults adds no ledger record; a tampered record fails verification', async () => {
  const { ns, reports, publisher, env, bus } = await setup('idr');
  const results = rerankerRuns.map((r) => fresh(r.result));
  let worker: IdentifierWorker = await startIdentifierWorker(env, logger, { telemetry });
  try {
    await publisher.publishMany('probes', results);
    const report = await waitFor('a report', () => reports.find((r) => r.report_revision === 1), 30_000);
    assert.equal(report.root_cause, 'reranker_drift');
    assert.equal(report.affected_component, 'reranker');
    assert.deepEqual(report.recommended_intents, ['rollback_reranker']);
    await drained(ns, bus, env.IDENTIFIER_GROUP_ID!);
    const before = await ledgerCount(ns, report.incident_id);
    assert.ok(before > results.length);

    // A fresh replica (no in-memory dedupe) reads the same ProbeResults again.
    await worker.stop();
    worker = await startIdentifierWorker(env, logger, { telemetry });
    await publisher.publishMany('probes', results);
    await drained(ns, bus, env.IDENTIFIER_GROUP_ID!);
    assert.equal(await ledgerCount(ns, report.incident_id), before, 'the replay wrote ledger records');
    assert.equal(reports.filter((r) => r.incident_id === report.incident_id).length, 1, 'the replay produced another report');

    const url = `http://127.0.0.1:${worker.port}/incidents/${report.incident_id}`;
    const verified = (await (await fetch(`${url}/ledger/verify`)).json()) as { ok: boolean; records: number };
    assert.equal(verified.ok, true);
    assert.equal(verified.records, before);
    const shown = (await (await fetch(url)).json()) as {
      incident: { state: string; timeline: unknown[] };
      evidence: { record_id: string }[];
    };
    assert.equal(shown.incident.state, 'reported');
    for (const claim of report.claims) for (const id of claim.evidence_ids) assert.ok(shown.evidence.some((e) => e.record_id === id));

    const shownByCli = await immune(['incidents', 'show', report.incident_id, '--url', `http://127.0.0.1:${worker.port}`]);
    assert.equal(shownByCli.code, 0, shownByCli.stderr);
    assert.match(shownByCli.stdout, /Timeline:/);
    assert.match(shownByCli.stdout, /reported/);
    assert.match(shownByCli.stdout, new RegExp(`Evidence chain \\(${before} records`));
    const listed = await immune(['incidents', 'list', '--json', '--url', `http://127.0.0.1:${worker.port}`]);
    assert.equal((JSON.parse(listed.stdout) as { incident_id: string }[])[0]?.incident_id, report.incident_id);
    assert.equal((await immune(['ledger', 'verify', report.incident_id, '--url', `http://127.0.0.1:${worker.port}`])).code, 0);

    // Tamper with one record's figure.
    const victim = shown.evidence[1]!.record_id;
    await es.update({ index: `${ns.indexPrefix}-evidence-ledger`, id: victim, doc: { observed: 12345 }, refresh: true });
    const tampered = (await (await fetch(`${url}/ledger/verify`)).json()) as { ok: boolean; problems: { record_id: string }[] };
    assert.equal(tampered.ok, false);
    assert.ok(tampered.problems.some((p) => p.record_id === victim));
    const cliVerify = await immune(['ledger', 'verify', report.incident_id, '--url', `http://127.0.0.1:${worker.port}`]);
    assert.equal(cliVerify.code, 65, cliVerify.stdout);
    assert.match(cliVerify.stdout, /BROKEN/);
    // Create-only: the ledger refuses to overwrite an existing id.
    await assert.rejects(
      es.create({ index: `${ns.indexPrefix}-evidence-ledger`, id: victim, document: shown.evidence[1] as never }),
      /version_conflict|409/,
    );
  } finally {
    await worker.stop();
  }
});

test('undecodable and schema-invalid events go to the dead-letter topic; the worker keeps consuming', async () => {
  const { ns, bus, publisher, env, reports } = await setup('idd');
  const worker = await startIdentifierWorker(env, logger, { telemetry });
  const producer = bus.kafka.producer();
  const consumer = bus.kafka.consumer({ groupId: `it-dlq-${ns.run}` });
  try {
    await producer.connect();
    await producer.send({ topic: topicNameOf(ns.busConfig, 'probes'), messages: [{ key: 'x', value: Buffer.from('not avro at all') }] });
    const dead: { reason: string | undefined }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: topicNameOf(ns.busConfig, 'deadLetter'), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => void dead.push({ reason: message.headers?.['x-dead-letter-reason']?.toString() }),
    });
    await waitFor('a dead letter', () => (dead.length > 0 ? dead : undefined), 30_000);
    // Still consuming: a valid anomaly after the poison message is handled.
    await publisher.publishMany(
      'probes',
      rerankerRuns.map((r) => fresh(r.result)),
    );
    const report = await waitFor('a report after the poison message', () => reports[0], 30_000);
    assert.equal(report.root_cause, 'reranker_drift');
  } finally {
    await consumer.disconnect();
    await producer.disconnect();
    await worker.stop();
  }
});

test('traces that are missing, malformed or never answer become trace_unavailable open questions, never a cause', async () => {
  const { publisher, env, reports } = await setup('idt');
  const worker = await startIdentifierWorker(env, logger, { telemetry });
  try {
    const base = rerankerRuns[0]!.result;
    const withTrace = (id: string, probe: string): ProbeResult => ({
      ...fresh(base),
      probe_id: probe,
      online: { ...base.online, trace_id: id },
    });
    await publisher.publishMany('probes', [withTrace('no-such-trace', 'p-a'), withTrace(MALFORMED_TRACE, 'p-b')]);
    await sleep(2500);
    await publisher.publish('probes', withTrace(SLOW_TRACE, 'p-c'));
    const report: RootCauseReport = await waitFor('an abstaining report', () => reports[0], 30_000);
    assert.equal(report.root_cause, 'unknown');
    assert.equal(report.claims.length, 0);
    assert.deepEqual(report.open_questions.map((q) => q.kind).sort(), ['trace_unavailable', 'trace_unavailable', 'trace_unavailable']);
    assert.ok(report.open_questions.every((q) => q.evidence_ids.length === 1));
    assert.equal((await fetch(`http://127.0.0.1:${worker.port}/healthz`)).status, 200);
  } finally {
    await worker.stop();
  }
});

test('Elasticsearch unreachable: nothing is committed; the same events are handled once it is back', async () => {
  const { ns, bus, publisher, env, reports } = await setup('ides');
  const group = env.IDENTIFIER_GROUP_ID!;
  // Establish the group's offsets with a healthy worker first: a partition without a committed
  // offset starts at the latest one (bus default), so prime every partition the test will use by
  // sending clean results under the same keys (probe ids).
  let worker = await startIdentifierWorker(env, logger, { telemetry });
  const clean = runs.find((r) => r.kind === 'clean')!.result;
  await publisher.publishMany(
    'probes',
    rerankerRuns.map((r) => ({ ...fresh(clean), probe_id: r.result.probe_id })),
  );
  await drained(ns, bus, group);
  await worker.stop();

  worker = await startIdentifierWorker({ ...env, ELASTICSEARCH_URL: 'http://127.0.0.1:9' }, pino({ level: 'silent' }), { telemetry });
  const results = rerankerRuns.map((r) => fresh(r.result));
  await publisher.publishMany('probes', results);
  await sleep(8000);
  const admin = bus.kafka.admin();
  await admin.connect();
  const topic = topicNameOf(ns.busConfig, 'probes');
  const ends = await admin.fetchTopicOffsets(topic);
  const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  await admin.disconnect();
  const behind = ends.filter(
    (end) => Number(committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? -1) < Number(end.high),
  );
  assert.ok(behind.length > 0, 'offsets were committed while Elasticsearch was unreachable');
  assert.equal(reports.length, 0);
  await worker.stop();

  worker = await startIdentifierWorker(env, logger, { telemetry });
  try {
    const report = await waitFor('the report once Elasticsearch is back', () => reports[0], 60_000);
    assert.equal(report.root_cause, 'reranker_drift');
    assert.ok(report.probe_event_ids.every((id) => results.some((r) => r.event_id === id)));
    // Every event held back while Elasticsearch was away ends up in the incident: nothing lost.
    await waitFor(
      'every held-back ProbeResult in the incident',
      async () => {
        const incident = await worker.store.get(report.incident_id);
        const missing = results.filter((r) => !incident?.doc.probe_event_ids.includes(r.event_id));
        if (process.env.DEBUG_IDENTIFIER_TEST)
          console.log(
            missing.length,
            (await worker.store.list()).map((i) => [i.incident_id, i.state, i.probe_event_ids.length]),
          );
        return missing.length === 0 ? true : undefined;
      },
      30_000,
    );
  } finally {
    await worker.stop();
  }
});

test('repair lifecycle: actions move the incident to repairing and verified; anomalies meanwhile join it without a new report; clean rounds close it; a later anomaly opens a new incident', async () => {
  const { publisher, env, reports } = await setup('idl', { IDENTIFIER_CLEAN_ROUNDS_TO_CLOSE: '1' });
  const worker = await startIdentifierWorker(env, logger, { telemetry });
  try {
    const first = rerankerRuns.slice(0, 4).map((r) => fresh(r.result));
    await publisher.publishMany('probes', first);
    const report = await waitFor('a report', () => reports[0], 30_000);
    // Reported once the evidence sufficed (two results); every affected probe is one of ours.
    assert.ok(report.affected_probes.length >= 2);
    assert.ok(report.affected_probes.every((p) => first.some((r) => r.probe_id === p.probe_id && r.query === p.query)));
    const state = async () => (await worker.store.get(report.incident_id))?.doc;
    const action = (status: RepairAction['status'], recovered: boolean | null = null): RepairAction => {
      const template = exampleRepairAction(report.incident_id);
      return {
        ...template,
        action_id: 'a-1',
        report_event_id: report.event_id,
        status,
        verification: recovered === null ? null : { ...template.verification!, recovered },
      };
    };
    await publisher.publishMany('actions', [action('planned'), action('started')]);
    await waitFor('repairing', async () => ((await state())?.state === 'repairing' ? true : undefined), 20_000);

    // An anomaly while repairing belongs to the incident; the verdict is unchanged, so no report.
    const during = fresh(rerankerRuns[4]!.result);
    await publisher.publish('probes', during);
    await waitFor(
      'the anomaly joined',
      async () => ((await state())?.probe_event_ids.includes(during.event_id) ? true : undefined),
      20_000,
    );
    assert.equal((await state())?.state, 'repairing');
    assert.equal(reports.length, 1);

    await publisher.publish('actions', action('succeeded', true));
    await waitFor('verified', async () => ((await state())?.state === 'verified' ? true : undefined), 20_000);

    // Clean results of every probe of the incident close it.
    const clean = runs.find((r) => r.kind === 'clean')!.result;
    const probeIds = (await state())!.probes.map((p) => p.probe_id);
    await publisher.publishMany(
      'probes',
      probeIds.map((probeId) => ({ ...fresh(clean), probe_id: probeId })),
    );
    const closed = await waitFor('closed', async () => ((await state())?.state === 'closed' ? state() : undefined), 20_000);
    assert.equal(closed!.resolution, 'repaired');
    assert.deepEqual(
      closed!.timeline.map((t) => t.state).filter((s, i, all) => all[i - 1] !== s),
      ['open', 'diagnosing', 'reported', 'repairing', 'verified', 'closed'],
    );

    // After closure, a new anomaly is a new incident with its own report.
    await publisher.publishMany(
      'probes',
      rerankerRuns.slice(0, 3).map((r) => fresh(r.result)),
    );
    const second = await waitFor('a second report', () => reports.find((r) => r.incident_id !== report.incident_id), 30_000);
    assert.equal(second.report_revision, 1);
  } finally {
    await worker.stop();
  }
});

test('identifier.analyze continues the trace context the ProbeResult carried in its Kafka headers', async () => {
  const { publisher, env } = await setup('idc');
  const worker = await startIdentifierWorker(env, logger, { telemetry });
  try {
    const result = fresh(rerankerRuns[0]!.result);
    const traceId = await trace.getTracer('sentinel-test').startActiveSpan('sentinel.publish', async (span) => {
      await publisher.publishMany('probes', [result], undefined, () => traceHeaders());
      span.end();
      return span.spanContext().traceId;
    });
    const analyze = await waitFor(
      'an identifier.analyze span',
      () => spans.getFinishedSpans().find((s) => s.name === 'identifier.analyze' && s.attributes.probe_event_id === result.event_id),
      30_000,
    );
    assert.equal(analyze.spanContext().traceId, traceId);
  } finally {
    await worker.stop();
  }
});
