import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROOT_CONTEXT, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { inSpan } from '../../src/index.ts';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');

test('inSpan returns the work result and ends the span with its attributes', async () => {
  exporter.reset();
  const value = await inSpan(tracer, 'worker.step', { incident_id: 'inc-1' }, ROOT_CONTEXT, async (span) => {
    span.setAttribute('outcome', 'healed');
    return 42;
  });
  assert.equal(value, 42);
  const [span] = exporter.getFinishedSpans();
  assert.equal(span?.name, 'worker.step');
  assert.deepEqual(span?.attributes, { incident_id: 'inc-1', outcome: 'healed' });
  assert.equal(span?.status.code, SpanStatusCode.UNSET);
});

test('inSpan records a failure on the span, marks it ERROR, ends it and rethrows', async () => {
  exporter.reset();
  await assert.rejects(
    inSpan(tracer, 'worker.step', {}, ROOT_CONTEXT, async () => {
      throw new Error('store down');
    }),
    /store down/,
  );
  const [span] = exporter.getFinishedSpans();
  assert.equal(span?.status.code, SpanStatusCode.ERROR);
  assert.equal(span?.events[0]?.name, 'exception');
});
