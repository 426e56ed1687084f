/**
 * Issue 42: a product's spans that carry the context chunks with their ids and versions but no
 * retrieval score (Flowise's). The score-based detectors have nothing to read; the index diff
 * against the pinned baseline copy decides the data cause instead, or nothing is claimed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerHash, exampleProbeResult, type ProbeResult } from '@rag-immune/contracts';
import { RagClient } from '@rag-immune/rag-contract';
import { InMemorySpanStore, ProbeTraceReader, newProbeTraceContext, type Attributes, type SpanRecord } from '@rag-immune/traces';
import { evidenceDrafts, prepareAnalysis, toProbeAnalysis } from '../../src/analysis.ts';
import { diffIndexes, type IndexChunk, type IndexDiff } from '../../src/index-diff/index-diff.ts';
import type { IndexDiffer } from '../../src/index-diff/index-evidence.ts';
import type { EvidenceRecord } from '../../src/ledger/evidence-record.ts';
import { SCORELESS_CORRUPTION_SCORE } from '../../src/trace-diff/scoreless.ts';
import { SCORELESS_GENERATION_SCORE, SCORELESS_UNPUBLISHED_SCORE } from '../../src/trace-diff/scoreless-causes.ts';
import { loadCalibration } from '../../src/verdict/calibration.ts';
import { IntakeTraceSource } from '../../src/trace-diff/trace-sources.ts';
import { decideVerdict, DEFAULT_POLICY, UNFITTED_CALIBRATION, type ProbeAnalysis } from '../../src/testing.ts';

const ANSWER = 'The latest version is 3.0.15.';

interface Doc {
  knowledge: string;
  version: string;
  text: string;
}
const K1 = { knowledge: 'pkg/openssl', version: '3.0.15', text: 'openssl 3.0.15 fixes CVE-2024-5535.' };
const K2 = { knowledge: 'pkg/curl', version: '8.5.0', text: 'curl 8.5.0 adds HTTP/3 by default.' };
const K3 = { knowledge: 'pkg/zlib', version: '1.3.1', text: 'zlib 1.3.1 is a bug-fix release.' };

const chunkId = (d: Doc) => `doc:${d.knowledge}@${d.version}#0`;

let nextSpan = 1;
/** Flowise-like OpenInference spans: a CHAIN entry, a RETRIEVER with content and metadata (no score), an LLM. */
function spans(
  traceId: string,
  parent: string,
  query: string,
  docs: readonly Doc[],
  metadata: (d: Doc) => object = () => ({}),
  answer = ANSWER,
): SpanRecord[] {
  const span = (kind: string, attributes: Attributes, parentId: string): SpanRecord => ({
    trace_id: traceId,
    span_id: (nextSpan++).toString(16).padStart(16, '0'),
    parent_span_id: parentId,
    name: kind.toLowerCase(),
    kind: 'internal',
    start_ms: 1_717_200_000_000,
    end_ms: 1_717_200_000_040,
    status: 'ok',
    attributes: { 'openinference.span.kind': kind, ...attributes },
    dropped_attributes_count: 0,
    events: [],
    resource: {},
    scope: { name: '@arizeai/openinference-instrumentation-langchain', version: '' },
  });
  const root = span(
    'CHAIN',
    {
      'input.value': JSON.stringify({ question: query }),
      'input.mime_type': 'application/json',
      'output.value': JSON.stringify({ text: answer }),
      'output.mime_type': 'application/json',
    },
    parent,
  );
  const retrieved: Attributes = { 'input.value': query };
  docs.forEach((d, i) => {
    retrieved[`retrieval.documents.${i}.document.content`] = d.text;
    retrieved[`retrieval.documents.${i}.document.metadata`] = JSON.stringify({
      chunk_id: chunkId(d),
      doc_id: `doc:${d.knowledge}`,
      knowledge_id: d.knowledge,
      version: d.version,
      source: 'changelog',
      source_trust: 0.9,
      updated_at: '2024-05-01T00:00:00Z',
      valid_from: '2024-05-01T00:00:00Z',
      ...metadata(d),
    });
  });
  return [
    root,
    span('RETRIEVER', retrieved, root.span_id),
    span(
      'LLM',
      {
        'llm.model_name': 'gemma-3-270m',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': answer,
      },
      root.span_id,
    ),
  ];
}

