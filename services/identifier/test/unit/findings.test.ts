/**
 * Incidents with several causes: each anomalous probe is explained by the cause that fits it, each
 * group judged on its own; on recorded reference-RAG runs of two faults at once, the report names
 * both, with their own probes, claims and confidence, and the primary finding at the top level.
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
import { EvidenceLedger, Identifier, IdentifierMetrics, IncidentStore, loadCalibration } from '../../src/index.ts';
import { DEFAULT_POLICY, UNFITTED_CALIBRATION, decideVerdict, type ProbeAnalysis } from '../../src/testing.ts';
import { bestFitByProbe, decideFindings, reportedFindings } from '../../src/verdict/findings.ts';
import { loadRecordedRuns } from '../fixtures/recorded-runs.ts';

const analysis = (probeId: string, scores: ProbeAnalysis['scores']): ProbeAnalysis => ({
  probe_event_id: `e-${randomUUID()}`,
  probe_id: probeId,
  probe_version: 1,
  query: `q ${probeId}`,
  occurred_at: 0,
  trace_status: 'ok',
  trace_evidence_id: null,
  scores,
  evidence_ids: Object.fromEntries(Object.keys(scores).map((c) => [c, [`${c}-${probeId}`]])),
  knowledge_ids: Object.fromEntries(Object.keys(scores).map((c) => [c, c === 'vector_index_corruption' ? [`doc-${probeId}`] : []])),
  first_diverging_layer: 'retrieval',
  divergence_evidence_id: `d-${probeId}`,
});

const drift = (id: string) => analysis(id, { reranker_drift: 1, vector_index_corruption: 0.1 });
const damage = (id: string) => analysis(id, { vector_index_corruption: 0.95, reranker_drift: 0.3 });

test('each probe is explained by the cause that fits it best; a probe no cause fits (below the floor) is unexplained', () => {
  const fits = bestFitByProbe([drift('a'), damage('b'), analysis('c', { parser_bug: 0.2 })]);
  assert.deepEqual(Object.fromEntries(fits), { a: 'reranker_drift', b: 'vector_index_corruption', c: null });
});

test('two faults at once: two findings, each with its own probes, confidence and knowledge; the diluted whole verdict is not what is reported', () => {
  const analyses = [drift('a'), drift('b'), drift('c'), damage('d'), damage('e'), analysis('f', {})];
  const split = decideFindings(analyses, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0);
  assert.deepEqual(
    split.findings.map((f) => [f.verdict.root_cause, f.probe_ids]),
    [
      ['reranker_drift', ['a', 'b', 'c']],
      ['vector_index_corruption', ['d', 'e']],
    ],
  );
  for (const f of split.findings)
    assert.ok(f.verdict.confidence >= DEFAULT_POLICY.acceptConfidence, `${f.verdict.root_cause} ${f.verdict.confidence}`);
  assert.deepEqual(split.findings[1]!.verdict.knowledge_ids, ['doc-d', 'doc-e']);
  assert.deepEqual(split.unexplained, ['f']);
  // The mean over every probe mixes both signatures: it is weaker than either group's own verdict.
  const whole = decideVerdict(analyses, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0);
  assert.ok(whole.confidence < split.findings[1]!.verdict.confidence);
  const { primary, findings } = reportedFindings(whole, split, analyses, ['a', 'b', 'c', 'd', 'e', 'f']);
  assert.equal(primary.root_cause, 'reranker_drift');
  assert.equal(findings.findings.length, 2);
});

test('one fault: the whole verdict stands and its one finding covers every probe of the incident (verification as before findings)', () => {
  const analyses = [drift('a'), drift('b'), drift('c')];
  const whole = decideVerdict(analyses, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0);
  const { primary, findings } = reportedFindings(whole, decideFindings(analyses, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0), analyses, [
    'a',
    'b',
    'c',
    'late',
  ]);
  assert.equal(primary, whole);
  assert.deepEqual(
    findings.findings.map((f) => [f.verdict.root_cause, f.probe_ids]),
    [['reranker_drift', ['a', 'b', 'c', 'late']]],
  );
});

test('a group too small to judge yet is no finding: its probes stay unexplained, the other cause is still named', () => {
  const analyses = [drift('a'), drift('b'), damage('d')];
  const split = decideFindings(analyses, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0);
  assert.deepEqual(
    split.findings.map((f) => f.verdict.root_cause),
    ['reranker_drift'],
  );
  assert.deepEqual(split.unexplained, ['d']);
});

// On the reference RAG's recorded runs: reranker drift on some probes, vector damage on others.
const runs = loadRecordedRuns();
const traces = new Map<string, Trace>(runs.flatMap((r) => [r.online_trace!, r.baseline_trace!]).map((t) => [t.trace_id, t]));
const recordedFetch: typeof fetch = async (input) => {
  const found = traces.get(decodeURIComponent(String(input).replace(/^.*\/traces\//, '')));
  return new Response(JSON.stringify(found ?? { error: 'unknown trace' }), {
    status: found ? 200 : 404,
    headers: { 'content-type': 'application/json' },
  });
};
const rag = new RagClient({ baseUrl: 'http://recorded.invalid', timeoutMs: 1000, fetch: recordedFetch });
const recorded = (kind: string, mode: string, probes: string[]): ProbeResult[] =>
  runs.filter((r) => r.kind === kind && r.mode === mode && r.result.anomaly && probes.includes(r.probe.id)).map((r) => r.result);

test('recorded reranker drift and vector damage on other probes, together: one incident, both causes named with their own probes and claims', async () => {
  const docs = memoryStores();
  const store = new IncidentStore(docs, 'unit');
  const ledger = new EvidenceLedger(docs, 'unit');
  const reports: RootCauseReport[] = [];
  const identifier = new Identifier({
    store,
    ledger,
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
  });
  const driftProbes = ['p-record-0', 'p-record-2', 'p-record-5'];
  const damageProbes = ['p-record-1', 'p-record-3', 'p-record-8', 'p-record-9', 'p-record-10'];
  const results = [...recorded('reranker-drift', 'v2.2-drift', driftProbes), ...recorded('vector-index-corruption', 'zero', damageProbes)];
  assert.ok(results.length >= driftProbes.length + damageProbes.length, `recorded results: ${results.length}`);
  for (const result of results) await identifier.handleProbeResult({ ...result, event_id: randomUUID(), occurred_at: Date.now() });
  const last = reports.at(-1)!;
  assert.equal(new Set(reports.map((r) => r.incident_id)).size, 1, 'one incident');
  const byCause = new Map(last.findings.map((f) => [f.root_cause, f]));
  assert.deepEqual([...byCause.keys()].sort(), ['reranker_drift', 'vector_index_corruption']);
  assert.deepEqual(
    byCause
      .get('reranker_drift')!
      .affected_probes.map((p) => p.probe_id)
      .sort(),
    driftProbes,
  );
  assert.deepEqual(
    byCause
      .get('vector_index_corruption')!
      .affected_probes.map((p) => p.probe_id)
      .sort(),
    damageProbes.sort(),
  );
  assert.deepEqual(byCause.get('reranker_drift')!.recommended_intents, ['rollback_reranker']);
  assert.ok(byCause.get('vector_index_corruption')!.affected_knowledge_ids.length > 0);
  for (const f of last.findings) {
    assert.ok(f.confidence >= 0.7, `${f.root_cause} at ${f.confidence}`);
    assert.ok(f.claims.length > 0);
    const cited = f.claims.flatMap((c) => c.evidence_ids);
    assert.equal((await ledger.existing(last.incident_id, cited)).size, new Set(cited).size, 'every claim cites a ledger record');
  }
  // Old consumers read the top level: the primary finding.
  assert.equal(last.root_cause, last.findings[0]!.root_cause);
  assert.equal(last.affected_component, last.findings[0]!.affected_component);
  assert.equal(
    last.affected_probes.length,
    driftProbes.length + damageProbes.length,
    'the top level still names every probe of the incident',
  );
  assert.deepEqual(last.unexplained_probes, []);
});

test('reranker drift under another fault that changes retrieval: a changed version that reorders the shared chunks still fits the reranker', async () => {
  const { diffTraces, DETECTORS } = await import('../../src/testing.ts');
  const reranker = DETECTORS.find((d) => d.cause === 'reranker_drift')!;
  const run = runs.find((r) => r.kind === 'reranker-drift' && r.result.anomaly && r.online_trace && r.baseline_trace)!;
  const online = run.online_trace!;
  const baseline = run.baseline_trace!;
  // A damaged vector: one candidate the baseline retrieved is gone online (and from what was reranked).
  const gone = baseline.candidates.at(-1)!.chunk_id;
  const damaged = {
    ...online,
    candidates: online.candidates.filter((c) => c.chunk_id !== gone),
    reranked: online.reranked.filter((c) => c.chunk_id !== gone),
  };
  const diff = diffTraces(damaged, baseline);
  assert.equal(diff.rerank.input_identical, false);
  assert.equal(diff.rerank.shared_order_changed, true);
  const fit = reranker.detect({ result: run.result, diff });
  assert.ok(fit.score >= 0.7, `reranker fit ${fit.score}`);
  assert.ok(fit.measurements.some((m) => m.metric === 'rerank_shared_order_changed'));
  // The same reorder without a changed reranker version is no evidence: the features are relative to the set.
  const sameVersion = diffTraces({ ...damaged, models: baseline.models }, baseline);
  assert.ok(reranker.detect({ result: run.result, diff: sameVersion }).score < 0.3);
});

test('the cause the last report put first stays first while it is still found: a reordering alone is no new revision', () => {
  const analyses = [drift('a'), drift('b'), drift('c'), damage('d'), damage('e')];
  const whole = decideVerdict(analyses, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0);
  const split = decideFindings(analyses, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0);
  const ids = ['a', 'b', 'c', 'd', 'e'];
  assert.equal(reportedFindings(whole, split, analyses, ids).primary.root_cause, 'reranker_drift');
  const kept = reportedFindings(whole, split, analyses, ids, 'vector_index_corruption');
  assert.equal(kept.primary.root_cause, 'vector_index_corruption');
  assert.deepEqual(
    kept.findings.findings.map((f) => f.verdict.root_cause),
    ['vector_index_corruption', 'reranker_drift'],
  );
});
