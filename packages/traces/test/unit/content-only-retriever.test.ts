/**
 * Issue 42, item 4: a product's own OpenInference spans. OpenInference's LangChain.js instrumentation
 * (Arize-ai/openinference, js/packages/openinference-instrumentation-langchain/src/utils.ts,
 * parseRetrievalDocument: `document.content` from pageContent, `document.metadata` as JSON, nothing
 * else), which Flowise uses, records retrieved documents with content and metadata but no id and no
 * score. Such a call makes no contract Trace (a diff needs ids and scores): the gaps name each missing
 * piece by the document's position, and what the spans do carry is kept as observed, with no id,
 * score or model filled in.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapSpans, type Attributes, type SpanRecord } from '../../src/index.ts';

const TRACE = 'cd'.repeat(16);
let nextId = 1;
function span(kind: string, attributes: Attributes, parent: SpanRecord | null): SpanRecord {
  return {
    trace_id: TRACE,
    span_id: (nextId++).toString(16).padStart(16, '0'),
    parent_span_id: parent?.span_id ?? null,
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
  };
}

const QUERY = 'What is the latest version of openssl in bookworm?';
const ANSWER = 'The latest version of openssl in bookworm is 3.0.15-1~deb12u1.';
const DOCUMENTS = [
  {
    content: 'openssl (3.0.15-1~deb12u1) bookworm-security; urgency=medium.',
    metadata: { source: 'openssl.changelog', loc: { lines: { from: 1, to: 4 } } },
  },
  {
    content: 'openssl (3.0.14-1~deb12u2) bookworm; urgency=medium.',
    metadata: { source: 'openssl.changelog', loc: { lines: { from: 5, to: 8 } } },
  },
];

function flowiseLikeSpans(): SpanRecord[] {
  const root = span(
    'CHAIN',
    {
      'input.value': JSON.stringify({ question: QUERY }),
      'input.mime_type': 'application/json',
      'output.value': JSON.stringify({ text: ANSWER }),
      'output.mime_type': 'application/json',
    },
    null,
  );
  const retrieved: Attributes = { 'input.value': QUERY };
  DOCUMENTS.forEach((doc, i) => {
    retrieved[`retrieval.documents.${i}.document.content`] = doc.content;
    retrieved[`retrieval.documents.${i}.document.metadata`] = JSON.stringify(doc.metadata);
  });
  return [
    root,
    span('RETRIEVER', retrieved, root),
    span(
      'LLM',
      {
        'llm.model_name': 'gemma-3-270m',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': ANSWER,
      },
      root,
    ),
  ];
}

test('content and metadata without ids or scores: no Trace, a gap per missing piece, nothing invented', () => {
  const mapped = mapSpans(TRACE, flowiseLikeSpans())!;
  assert.equal(mapped.convention, 'openinference');
  assert.equal(mapped.trace, null);
  const details = (piece: string) => mapped.gaps.filter((g) => g.piece === piece).map((g) => g.detail);
  assert.deepEqual(details('candidates'), [
    'retrieved document 0 has neither document.id nor metadata.chunk_id',
    'retrieved document 1 has neither document.id nor metadata.chunk_id',
  ]);
  assert.deepEqual(details('candidate_scores'), [
    'retrieved document 0 has no score (document.score or metadata.retrieval_score)',
    'retrieved document 1 has no score (document.score or metadata.retrieval_score)',
  ]);
  assert.ok(details('document_metadata').some((d) => /^context document 0 lacks chunk_id, doc_id, knowledge_id, version/.test(d)));
  // The query, the answer and the generator's model name are there: no gap for them.
  for (const piece of ['query', 'answer', 'models.generator']) assert.deepEqual(details(piece), [], piece);
});

test('what the spans carry is kept as observed: content and metadata as recorded, no id, score or unnamed model', () => {
  const mapped = mapSpans(TRACE, flowiseLikeSpans())!;
  const expected = DOCUMENTS.map((doc, i) => ({ rank: i + 1, content: doc.content, metadata: doc.metadata }));
  assert.deepEqual(mapped.observed, {
    query: QUERY,
    answer: ANSWER,
    retrieved: expected,
    context: expected,
    models: { generator: 'gemma-3-270m' },
  });
  for (const doc of mapped.observed!.retrieved) {
    assert.equal('id' in doc, false);
    assert.equal('score' in doc, false);
  }
});

test('an id or score that only some documents carry is kept on those alone', () => {
  const spans = flowiseLikeSpans();
  spans[1]!.attributes['retrieval.documents.1.document.id'] = 'openssl.changelog#5';
  spans[1]!.attributes['retrieval.documents.1.document.score'] = 0.42;
  const mapped = mapSpans(TRACE, spans)!;
  assert.equal(mapped.trace, null);
  assert.deepEqual(
    mapped.observed!.retrieved.map((d) => [d.id, d.score]),
    [
      [undefined, undefined],
      ['openssl.changelog#5', 0.42],
    ],
  );
  assert.deepEqual(
    mapped.gaps.filter((g) => g.piece === 'candidates').map((g) => g.detail),
    ['retrieved document 0 has neither document.id nor metadata.chunk_id'],
  );
});