const indexChunk = (d: Doc, vector: number[]): IndexChunk => ({
  point_id: chunkId(d),
  knowledge_id: d.knowledge,
  doc_id: `doc:${d.knowledge}`,
  chunk_id: chunkId(d),
  version: d.version,
  valid_from: '2024-05-01T00:00:00.000Z',
  valid_until: null,
  text: d.text,
  vector,
});
const BASELINE_INDEX = [indexChunk(K1, [1, 0, 0]), indexChunk(K2, [0, 1, 0]), indexChunk(K3, [0, 0, 1])];
/** Garbage written over K1's vector: same point, text and payload. */
const MOVED_INDEX = [indexChunk(K1, [-0.3, 0.2, -0.9]), indexChunk(K2, [0, 1, 0]), indexChunk(K3, [0, 0, 1])];

/** An index differ over fixed chunks, recording the ids it was asked for. */
function differ(online: IndexChunk[]): IndexDiffer & { asked: string[][] } {
  return {
    asked: [],
    async diff(ids): Promise<IndexDiff> {
      this.asked.push([...ids]);
      const baseline = BASELINE_INDEX.filter((c) => ids.includes(c.knowledge_id));
      // As QdrantIndexDiffer does by the nearest vector: a baseline chunk's text found under another id comes along.
      const found = online.filter((c) => ids.includes(c.knowledge_id) || baseline.some((b) => b.text === c.text));
      return diffIndexes(ids, found, baseline, new Date('2024-06-01T00:00:00Z'));
    },
  };
}

const client = new RagClient({ baseUrl: 'http://rag.test', fetch: async () => new Response('{}', { status: 404 }) });

interface RunOptions {
  index?: IndexDiffer;
  onlineQuery?: string;
  metadata?: (d: Doc) => object;
  /** Each side's context (default: online K2 and K3, baseline K1 and K2) and the online answer (default: the baseline's). */
  onlineDocs?: Doc[];
  baselineDocs?: Doc[];
  onlineAnswer?: string;
  comparison?: Partial<ProbeResult['comparison']>;
}

/** One probe run whose online context lost K1 (its vector was overwritten) for K3; the baseline's holds K1 and K2. */
async function scorelessRun(options: RunOptions = {}, probeId = 'p1') {
  const store = new InMemorySpanStore();
  const result = exampleProbeResult();
  result.probe_id = probeId;
  Object.assign(result.comparison, options.comparison ?? {});
  const online = newProbeTraceContext();
  const baseline = newProbeTraceContext();
  const onlineAnswer = options.onlineAnswer ?? ANSWER;
  result.online.traceparent = online.traceparent;
  result.baseline.traceparent = baseline.traceparent;
  result.online.answer_hash = answerHash(onlineAnswer);
  result.baseline.answer_hash = answerHash(ANSWER);
  await store.write(
    [
      ...spans(
        online.trace_id,
        online.parent_span_id,
        options.onlineQuery ?? result.query,
        options.onlineDocs ?? [K2, K3],
        options.metadata,
        onlineAnswer,
      ),
      ...spans(baseline.trace_id, baseline.parent_span_id, result.query, options.baselineDocs ?? [K1, K2], options.metadata),
    ],
    Date.now(),
  );
  const intake = new IntakeTraceSource(new ProbeTraceReader(store, { waitMs: 100, pollMs: 10 }));
  return prepareAnalysis(result, { online: client, baseline: client }, 1000, { online: intake, baseline: intake }, options.index);
}

const asRecords = (prepared: Awaited<ReturnType<typeof scorelessRun>>) =>
  evidenceDrafts(prepared).map((d, i) => ({ ...d, record_id: `r${i}` }) as unknown as EvidenceRecord);

