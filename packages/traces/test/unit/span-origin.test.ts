/**
 * Probe or user: the sentinel's `rag-immune=probe` tracestate member, carried through OTLP's
 * Span.trace_state, is the only thing that makes a span a probe's; and a user span's text
 * attributes are redacted while what a diagnosis reads stays as it was.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeJsonExport,
  isProbeTraceState,
  newProbeTraceContext,
  probeTraceHeaders,
  redactSpanText,
  spanOrigin,
  userSpansIndex,
  probeSpansIndex,
  type SpanRecord,
} from '../../src/index.ts';

test('only an exact rag-immune=probe member marks a probe', () => {
  assert.equal(isProbeTraceState('rag-immune=probe'), true);
  assert.equal(isProbeTraceState('congo=t61rcWkgMzE, rag-immune=probe'), true);
  assert.equal(isProbeTraceState('rag-immune=probe,rojo=00f067aa0ba902b7'), true);
  for (const other of [undefined, null, '', 'rag-immune=user', 'xrag-immune=probe', 'rag-immune=probes', 'congo=t61rcWkgMzE'])
    assert.equal(isProbeTraceState(other), false, String(other));
  const probe = newProbeTraceContext();
  assert.deepEqual(probeTraceHeaders(probe), { traceparent: probe.traceparent, tracestate: 'rag-immune=probe' });
  assert.equal(probeSpansIndex('p'), 'p-otlp-spans');
  assert.equal(userSpansIndex('p'), 'p-otlp-user-spans');
});

test('OTLP trace_state is decoded onto the span and decides its origin', () => {
  const span = (traceState?: string) => ({
    traceId: 'ab'.repeat(16),
    spanId: traceState === undefined ? '01'.repeat(8) : '02'.repeat(8),
    ...(traceState === undefined ? {} : { traceState }),
    name: 'rag.query',
  });
  const { spans } = decodeJsonExport({ resourceSpans: [{ scopeSpans: [{ spans: [span(), span('rag-immune=probe')] }] }] });
  assert.deepEqual(
    spans.map((s) => [s.trace_state, spanOrigin(s)]),
    [
      [undefined, 'user'],
      ['rag-immune=probe', 'probe'],
    ],
  );
});

test('redactSpanText rewrites text attributes (plain, JSON, structured, events) and nothing else', () => {
  const span: SpanRecord = {
    trace_id: 'ab'.repeat(16),
    span_id: '01'.repeat(8),
    parent_span_id: null,
    name: 'SECRET in a name is not user text',
    kind: 'internal',
    start_ms: 1,
    end_ms: 2,
    status: 'ok',
    attributes: {
      'input.value': 'SECRET question',
      'input.mime_type': 'text/plain',
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'SECRET answer' }], n: 0.5 }]),
      'gen_ai.retrieval.documents': [{ id: 'SECRET-id', content: 'SECRET content', score: 0.3 }],
      'retrieval.documents.0.document.id': 'SECRET-chunk',
      'retrieval.documents.0.document.metadata': '{"version":"SECRET-version"}',
      'llm.model_name': 'SECRET-model',
    },
    dropped_attributes_count: 0,
    events: [{ name: 'exception', time_ms: 2, attributes: { 'exception.message': 'failed on SECRET', 'exception.type': 'SECRET' } }],
    resource: { 'service.name': 'SECRET-rag' },
    scope: { name: 's', version: '1' },
  };
  const { span: redacted, changed } = redactSpanText(span, (text) => text.replaceAll('SECRET', '[x]'));
  assert.equal(changed, 4);
  assert.equal(redacted.attributes['input.value'], '[x] question');
  assert.deepEqual(JSON.parse(redacted.attributes['gen_ai.output.messages'] as string), [
    { role: 'assistant', parts: [{ type: 'text', content: '[x] answer' }], n: 0.5 },
  ]);
  // Every string leaf of a text attribute is redacted (the patterns are what spare ids).
  assert.deepEqual(redacted.attributes['gen_ai.retrieval.documents'], [{ id: '[x]-id', content: '[x] content', score: 0.3 }]);
  assert.equal(redacted.events[0]!.attributes['exception.message'], 'failed on [x]');
  // Ids, metadata, model names, the span name, the resource and the event type are not user text.
  for (const key of ['retrieval.documents.0.document.id', 'retrieval.documents.0.document.metadata', 'llm.model_name'])
    assert.equal(redacted.attributes[key], span.attributes[key], key);
  assert.equal(redacted.events[0]!.attributes['exception.type'], 'SECRET');
  assert.equal(redacted.name, span.name);
  assert.deepEqual(redacted.resource, span.resource);
  assert.equal(span.attributes['input.value'], 'SECRET question', 'the input span is not modified');
});
