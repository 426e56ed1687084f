/**
 * Issue 42, item 4, on a real product's spans: what Flowise 2.2.8 exported for one prediction, as the
 * trace intake stored it (fixtures/flowise-spans.json, recorded by bench/rag-products/run.ts beside
 * that prediction's answer, fixtures/flowise-prediction.json). The call was made as a probe is
 * (traceparent and the probe mark): Flowise's HTTP server continued it (OpenTelemetry's Node
 * instrumentation), its chain's spans came from OpenInference's LangChain.js instrumentation (its
 * Phoenix analytics provider). What the mapper must do with them: find the call (query, answer, the
 * four retrieved chunks with the ids, versions and dates the ingestion wrote in their metadata), and
 * make no Trace because no span carries a retrieval score, naming that gap per document and
 * inventing no score.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { BLOCKING_PIECES, mapSpans, type SpanRecord } from '../../src/index.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as unknown;
const spans = fixture('flowise-spans.json') as SpanRecord[];
const prediction = fixture('flowise-prediction.json') as {
  question: string;
  text: string;
  sourceDocuments: { pageContent: string; metadata: Record<string, unknown> }[];
};
const traceId = spans[0]!.trace_id;

test('the recorded spans are one probe call: one trace, each carrying the probe mark, one entry under the caller', () => {
  assert.equal(new Set(spans.map((s) => s.trace_id)).size, 1);
  for (const span of spans) assert.equal(span.trace_state, 'rag-immune=probe', span.name);
  const ids = new Set(spans.map((s) => s.span_id));
  const entries = spans.filter((s) => s.parent_span_id === null || !ids.has(s.parent_span_id));
  assert.deepEqual(
    entries.map((s) => [s.name, s.scope.name]),
    [['POST', '@opentelemetry/instrumentation-http']],
  );
});

test('the OpenInference mapper reads the call: question, answer and retrieved chunks as Flowise returned them', () => {
  const mapped = mapSpans(traceId, spans);
  assert.ok(mapped, 'a mapper claims the spans');
  assert.equal(mapped.convention, 'openinference');
  const observed = mapped.observed!;
  assert.equal(observed.query, prediction.question);
  assert.equal(observed.answer?.trim(), prediction.text.trim());
  assert.deepEqual(
    observed.retrieved.map((d) => d.metadata.chunk_id),
    prediction.sourceDocuments.map((d) => d.metadata.chunk_id),
  );
  assert.deepEqual(
    observed.retrieved.map((d) => d.content),
    prediction.sourceDocuments.map((d) => d.pageContent),
  );
  assert.equal(observed.models.generator, 'gemma-3-270m-q4_k_m');
});

test('no retrieval score in any span: no Trace, the scores are the only blocking gap, none invented', () => {
  const mapped = mapSpans(traceId, spans)!;
  assert.equal(mapped.trace, null);
  const blocking = mapped.gaps.filter((g) => BLOCKING_PIECES.has(g.piece));
  assert.deepEqual([...new Set(blocking.map((g) => g.piece))].sort(), ['candidate_scores', 'document_metadata']);
  for (const gap of blocking) assert.match(gap.detail, /score/, gap.detail);
  assert.equal(blocking.filter((g) => g.piece === 'candidate_scores').length, prediction.sourceDocuments.length);
  for (const doc of mapped.observed!.retrieved) assert.equal('score' in doc, false);
});