test('score-less spans, vectors moved against the pinned copy: vector_index_corruption, the evidence saying scores were absent', async () => {
  const index = differ(MOVED_INDEX);
  const prepared = await scorelessRun({ index });
  assert.equal(prepared.status, 'ok', prepared.problem ?? '');
  assert.equal(prepared.diff, null);
  assert.deepEqual(index.asked, [[K1.knowledge, K3.knowledge, K2.knowledge]]);
  assert.deepEqual(
    prepared.verdicts.map((v) => [v.cause, v.score, v.knowledge_ids]),
    [['vector_index_corruption', SCORELESS_CORRUPTION_SCORE, [K1.knowledge, K3.knowledge]]],
  );
  assert.equal(prepared.indexDiff!.vectors_moved, 1);

  const records = asRecords(prepared);
  assert.equal(records[0]!.metric, 'first_diverging_layer');
  assert.equal(records[0]!.detail.retrieval_scores, 'absent');
  assert.deepEqual(records[0]!.detail.lost_context_chunks, [chunkId(K1)]);
  const gaps = (records[0]!.detail.trace_gaps as { online: string[] }).online;
  assert.ok(gaps.includes('candidate_scores') && gaps.includes('document_metadata'), gaps.join(','));
  assert.ok(records.some((r) => r.metric === 'index_changed' && r.observed === 1));
  const absent = records.find((r) => r.detector === 'vector_index_corruption' && r.metric === 'retrieval_scores_present')!;
  assert.deepEqual([absent.observed, absent.baseline], [0, 1]);

  // Two such probes name the cause, with a confidence below what a full score-based fit gives.
  const analyses: ProbeAnalysis[] = [toProbeAnalysis(prepared, records)];
  const second = await scorelessRun({ index }, 'p2');
  analyses.push(toProbeAnalysis(second, asRecords(second)));
  assert.equal(analyses[0]!.divergence_evidence_id, 'r0');
  assert.equal(analyses[0]!.trace_evidence_id, null);
  const verdict = decideVerdict(analyses, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0);
  assert.equal(verdict.root_cause, 'vector_index_corruption');
  assert.deepEqual(verdict.knowledge_ids, [K3.knowledge, K1.knowledge].sort());
  const fullFit = decideVerdict(
    analyses.map((a) => ({ ...a, scores: { vector_index_corruption: 1 } })),
    UNFITTED_CALIBRATION,
    DEFAULT_POLICY,
    0,
  );
  assert.ok(verdict.confidence < fullFit.confidence, `${verdict.confidence} < ${fullFit.confidence}`);
});

test('score-less spans without an index differ configured: still trace_incomplete, no cause on a hunch', async () => {
  const prepared = await scorelessRun();
  assert.equal(prepared.status, 'trace_incomplete');
  assert.deepEqual(prepared.verdicts, []);
  const analysis = toProbeAnalysis(prepared, asRecords(prepared));
  const verdict = decideVerdict(
    [analysis, { ...analysis, probe_id: 'p2' }],
    UNFITTED_CALIBRATION,
    DEFAULT_POLICY,
    DEFAULT_POLICY.maxWaitMs,
  );
  assert.equal(verdict.root_cause, 'unknown');
  assert.deepEqual(
    verdict.open_questions.map((q) => q.kind),
    ['trace_incomplete', 'trace_incomplete'],
  );
});

test('score-less spans whose index diff shows nothing: no data cause claimed', async () => {
  const index = differ(BASELINE_INDEX);
  const prepared = await scorelessRun({ index });
  assert.equal(index.asked.length, 1, 'the index was read');
  assert.equal(prepared.status, 'trace_incomplete');
  assert.deepEqual(prepared.verdicts, []);
});

test('score-less spans whose index diff shows another cause beside moved vectors (relabelled chunks): no data cause claimed', async () => {
  const relabelled = [{ ...MOVED_INDEX[0]! }, { ...indexChunk(K2, [0, 1, 0]), knowledge_id: 'pkg/other' }, MOVED_INDEX[2]!];
  const prepared = await scorelessRun({ index: differ(relabelled) });
  assert.equal(prepared.status, 'trace_incomplete');
  // The fixture does what it says: the diff the differ gives shows both.
  const diff = (await differ(relabelled).diff([K1.knowledge, K3.knowledge, K2.knowledge]))!;
  assert.deepEqual([diff.vectors_moved, diff.relabelled], [1, 1]);
  assert.deepEqual(prepared.verdicts, []);
});

