/**
 * Issue 42, item 4, on a framework's own server: what a LangServe 0.3.3 route (bench/rag-products/
 * langserve/app.py) exported for one /rag/invoke, as the trace intake stored it (fixtures/
 * langserve-spans.json, recorded by `bench/rag-products/run.ts --product langserve --record-only` beside
 * that call's answer, fixtures/langserve-invoke.json). The call was made as a probe is (traceparent and
 * the probe mark): OpenTelemetry's FastAPI instrumentation continued it, the chain's spans came from
 * OpenInference's Python LangChain instrumentation, exported over OTLP/HTTP protobuf. Unlike Flowise's
 * (LangChain.js), the Python instrumentation names every runnable of the chain (RunnableAssign,
 * RunnableParallel, RunnableLambda, ...) as a CHAIN span and puts the route's input and output as JSON on
 * the outermost one. What the mapper must do: find the call (query, answer, the four retrieved chunks with
 * the metadata the ingestion wrote; langchain-qdrant's Document carries no id), and make no Trace because
 * no span carries a retrieval score, naming that gap per document and inventing no score and no id.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BLOCKING_PIECES, mapSpans, type SpanRecord } from '../../src/index.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as unknown;
const spans = fixture('langserve-spans.json') as SpanRecord[];
const invoke = fixture('langserve-invoke.json') as {
  output: {
    input: string;
    answer: string;
    context: { id: string | null; page_content: string; metadata: Record<string, unknown> }[];
  };
};
const traceId = spans[0]!.trace_id;

test('the recorded spans are one probe call: one trace, each carrying the probe mark, the server span under the caller', () => {
  assert.equal(new Set(spans.map((s) => s.trace_id)).size, 1);
  for (const span of spans) assert.equal(span.trace_state, 'rag-immune=probe', span.name);
  const ids = new Set(spans.map((s) => s.span_id));
  const entries = spans.filter((s) => s.parent_span_id === null || !ids.has(s.parent_span_id));
  assert.deepEqual(
    entries.map((s) => [s.name, s.scope.name, s.kind]),
    [['POST /rag/invoke', 'opentelemetry.instrumentation.fastapi', 'server']],
  );
  // The caller's span (the sentinel's) is the parent: the trace was continued, not restarted.
  assert.notEqual(entries[0]!.parent_span_id, null);
  assert.equal(
    spans.filter((s) => s.scope.name === 'openinference.instrumentation.langchain').length,
    spans.length - 1,
    'every other span is the chain instrumentation',
  );
});

test('the OpenInference mapper reads the call: question, answer and retrieved chunks as the route returned them', () => {
  const mapped = mapSpans(traceId, spans);
  assert.ok(mapped, 'a mapper claims the spans');
  assert.equal(mapped.convention, 'openinference');
  const observed = mapped.observed!;
  assert.equal(observed.query, invoke.output.input);
  assert.equal(observed.answer?.trim(), invoke.output.answer.trim());
  assert.deepEqual(
    observed.retrieved.map((d) => d.metadata.chunk_id),
    invoke.output.context.map((d) => d.metadata.chunk_id),
  );
  assert.deepEqual(
    observed.retrieved.map((d) => d.content),
    invoke.output.context.map((d) => d.page_content),
  );
  for (const [i, doc] of observed.retrieved.entries()) {
    assert.equal(doc.metadata.version, invoke.output.context[i]!.metadata.version);
    assert.equal(doc.metadata.valid_from, invoke.output.context[i]!.metadata.valid_from);
  }
  assert.equal(observed.models.generator, 'gemma-3-270m-q4_k_m');
  assert.equal(observed.models.embedder, undefined, 'no span names the embedder: none is invented');
});

test('no retrieval score and no document id in any span: no Trace, the scores the only blocking gap, none invented', () => {
  const mapped = mapSpans(traceId, spans)!;
  assert.equal(mapped.trace, null);
  const blocking = mapped.gaps.filter((g) => BLOCKING_PIECES.has(g.piece));
  assert.deepEqual([...new Set(blocking.map((g) => g.piece))].sort(), ['candidate_scores', 'document_metadata']);
  for (const gap of blocking) assert.match(gap.detail, /score/, gap.detail);
  assert.equal(blocking.filter((g) => g.piece === 'candidate_scores').length, invoke.output.context.length);
  for (const doc of mapped.observed!.retrieved) {
    assert.equal('score' in doc, false);
    // langchain-qdrant returns Document.id null: the mapper keeps it absent rather than making one up.
    assert.equal(doc.id, undefined);
  }
  for (const doc of invoke.output.context) assert.equal(doc.id, null);
});
