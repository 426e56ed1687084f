/**
 * Probe spans and users' spans, through the real OpenTelemetry SDK and its OTLP protobuf exporter:
 * a call under the sentinel's traceparent + `rag-immune=probe` tracestate lands in the probe store
 * as sent; the same call under a user's plain traceparent lands in the user store only, its query,
 * answer and prompt redacted; user traffic switched off (or off for one service) stores none of it.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { context, trace, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import pino from 'pino';
import { InMemorySpanStore, mapSpans, newProbeTraceContext, probeTraceHeaders, type SpanRecord } from '@rag-immune/traces';
import { startTraceIntake, type TraceIntake } from '../../src/index.ts';

const logger = pino({ level: 'silent' });
const propagator = new W3CTraceContextPropagator();
const providers: BasicTracerProvider[] = [];
const intakes: TraceIntake[] = [];
after(async () => {
  for (const provider of providers) await provider.shutdown();
  for (const intake of intakes) await intake.stop();
});

const QUERY = 'I am jane.doe@example.org, card 4111 1111 1111 1111: what is the latest version of openssl?';
const ANSWER = 'openssl 3.0.13; we wrote to jane.doe@example.org.';

async function intakeWith(env: Record<string, string>, serviceName = 'reference-rag-online') {
  const stores = { probe: new InMemorySpanStore(), user: new InMemorySpanStore() };
  const intake = await startTraceIntake({ TRACE_INTAKE_PORT: '0', ...env }, logger, { store: stores.probe, userStore: stores.user });
  intakes.push(intake);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${intake.url}/v1/traces` }))],
  });
  providers.push(provider);
  return { intake, stores, provider, tracer: provider.getTracer('rag') };
}

/** One RAG call (CHAIN over RETRIEVER and LLM) under the caller's headers, exported and flushed. */
async function answer(tracer: Tracer, provider: BasicTracerProvider, headers: Record<string, string>): Promise<string> {
  const parent = propagator.extract(context.active(), headers, { get: (carrier, key) => carrier[key], keys: Object.keys });
  const root = tracer.startSpan(
    'rag.query',
    {
      attributes: {
        'openinference.span.kind': 'CHAIN',
        'input.value': QUERY,
        'output.value': ANSWER,
        'rag_immune.citations': JSON.stringify(['openssl#0']),
        metadata: JSON.stringify({ 'rag_immune.as_of': '2024-06-01T00:00:00Z', user: 'jane.doe@example.org' }),
      },
    },
    parent,
  );
  const inRoot = trace.setSpan(parent, root);
  tracer
    .startSpan(
      'retrieve',
      {
        attributes: {
          'openinference.span.kind': 'RETRIEVER',
          'input.value': QUERY,
          'retrieval.documents.0.document.id': 'openssl#0',
          'retrieval.documents.0.document.score': 0.8123456789,
          'retrieval.documents.0.document.content': 'openssl 3.0.13-0ubuntu3.4, released 2024-01-30',
          'retrieval.documents.0.document.metadata': JSON.stringify({
            chunk_id: 'openssl#0',
            doc_id: 'openssl',
            knowledge_id: 'openssl',
            version: '3.0.13-0ubuntu3.4',
            source: 'debian',
            source_trust: 1,
            updated_at: '2024-01-30T00:00:00Z',
            valid_from: '2024-01-30T00:00:00Z',
            valid_until: null,
          }),
        },
      },
      inRoot,
    )
    .end();
  tracer
    .startSpan(
      'generate',
      {
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'extractive-v1',
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.content': QUERY,
          'llm.output_messages.0.message.content': ANSWER,
        },
      },
      inRoot,
    )
    .end();
  root.end();
  await provider.forceFlush();
  return root.spanContext().traceId;
}

const text = (spans: SpanRecord[]) => JSON.stringify(spans);

async function spanCount(intake: TraceIntake, labels: Record<string, string>): Promise<number> {
  const metric = await intake.registry.getSingleMetric('trace_intake_spans_total')!.get();
  return metric.values
    .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
    .reduce((sum, v) => sum + v.value, 0);
}

