/**
 * The OpenInference mapper on hand-made span sets: the reranker stage and its top_k, LangChain's
 * retriever-around-retriever, and what a missing piece becomes (a gap, never a value).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapSpans, type Attributes, type SpanRecord } from '../../src/index.ts';

const TRACE = 'ab'.repeat(16);
let nextId = 1;
function span(kind: string, attributes: Attributes, parent: SpanRecord | null, start = 0, end = 10): SpanRecord {
  return {
    trace_id: TRACE,
    span_id: (nextId++).toString(16).padStart(16, '0'),
    parent_span_id: parent?.span_id ?? null,
    name: kind.toLowerCase(),
    kind: 'internal',
    start_ms: 1_717_200_000_000 + start,
    end_ms: 1_717_200_000_000 + end,
    status: 'ok',
    attributes: { 'openinference.span.kind': kind, ...attributes },
    dropped_attributes_count: 0,
    events: [],
    resource: {},
    scope: { name: 'test', version: '' },
  };
}
const meta = (id: string, version = '1') =>
  JSON.stringify({
    doc_id: `d-${id}`,
    chunk_id: id,
    knowledge_id: `k-${id}`,
    version,
    source: 'feed',
    source_trust: 0.8,
    updated_at: '2024-01-01T00:00:00Z',
    valid_from: '2024-01-01T00:00:00Z',
    valid_until: null,
  });
function docs(prefix: string, list: { id: string; score?: number }[]): Attributes {
  const out: Attributes = {};
  list.forEach((d, i) => {
    out[`${prefix}.${i}.document.id`] = d.id;
    if (d.score !== undefined) out[`${prefix}.${i}.document.score`] = d.score;
    out[`${prefix}.${i}.document.content`] = `text of ${d.id}`;
    out[`${prefix}.${i}.document.metadata`] = meta(d.id);
  });
  return out;
}

test('a RERANKER span gives the reranked order and scores; its top_k cuts the context', () => {
  const root = span('CHAIN', { 'input.value': 'q?', 'output.value': 'the answer', 'rag_immune.citations': '["b"]' }, null, 0, 50);
  const spans = [
    root,
    span(
      'RETRIEVER',
      {
        'input.value': 'q',
        ...docs('retrieval.documents', [
          { id: 'a', score: 0.9 },
          { id: 'b', score: 0.8 },
          { id: 'c', score: 0.7 },
        ]),
      },
      root,
      1,
      5,
    ),
    span(
      'RERANKER',
      {
        'reranker.model_name': 'bge-v2',
        'reranker.top_k': 2,
        ...docs('reranker.output_documents', [
          { id: 'b', score: 3.1 },
          { id: 'c', score: 2.2 },
          { id: 'a', score: 1.0 },
        ]),
      },
      root,
      6,
      9,
    ),
    span(
      'LLM',
      { 'llm.model_name': 'gpt-x', 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'llm text' },
      root,
      10,
      40,
    ),
  ];
  const mapped = mapSpans(TRACE, spans)!;
  const trace = mapped.trace!;
  assert.equal(trace.query, 'q?');
  assert.equal(trace.rewritten_query, 'q');
  assert.equal(trace.answer, 'the answer');
  assert.deepEqual(
    trace.candidates.map((c) => [c.chunk_id, c.retrieval_score, c.rerank_score, c.rank]),
    [
      ['a', 0.9, 1.0, 1],
      ['b', 0.8, 3.1, 2],
      ['c', 0.7, 2.2, 3],
    ],
  );
  assert.deepEqual(
    trace.reranked.map((c) => [c.chunk_id, c.retrieval_score, c.rerank_score, c.rank]),
    [
      ['b', 0.8, 3.1, 1],
      ['c', 0.7, 2.2, 2],
      ['a', 0.9, 1.0, 3],
    ],
  );
  assert.deepEqual(
    trace.context.map((c) => [c.chunk_id, c.retrieval_score, c.rerank_score]),
    [
      ['b', 0.8, 3.1],
      ['c', 0.7, 2.2],
    ],
  );
  assert.deepEqual(trace.citations, [{ chunk_id: 'b', doc_id: 'd-b', knowledge_id: 'k-b', version: '1' }]);
  assert.deepEqual(trace.models, { embedder: 'unreported', reranker: 'bge-v2', generator: 'gpt-x' });
  assert.deepEqual(trace.timings, { retrieve_ms: 4, rerank_ms: 3, generate_ms: 30, total_ms: 50 });
  assert.deepEqual(
    mapped.gaps.map((g) => g.piece),
    ['models.embedder', 'as_of'],
  );
});

test("LangChain's compression retriever: the inner RETRIEVER lists candidates, the outer the reranked context; scores may come from metadata", () => {
  const root = span(
    'CHAIN',
    { 'input.value': '{"question":"q"}', 'input.mime_type': 'application/json', 'output.value': 'ans' },
    null,
    0,
    30,
  );
  const outer = span('RETRIEVER', { 'input.value': 'q' }, root, 1, 20);
  const inner = span('RETRIEVER', { 'input.value': 'q', ...docs('retrieval.documents', [{ id: 'a' }, { id: 'b' }]) }, outer, 2, 8);
  // The stock instrumentation records no score: the adapter puts them in the metadata.
  inner.attributes['retrieval.documents.0.document.metadata'] = JSON.stringify({ ...JSON.parse(meta('a')), retrieval_score: 0.6 });
  inner.attributes['retrieval.documents.1.document.metadata'] = JSON.stringify({ ...JSON.parse(meta('b')), retrieval_score: 0.5 });
  Object.assign(outer.attributes, docs('retrieval.documents', [{ id: 'b' }]));
  outer.attributes['retrieval.documents.0.document.metadata'] = JSON.stringify({
    ...JSON.parse(meta('b')),
    retrieval_score: 0.5,
    rerank_score: 0.97,
  });
  const trace = mapSpans(TRACE, [root, outer, inner, span('LLM', {}, root, 21, 29)])!.trace!;
  assert.equal(trace.query, 'q');
  assert.deepEqual(
    trace.candidates.map((c) => [c.chunk_id, c.retrieval_score, c.rerank_score]),
    [
      ['a', 0.6, undefined],
      ['b', 0.5, 0.97],
    ],
  );
  assert.deepEqual(
    trace.reranked.map((c) => [c.chunk_id, c.retrieval_score, c.rerank_score]),
    [['b', 0.5, 0.97]],
  );
  assert.deepEqual(
    trace.context.map((c) => c.chunk_id),
    ['b'],
  );
});

test('retrieved documents without scores make no Trace: the gap says what is missing', () => {
  const root = span('CHAIN', { 'input.value': 'q', 'output.value': 'ans' }, null);
  const mapped = mapSpans(TRACE, [
    root,
    span('RETRIEVER', { 'input.value': 'q', ...docs('retrieval.documents', [{ id: 'a' }, { id: 'b', score: 0.4 }]) }, root),
  ])!;
  assert.equal(mapped.trace, null);
  const blocking = mapped.gaps.filter((g) => g.piece === 'candidate_scores');
  assert.deepEqual(
    blocking.map((g) => g.detail),
    ['retrieved document a has no score (document.score or metadata.retrieval_score)'],
  );
});

test('documents without the versioned metadata, and a call without an answer, are gaps too', () => {
  const root = span('CHAIN', { 'input.value': 'q' }, null);
  const retriever = span(
    'RETRIEVER',
    {
      'retrieval.documents.0.document.id': 'a',
      'retrieval.documents.0.document.score': 0.5,
      'retrieval.documents.0.document.content': 'x',
      'retrieval.documents.0.document.metadata': '{"source":"feed"}',
    },
    root,
  );
  const mapped = mapSpans(TRACE, [root, retriever])!;
  assert.equal(mapped.trace, null);
  const pieces = new Set(mapped.gaps.map((g) => g.piece));
  assert.ok(pieces.has('answer') && pieces.has('document_metadata'), [...pieces].join(','));
  assert.match(
    mapped.gaps.find((g) => g.piece === 'document_metadata' && g.detail.startsWith('context'))!.detail,
    /lacks doc_id, knowledge_id, version/,
  );
});

test('spans of no convention are not claimed; unknown OpenInference kinds are counted as ignored', () => {
  const plain = { ...span('CHAIN', {}, null), attributes: { 'http.method': 'POST' } };
  assert.equal(mapSpans(TRACE, [plain]), null);
  const root = span('CHAIN', { 'input.value': 'q', 'output.value': 'a' }, null);
  const mapped = mapSpans(TRACE, [root, span('TOOL', {}, root), span('TELEPATHY', {}, root)])!;
  assert.deepEqual(mapped.ignored, { 'unread_kind:TOOL': 1, 'unknown_kind:TELEPATHY': 1 });
});

test('a span that dropped attributes (the SDK limit) makes no Trace: its document list may be cut', () => {
  const root = span('CHAIN', { 'input.value': 'q', 'output.value': 'a', 'rag_immune.citations': '[]' }, null);
  const retriever = span('RETRIEVER', { 'input.value': 'q', ...docs('retrieval.documents', [{ id: 'a', score: 0.9 }]) }, root);
  retriever.dropped_attributes_count = 116;
  const mapped = mapSpans(TRACE, [root, retriever])!;
  assert.equal(mapped.trace, null);
  assert.match(mapped.gaps.find((g) => g.piece === 'span_attributes')!.detail, /dropped 116 attributes/);
});

test("the RAG's own model builds (rag_immune.*) are believed over a framework span's model name: the generator build names its prompt", () => {
  const root = span(
    'CHAIN',
    {
      'input.value': 'q',
      'output.value': 'ans',
      'rag_immune.citations': '["a"]',
      'rag_immune.generator': 'gemma-3-270m-q4_k_m+instruct-v2',
      'rag_immune.embedder': 'minilm@int8',
    },
    null,
    0,
    30,
  );
  const spans = [
    root,
    span('RETRIEVER', { 'input.value': 'q', ...docs('retrieval.documents', [{ id: 'a', score: 0.9 }]) }, root, 1, 5),
    span('LLM', { 'llm.model_name': 'gemma-3-270m-q4_k_m', 'output.value': 'ans' }, root, 6, 20),
  ];
  const trace = mapSpans(TRACE, spans)!.trace!;
  assert.equal(trace.models.generator, 'gemma-3-270m-q4_k_m+instruct-v2');
  assert.equal(trace.models.embedder, 'minilm@int8');
  // Without the RAG's word the framework span's model name stands.
  delete root.attributes['rag_immune.generator'];
  assert.equal(mapSpans(TRACE, spans)!.trace!.models.generator, 'gemma-3-270m-q4_k_m');
});