test('spans that lack more than scores (no version in the metadata) stay trace_incomplete; the index is not read', async () => {
  const index = differ(MOVED_INDEX);
  const prepared = await scorelessRun({ index, metadata: () => ({ version: undefined }) });
  assert.equal(prepared.status, 'trace_incomplete');
  assert.deepEqual(index.asked, []);
});

test("score-less spans that are not this call's (another query) are no evidence: trace_incomplete, the index not read", async () => {
  const index = differ(MOVED_INDEX);
  const prepared = await scorelessRun({ index, onlineQuery: 'another question' });
  assert.equal(prepared.status, 'trace_incomplete');
  assert.deepEqual(index.asked, []);
});

/*
 * Issue 42, the score-less path's other causes (scoreless-causes.ts). Each refusal is checked next to
 * the case it differs from by one condition, so the test fails unless that condition is what refuses.
 */

/** The test kit's ingestUnpublishedVersion on K1: a `+test1` version from `AT`, same vector, text with the version swapped; K1 closed at `AT`. */
const AT = '2024-07-01T00:00:00.000Z';
const K1_LEAKED = { knowledge: K1.knowledge, version: `${K1.version}+test1`, text: K1.text.split(K1.version).join(`${K1.version}+test1`) };
const LEAKED_INDEX = [
  { ...indexChunk(K1, [1, 0, 0]), valid_until: AT },
  { ...indexChunk(K1_LEAKED, [1, 0, 0]), valid_from: AT },
  indexChunk(K2, [0, 1, 0]),
  indexChunk(K3, [0, 0, 1]),
];
const UNPUBLISHED: Partial<ProbeResult['comparison']> = {
  feed_check: 'ahead_of_feed',
  unpublished_knowledge: [
    {
      knowledge_id: K1.knowledge,
      online_version: K1_LEAKED.version,
      online_valid_from: Date.parse(AT),
      feed_version: K1.version,
      feed_valid_from: Date.parse('2024-05-01T00:00:00Z'),
    },
  ],
};
const leakedRun = (index: IndexChunk[], comparison: Partial<ProbeResult['comparison']> = UNPUBLISHED, probeId = 'p1') =>
  scorelessRun({ index: differ(index), onlineDocs: [K1_LEAKED, K2], baselineDocs: [K1, K2], comparison }, probeId);

/** Two probes' analyses decided with the identifier's fitted calibration (calibration.json). */
async function decideTwo(run: (probeId: string) => ReturnType<typeof scorelessRun>) {
  const analyses: ProbeAnalysis[] = [];
  for (const probeId of ['p1', 'p2']) {
    const prepared = await run(probeId);
    analyses.push(toProbeAnalysis(prepared, asRecords(prepared)));
  }
  return decideVerdict(analyses, loadCalibration(), DEFAULT_POLICY, 0);
}

