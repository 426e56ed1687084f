/**
 * The identifier as its own process (npx tsx services/identifier/src/main.ts) against the real
 * stack: a reference RAG pair (online + baseline, vectors in qdrant-local), real FCS scoring,
 * Kafka + schema registry for ProbeResults and RootCauseReports, Elasticsearch for incidents and
 * the evidence ledger. Clean rounds produce no report; each of the six faults is named with the
 * right cause and component; the evaluation-only seventh fault is never given a wrong cause with
 * high confidence; clean rounds after an undo close the incident.
 */
import { callFaultAdmin } from '@rag-immune/rag-contract';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { exampleRepairAction, type RootCauseReport } from '@rag-immune/contracts';
import type { EventBus } from '@rag-immune/bus';
import { loadQuestions, startReferenceRagPair, type ReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { FAULT_SCENARIOS, STALE_AS_OF, selectProbes } from '@rag-immune/test-kit/identifier/scenarios';
import { ProbeDriver } from '@rag-immune/test-kit/identifier/probe-driver';
import { waitFor } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import { cleanup, collectReports, identifierEnv, namespace, spawnIdentifier } from '@rag-immune/test-kit/identifier/stack';

const ns = namespace('idf');
const logger = pino({ level: 'warn' });
let rags: ReferenceRagPair;
let bus: EventBus;
let reports: RootCauseReport[];
let driver: ProbeDriver;
let identifier: Awaited<ReturnType<typeof spawnIdentifier>>;
let base: string;

before(async () => {
  rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages: 25,
    label: 'it-identifier',
    logger,
  });
  ({ reports, bus } = await collectReports(ns));
  const probes = selectProbes(loadQuestions(), rags.knowledgeIds, 10, ns.run);
  driver = await ProbeDriver.create({ online: rags.onlineUrl, baseline: rags.baselineUrl }, probes as never, await bus.publisher());
  identifier = await spawnIdentifier(identifierEnv(ns, { online: rags.onlineUrl, baseline: rags.baselineUrl }));
  base = `http://127.0.0.1:${identifier.port}`;
});

after(async () => {
  await identifier?.stop();
  await bus?.stop();
  await rags?.close();
  await cleanup(ns);
});

async function incidents(): Promise<{ incident_id: string; state: string; root_cause: string | null }[]> {
  const response = await fetch(`${base}/incidents`);
  return ((await response.json()) as { incidents: { incident_id: string; state: string; root_cause: string | null }[] }).incidents;
}

test('clean rounds: no incident, no report', async () => {
  for (let round = 0; round < 2; round += 1) {
    const results = await driver.round();
    assert.deepEqual(
      results.filter((r) => r.anomaly).map((r) => `${r.probe_id} ${r.anomaly_signals.join(',')}`),
      [],
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 2000));
  assert.equal(reports.length, 0);
  assert.deepEqual(await incidents(), []);
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
});

const scenarios = [
  ...FAULT_SCENARIOS.filter((s, i, all) => all.findIndex((o) => o.kind === s.kind) === i && s.cause !== 'unknown'),
  ...FAULT_SCENARIOS.filter((s) => s.cause === 'unknown'),
];

