/**
 * Issue 42: a product's spans that carry the context chunks with their ids and versions but no
 * retrieval score (Flowise's). The score-based detectors have nothing to read; the index diff
 * against the pinned baseline copy decides the data cause instead, or nothing is claimed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerHash, exampleProbeResult } from '@rag-immune/contracts';
import { RagClient } from '@rag-immune/rag-contract';
import { InMemorySpanStore, ProbeTraceReader, newProbeTraceContext, type Attributes, type SpanRecord } from '@rag-immune/traces';
import { evidenceDrafts, prepareAnalysis, toProbeAnalysis } from '../../src/analysis.ts';
import { diffIndexes, type IndexChunk, type IndexDiff } from '../../src/index-diff/index-diff.ts';
import type { IndexDiffer } from '../../src/index-diff/index-evidence.ts';
import type { EvidenceRecord } from '../../src/ledger/evidence-record.ts';
import { SCORELESS_CORRUPTION_SCORE } from '../../src/trace-diff/scoreless.ts';
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
      'output.value': JSON.stringify({ text: ANSWER }),
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
        'llm.output_messages.0.message.content': ANSWER,
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

/** One probe run whose online context lost K1 (its vector was overwritten) for K3; the baseline's holds K1 and K2. */
async function scorelessRun(options: { index?: IndexDiffer; onlineQuery?: string; metadata?: (d: Doc) => object } = {}, probeId = 'p1') {
  const store = new InMemorySpanStore();
  const result = exampleProbeResult();
  result.probe_id = probeId;
  const online = newProbeTraceContext();
  const baseline = newProbeTraceContext();
  result.online.traceparent = online.traceparent;
  result.baseline.traceparent = baseline.traceparent;
  result.online.answer_hash = answerHash(ANSWER);
  result.baseline.answer_hash = answerHash(ANSWER);
  await store.write(
    [
      ...spans(online.trace_id, online.parent_span_id, options.onlineQuery ?? result.query, [K2, K3], options.metadata),
      ...spans(baseline.trace_id, baseline.parent_span_id, result.query, [K1, K2], options.metadata),
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