test('score-less spans, a version no feed published ingested online: unpublished_knowledge for that id, named at the calibrated acceptance', async () => {
  const prepared = await leakedRun(LEAKED_INDEX);
  assert.equal(prepared.status, 'ok', prepared.problem ?? '');
  assert.equal(prepared.layer, 'retrieval');
  assert.deepEqual(
    prepared.verdicts.map((v) => [v.cause, v.component, v.score, v.knowledge_ids]),
    [['unpublished_knowledge', 'vector_index', SCORELESS_UNPUBLISHED_SCORE, [K1.knowledge]]],
  );
  assert.deepEqual(prepared.indexDiff!.online_only_versions, [
    { knowledge_id: K1.knowledge, version: K1_LEAKED.version, chunks: 1, in_baseline: false },
  ]);
  const records = asRecords(prepared);
  assert.equal(records[0]!.detail.feed_check, 'ahead_of_feed');
  assert.deepEqual(records[0]!.detail.unpublished_knowledge, [`${K1.knowledge}@${K1_LEAKED.version}`]);
  const of = (metric: string) => records.find((r) => r.detector === 'unpublished_knowledge' && r.metric === metric);
  assert.deepEqual(
    [of('indexed_version_published_by_feed')!.subject, of('indexed_version_published_by_feed')!.observed],
    [`${K1.knowledge}@${K1_LEAKED.version}`, 0],
  );
  assert.equal(of('index_chunks_of_unpublished_versions')!.observed, 1);
  assert.equal(of('retrieval_scores_present')!.observed, 0);

  const verdict = await decideTwo((probeId) => leakedRun(LEAKED_INDEX, UNPUBLISHED, probeId));
  assert.equal(verdict.root_cause, 'unpublished_knowledge');
  assert.equal(verdict.component, 'vector_index');
  assert.deepEqual(verdict.knowledge_ids, [K1.knowledge]);
  assert.ok(verdict.confidence >= DEFAULT_POLICY.acceptConfidence, `${verdict.confidence}`);
});

test('score-less spans, an unpublished version whose predecessor was closed at another instant: still unpublished_knowledge; a version rolled back is not', async () => {
  const closedLater = LEAKED_INDEX.map((c) =>
    c.version === K1.version && c.knowledge_id === K1.knowledge ? { ...c, valid_until: '2024-07-01T00:00:01.000Z' } : c,
  );
  const prepared = await leakedRun(closedLater);
  assert.deepEqual([prepared.indexDiff!.payload_changed, prepared.indexDiff!.windows_closed], [1, 1]);
  assert.deepEqual(
    prepared.verdicts.map((v) => v.cause),
    ['unpublished_knowledge'],
  );
  const rolledBack = LEAKED_INDEX.map((c) => (c.knowledge_id === K2.knowledge ? { ...c, version: '8.4.0' } : c));
  const refused = await leakedRun(rolledBack);
  assert.equal(refused.status, 'trace_incomplete');
  const diff = (await differ(rolledBack).diff([K1.knowledge, K2.knowledge]))!;
  assert.deepEqual([diff.payload_changed, diff.windows_closed], [1, 0]);
});

test('score-less spans with versions the baseline lacks but no unpublished list from the sentinel: no unpublished_knowledge', async () => {
  const listed = await leakedRun(LEAKED_INDEX);
  assert.deepEqual(
    listed.verdicts.map((v) => v.cause),
    ['unpublished_knowledge'],
  );
  const unlisted = await leakedRun(LEAKED_INDEX, { feed_check: 'lookup_not_served', unpublished_knowledge: [] });
  assert.equal(unlisted.status, 'trace_incomplete');
  assert.deepEqual(unlisted.verdicts, []);
});

test('score-less spans, an unpublished version and damaged vectors beside it: not unpublished_knowledge (the damage is named)', async () => {
  assert.equal((await leakedRun(LEAKED_INDEX)).verdicts[0]?.cause, 'unpublished_knowledge', 'without the damage');
  const damaged = LEAKED_INDEX.map((c) => (c.knowledge_id === K2.knowledge ? { ...c, vector: [0.2, -0.9, 0.1] } : c));
  const prepared = await leakedRun(damaged);
  assert.equal(prepared.indexDiff!.vectors_moved, 1);
  assert.deepEqual(
    prepared.verdicts.map((v) => v.cause),
    ['vector_index_corruption'],
  );
  // Another version than the listed one gained online: the index does not show what the sentinel found.
  const other = [...LEAKED_INDEX, { ...indexChunk({ ...K2, version: '8.6.0', text: 'curl 8.6.0' }, [0, 1, 0]), valid_from: AT }];
  const unmatched = await leakedRun(other);
  assert.equal(unmatched.status, 'trace_incomplete');
});

const REGRESSED = 'Sure! What would you like to know about versions?';
const sameContextRun = (options: RunOptions, probeId = 'p1') =>
  scorelessRun(
    { onlineDocs: [K1, K2], baselineDocs: [K1, K2], onlineAnswer: REGRESSED, comparison: { answer_agreement: 0 }, ...options },
    probeId,
  );