for (const scenario of scenarios) {
  test(`${scenario.kind} (${scenario.mode}) → ${scenario.cause} / ${scenario.components.join('|')}; clean rounds after the undo close the incident`, async () => {
    const ids = [...new Set(driver.probes.map((p) => p.expected_sources[0] as string))];
    const body =
      scenario.kind === 'knowledge-source-failure'
        ? { mode: 'stale', stale_as_of: STALE_AS_OF, scope: { knowledge_ids: ids } }
        : scenario.kind === 'generator-inconsistency' || scenario.kind === 'parser-bug' || scenario.kind === 'vector-index-corruption'
          ? { mode: scenario.mode === 'swap' ? undefined : scenario.mode, scope: { knowledge_ids: ids } }
          : scenario.body(ids, ns.run);
    const seen = reports.length;
    await callFaultAdmin(rags.onlineUrl, 'POST', scenario.kind, body);
    let report: RootCauseReport | undefined;
    try {
      for (let round = 0; round < 4 && report === undefined; round += 1) {
        await driver.round();
        report = await waitFor('a report', () => reports.slice(seen).find((r) => r.report_revision === 1), 5000).catch(() => undefined);
      }
    } finally {
      await callFaultAdmin(rags.onlineUrl, 'DELETE', scenario.kind);
    }
    assert.ok(report, `no report for ${scenario.kind}`);
    console.log(
      `${scenario.kind}: ${report.root_cause}/${report.affected_component} confidence ${report.confidence.toFixed(3)}, ` +
        `${report.claims.length} claims, open ${report.open_questions.map((q) => q.kind).join(',') || '-'}`,
    );
    if (scenario.cause === 'unknown') {
      assert.ok(report.root_cause === 'unknown' || report.confidence < 0.5, `wrong cause ${report.root_cause} at ${report.confidence}`);
    } else {
      assert.equal(report.root_cause, scenario.cause);
      assert.ok(scenario.components.includes(report.affected_component), report.affected_component);
      assert.ok(report.claims.length > 0 && report.claims.every((c) => c.evidence_ids.length > 0));
      assert.ok(report.recommended_intents.length > 0);
    }
    assert.ok(
      report.affected_probes.length > 0 &&
        report.affected_probes.every((p) => driver.probes.some((q) => q.id === p.probe_id && q.query === p.query)),
    );
    // Clean rounds close it; no further revision for the same verdict.
    for (let round = 0; round < 3; round += 1) {
      await driver.round();
      const state = (await incidents()).find((i) => i.incident_id === report.incident_id)?.state;
      if (state === 'closed') break;
    }
    const closed = await waitFor(
      'the incident closed',
      async () => ((await incidents()).find((i) => i.incident_id === report.incident_id && i.state === 'closed') ? true : undefined),
      10_000,
    );
    assert.ok(closed);
    // One verdict per incident: a later revision keeps the primary cause and either widens a finding's
    // knowledge scope (the effector's scoped repair must cover it) or names a cause found beside it
    // (the effector repairs per cause). Seen in CI and here (2026-12-05, stale, 1 run in about 10): one
    // probe's result arrived after the first report and fitted vector_index_corruption on its own
    // (changelog/tzdata, which the stale snapshot does hold), so revision 3 named it beside the source
    // failure. A second cause for one fault is a misreading the effector would act on too; it is printed
    // here and reported as open, not hidden.
    const revisions = reports.filter((r) => r.incident_id === report.incident_id).sort((a, b) => a.report_revision - b.report_revision);
    const describe = (r: RootCauseReport) =>
      `#${r.report_revision} ${r.root_cause} ids ${r.affected_knowledge_ids.join(',')} findings ` +
      r.findings.map((f) => `${f.root_cause}[${f.affected_knowledge_ids.join(',')}]`).join(' ') +
      ` unexplained ${r.unexplained_probes.length}`;
    const scopeOf = (r: RootCauseReport) =>
      new Set([...r.affected_knowledge_ids, ...r.findings.flatMap((f) => f.affected_knowledge_ids.map((id) => `${f.root_cause}:${id}`))]);
    const causesOf = (r: RootCauseReport) =>
      r.findings
        .map((f) => f.root_cause)
        .sort()
        .join(',');
    assert.ok(
      revisions.every((r) => r.root_cause === report.root_cause && r.affected_component === report.affected_component),
      `revisions: ${revisions.map(describe).join('; ')}`,
    );
    const named = new Set<string>();
    revisions.forEach((revision, i) => {
      const scope = scopeOf(revision);
      if (i > 0)
        assert.ok(
          [...scope].some((id) => !named.has(id)) || causesOf(revision) !== causesOf(revisions[i - 1]!),
          `revision ${revision.report_revision} neither widens a scope nor changes the causes: ${revisions.map(describe).join('; ')}`,
        );
      scope.forEach((id) => named.add(id));
    });
    const secondary = revisions.flatMap((r) => r.findings.slice(1).map((f) => `#${r.report_revision} ${f.root_cause}`));
    if (secondary.length > 0) console.log(`${scenario.kind}: a cause found beside ${report.root_cause}: ${secondary.join(', ')}`);
    if (report.affected_knowledge_ids.length === 0) assert.equal(revisions.length, 1, 'a global cause gets one report');
    const verify = (await (await fetch(`${base}/incidents/${report.incident_id}/ledger/verify`)).json()) as {
      ok: boolean;
      records: number;
    };
    assert.equal(verify.ok, true);
    assert.ok(verify.records > 0);
  });
}