test('a probe call goes to the probe store as sent; a user call to the user store only, redacted', async () => {
  const { intake, stores, provider, tracer } = await intakeWith({});
  const probeTrace = await answer(tracer, provider, probeTraceHeaders(newProbeTraceContext()));
  const userContext = newProbeTraceContext();
  const userTrace = await answer(tracer, provider, { traceparent: userContext.traceparent });

  const probeSpans = await stores.probe.spansOf(probeTrace);
  assert.equal(probeSpans.length, 3);
  assert.ok(probeSpans.every((s) => s.trace_state === 'rag-immune=probe'));
  assert.match(text(probeSpans), /jane\.doe@example\.org/, 'probe spans are the sentinel’s own questions: kept as sent');
  assert.deepEqual(await stores.user.spansOf(probeTrace), []);

  const userSpans = await stores.user.spansOf(userTrace);
  assert.equal(userSpans.length, 3);
  assert.deepEqual(await stores.probe.spansOf(userTrace), []);
  assert.doesNotMatch(text(userSpans), /jane\.doe|example\.org|4111/);
  const mapped = mapSpans(userTrace, userSpans);
  assert.ok(mapped?.trace, JSON.stringify(mapped?.gaps));
  assert.equal(mapped.trace!.query, 'I am [email], card [card]: what is the latest version of openssl?');
  assert.equal(mapped.trace!.answer, 'openssl 3.0.13; we wrote to [email].');
  // What a diagnosis reads is untouched: ids, scores, versions, dates, the model.
  assert.deepEqual(mapped.trace!.candidates, [
    { chunk_id: 'openssl#0', knowledge_id: 'openssl', version: '3.0.13-0ubuntu3.4', retrieval_score: 0.8123456789, rank: 1 },
  ]);
  assert.equal(mapped.trace!.context[0]!.text, 'openssl 3.0.13-0ubuntu3.4, released 2024-01-30');
  assert.equal(mapped.trace!.models.generator, 'extractive-v1');
  assert.equal(mapped.trace!.as_of, '2024-06-01T00:00:00.000Z');

  assert.equal(await spanCount(intake, { outcome: 'stored', origin: 'probe' }), 3);
  assert.equal(await spanCount(intake, { outcome: 'stored', origin: 'user' }), 3);
  const redactions = await intake.registry.getSingleMetric('trace_intake_redactions_total')!.get();
  const byRule = Object.fromEntries(redactions.values.map((v) => [v.labels.rule, v.value]));
  // Query on the root, the retriever and the LLM input (3 e-mails, 3 cards); answer twice; metadata once.
  assert.deepEqual(byRule, { email: 6, card: 3 });
});

test('TRACE_INTAKE_USER_TRAFFIC=off keeps every user span out; probes still go in', async () => {
  const { intake, stores, provider, tracer } = await intakeWith({ TRACE_INTAKE_USER_TRAFFIC: 'off' });
  const userTrace = await answer(tracer, provider, { traceparent: newProbeTraceContext().traceparent });
  const probeTrace = await answer(tracer, provider, probeTraceHeaders(newProbeTraceContext()));
  assert.deepEqual(await stores.user.spansOf(userTrace), []);
  assert.deepEqual(await stores.probe.spansOf(userTrace), []);
  assert.equal((await stores.probe.spansOf(probeTrace)).length, 3);
  assert.equal(await spanCount(intake, { outcome: 'ignored', reason: 'user_traffic_off', origin: 'user' }), 3);
});

test('TRACE_INTAKE_USER_TRAFFIC_EXCLUDE keeps one RAG’s users out and lets another’s in', async () => {
  const env = { TRACE_INTAKE_USER_TRAFFIC_EXCLUDE: 'langchain-rag, other-rag' };
  const excluded = await intakeWith(env, 'langchain-rag');
  const excludedTrace = await answer(excluded.tracer, excluded.provider, { traceparent: newProbeTraceContext().traceparent });
  assert.deepEqual(await excluded.stores.user.spansOf(excludedTrace), []);
  const kept = await intakeWith(env, 'reference-rag-online');
  const keptTrace = await answer(kept.tracer, kept.provider, { traceparent: newProbeTraceContext().traceparent });
  assert.equal((await kept.stores.user.spansOf(keptTrace)).length, 3);
});

test('the intake logs no user text, when all goes well and when the user store fails', async () => {
  const lines: string[] = [];
  const capture = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
  const failing = {
    write: () => Promise.reject(new Error('user index unavailable')),
    spansOf: () => Promise.resolve([]),
    purgeReceivedBefore: () => Promise.resolve(0),
  };
  const intake = await startTraceIntake({ TRACE_INTAKE_PORT: '0' }, capture, { store: new InMemorySpanStore(), userStore: failing });
  intakes.push(intake);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'reference-rag-online' }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${intake.url}/v1/traces` }))],
  });
  providers.push(provider);
  const tracer = provider.getTracer('rag');
  await answer(tracer, provider, probeTraceHeaders(newProbeTraceContext()));
  // The user's export straight over OTLP/JSON: the 503 comes back at once (the SDK would retry for seconds).
  const user = await fetch(`${intake.url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'reference-rag-online' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: newProbeTraceContext().trace_id,
                  spanId: '0123456789abcdef',
                  name: 'rag.query',
                  attributes: [
                    { key: 'openinference.span.kind', value: { stringValue: 'CHAIN' } },
                    { key: 'input.value', value: { stringValue: QUERY } },
                    { key: 'output.value', value: { stringValue: ANSWER } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    }),
  });
  assert.equal(user.status, 503);
  assert.ok(
    lines.some((line) => /span store write failed/.test(line)),
    'the failed user write is logged (the exporter is told 503 and retries)',
  );
  assert.doesNotMatch(lines.join('\n'), /jane\.doe|example\.org|4111|latest version of openssl/);
});