test('score-less spans, same context from an unchanged index, another answer measured worse: generator_inconsistency at the answer layer', async () => {
  const prepared = await sameContextRun({ index: differ(BASELINE_INDEX) });
  assert.equal(prepared.status, 'ok', prepared.problem ?? '');
  assert.equal(prepared.layer, 'answer');
  assert.deepEqual(
    prepared.verdicts.map((v) => [v.cause, v.component, v.score, v.knowledge_ids]),
    [['generator_inconsistency', 'generator', SCORELESS_GENERATION_SCORE, []]],
  );
  const records = asRecords(prepared);
  assert.deepEqual([records[0]!.detail.layer, records[0]!.detail.answer_equal_to_baseline], ['answer', false]);
  assert.equal(records[0]!.claim_kind, 'answer_fact_mismatch');
  const metrics = records.filter((r) => r.detector === 'generator_inconsistency').map((r) => [r.metric, r.observed, r.baseline]);
  assert.deepEqual(metrics, [
    ['context_jaccard', 1, 1],
    ['index_changes', 0, 0],
    ['answer_equal_to_baseline', 0, 1],
    ['answer_agreement', 0, 1],
    ['fcs_drop', 0.32, 0],
  ]);

  const verdict = await decideTwo((probeId) => sameContextRun({ index: differ(BASELINE_INDEX) }, probeId));
  assert.equal(verdict.root_cause, 'generator_inconsistency');
  assert.equal(verdict.component, 'generator');
  assert.deepEqual(verdict.knowledge_ids, []);
  assert.ok(verdict.confidence >= DEFAULT_POLICY.acceptConfidence, `${verdict.confidence}`);
});

test('score-less spans whose contexts differ, index unchanged, answers differ: no generator_inconsistency', async () => {
  const same = await sameContextRun({ index: differ(BASELINE_INDEX) });
  assert.deepEqual(
    same.verdicts.map((v) => v.cause),
    ['generator_inconsistency'],
  );
  const differing = await sameContextRun({ index: differ(BASELINE_INDEX), onlineDocs: [K2, K3] });
  assert.equal(differing.status, 'trace_incomplete');
  assert.deepEqual(differing.verdicts, []);
});

test('score-less spans with the same context but an index diff that shows anything: no generator_inconsistency', async () => {
  const untouched = await sameContextRun({ index: differ(BASELINE_INDEX) });
  assert.equal(untouched.verdicts[0]?.cause, 'generator_inconsistency');
  // A vector moved under K1, and (apart) a newer version published after the pin: either one refuses.
  const moved = await sameContextRun({ index: differ(MOVED_INDEX) });
  assert.equal(moved.status, 'trace_incomplete');
  const newer = [...BASELINE_INDEX, { ...indexChunk({ ...K2, version: '8.6.0', text: 'curl 8.6.0' }, [0, 1, 0]), valid_from: AT }];
  const movedOn = await sameContextRun({ index: differ(newer) });
  assert.equal(movedOn.status, 'trace_incomplete');
  // The fixture does what it says: the knowledge moving on is all the diff shows.
  const diff = (await differ(newer).diff([K1.knowledge, K2.knowledge]))!;
  assert.deepEqual([diff.added_after_pin, diff.vectors_moved, diff.missing, diff.payload_changed], [1, 0, 0, 0]);
});

test('score-less spans with the same context and index whose answers are equal, or not measured worse: no generator_inconsistency', async () => {
  const index = differ(BASELINE_INDEX);
  assert.equal((await sameContextRun({ index })).verdicts[0]?.cause, 'generator_inconsistency');
  assert.equal((await sameContextRun({ index, onlineAnswer: ANSWER })).status, 'trace_incomplete');
  const notWorse = await sameContextRun({ index, comparison: { answer_agreement: 1, fcs_drop: null } });
  assert.equal(notWorse.status, 'trace_incomplete');
  assert.equal((await sameContextRun({})).status, 'trace_incomplete', 'no index differ: the index is not known unchanged');
});