// A second fault after a repair was verified (main's red CI, 2026-12-02: the dashboard test healed a
// vector-index corruption, then injected an embedding swap into the same RAG, and nothing ever
// escalated it). The swap's anomalies joined the repaired incident, diluted its reported cause, and
// the identifier held its abstention back, so the swap was never reported. Now a probe run begun after
// the verification opens an incident of its own, diagnosed from its own evidence.
test('a fault after a verified repair gets an incident of its own; the repaired one closes as repaired', async () => {
  const ids = [...new Set(driver.probes.slice(0, 2).map((p) => p.expected_sources[0] as string))];
  const seen = reports.length;
  await callFaultAdmin(rags.onlineUrl, 'POST', 'vector-index-corruption', { mode: 'zero', scope: { knowledge_ids: ids } });
  let first: RootCauseReport | undefined;
  try {
    for (let round = 0; round < 4 && first === undefined; round += 1) {
      await driver.round();
      first = await waitFor('a report', () => reports.slice(seen).find((r) => r.report_revision === 1), 5000).catch(() => undefined);
    }
  } finally {
    // The "repair": the fault is undone and the effector's verified success is published.
    await callFaultAdmin(rags.onlineUrl, 'DELETE', 'vector-index-corruption');
  }
  assert.ok(first, 'no report for the vector-index corruption');
  assert.equal(first.root_cause, 'vector_index_corruption');
  const repaired = first.affected_probes.map((p) => p.probe_id);
  const publisher = await bus.publisher();
  const action = {
    ...exampleRepairAction(first.incident_id),
    report_event_id: first.event_id,
    intent: 'rebuild_index_incremental' as const,
    tool: 'reindex_knowledge',
    arguments: { knowledge_ids: first.affected_knowledge_ids.join(',') },
    snapshot_id: null,
  };
  await publisher.publishMany('actions', [
    { ...action, event_id: randomUUID(), status: 'started', verification: null },
    {
      ...action,
      event_id: randomUUID(),
      verification: { ...exampleRepairAction().verification!, probe_ids: repaired, recovered: true },
    },
  ]);
  await waitFor(
    'the incident verified',
    async () => ((await incidents()).find((i) => i.incident_id === first.incident_id && i.state === 'verified') ? true : undefined),
    15_000,
  );

  // The next fault comes later than a probe run begun before the verification could still finish (the
  // identifier's 5 s margin); runs that began before it are evidence of the repaired fault.
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const afterRepair = reports.length;
  await callFaultAdmin(rags.onlineUrl, 'POST', 'embedding-model-swap', { scope: { seed: ns.run } });
  let second: RootCauseReport | undefined;
  const swapped: string[] = [];
  try {
    for (let round = 0; round < 4 && second === undefined; round += 1) {
      swapped.push(...(await driver.round()).filter((r) => r.anomaly).map((r) => r.probe_id));
      second = await waitFor(
        'a report on another incident',
        () => reports.slice(afterRepair).find((r) => r.incident_id !== first.incident_id),
        5000,
      ).catch(() => undefined);
    }
  } finally {
    await callFaultAdmin(rags.onlineUrl, 'DELETE', 'embedding-model-swap');
  }
  const fresh = [...new Set(swapped)].filter((id) => !repaired.includes(id));
  assert.ok(
    fresh.length > 0,
    `the swap touched only the repaired incident's probes (${[...new Set(swapped)].join(', ')}): the test proves nothing`,
  );
  assert.ok(
    second,
    `no report on a new incident after the swap; the repaired incident got ${reports.slice(afterRepair).length} revision(s): ` +
      reports
        .slice(afterRepair)
        .map((r) => `#${r.report_revision} ${r.root_cause} ${r.confidence.toFixed(2)}`)
        .join('; '),
  );
  // The swap is the evaluation-only fault no detector was designed for: never a confident wrong cause.
  assert.ok(second.root_cause === 'unknown' || second.confidence < 0.5, `swap reported as ${second.root_cause} at ${second.confidence}`);
  assert.ok(
    second.affected_probes.every((p) => swapped.includes(p.probe_id)),
    'the new incident holds only what the swap broke',
  );
  const states = await incidents();
  assert.equal(states.find((i) => i.incident_id === first.incident_id)?.state, 'closed', 'the repaired incident closed');
  assert.ok(
    reports.slice(afterRepair).every((r) => r.incident_id !== first.incident_id),
    'the repaired incident got no revision from the swap',
  );
  // Leave a clean RAG for later files: clean rounds close the swap's incident.
  for (let round = 0; round < 3; round += 1) {
    await driver.round();
    if ((await incidents()).find((i) => i.incident_id === second.incident_id)?.state === 'closed') break;
  }
});
