/**
 * The intake decodes real exporter output: the OpenTelemetry JS SDK with the real OpenInference
 * LangChain instrumentation around a small LCEL chain, exported by the real OTLP/HTTP exporters
 * (protobuf, and JSON gzipped) to two intakes; each maps the probe's trace to the expected Trace.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { SpanKind, context, propagation } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { CompressionAlgorithm } from '@opentelemetry/otlp-exporter-base';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { InMemorySpanStore, ProbeTraceReader, newProbeTraceContext, probeTraceHeaders } from '@rag-immune/traces';
import { startTraceIntake, type TraceIntake } from '../../src/index.ts';
import { ANSWER, KNOWLEDGE, smallRagChain } from '../support/langchain-rag.ts';

const logger = pino({ level: 'silent' });
const stores = { protobuf: new InMemorySpanStore(), json: new InMemorySpanStore() };
const intakes: TraceIntake[] = [];
let provider: NodeTracerProvider;

before(async () => {
  for (const store of Object.values(stores)) intakes.push(await startTraceIntake({ TRACE_INTAKE_PORT: '0' }, logger, { store }));
  provider = new NodeTracerProvider({
    spanProcessors: [
      new SimpleSpanProcessor(new ProtobufExporter({ url: `${intakes[0]!.url}/v1/traces` })),
      new SimpleSpanProcessor(new JsonExporter({ url: `${intakes[1]!.url}/v1/traces`, compression: CompressionAlgorithm.GZIP })),
    ],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const instrumentation = new LangChainInstrumentation({ tracerProvider: provider });
  instrumentation.manuallyInstrument(CallbackManagerModule);
});

after(async () => {
  await provider.shutdown();
  for (const intake of intakes) await intake.stop();
});

test('a LangChain.js chain traced by OpenInference maps to the contract Trace, through protobuf and through gzipped JSON', async () => {
  const probe = newProbeTraceContext();
  const question = 'What is the latest version of openssl?';
  // The chain runs as the RAG would under the sentinel’s traceparent and probe tracestate (its HTTP server extracts them).
  const parent = propagation.extract(context.active(), probeTraceHeaders(probe));
  const answer = await context.with(parent, () =>
    smallRagChain().invoke(question, {
      metadata: { 'rag_immune.as_of': '2024-06-01T00:00:00Z', 'rag_immune.embedder': 'all-MiniLM-L6-v2' },
    }),
  );
  assert.equal(answer, ANSWER);
  await provider.forceFlush();

  for (const [encoding, store] of Object.entries(stores)) {
    const read = await new ProbeTraceReader(store, { waitMs: 5000 }).read(probe.traceparent);
    assert.ok(read.ok, `${encoding}: ${read.ok ? '' : read.reason}`);
    const { trace, gaps, convention } = read.mapped;
    assert.equal(convention, 'openinference', encoding);
    assert.ok(trace);
    assert.equal(trace.trace_id, probe.trace_id);
    assert.equal(trace.query, question);
    assert.equal(trace.answer, ANSWER);
    assert.equal(trace.as_of, '2024-06-01T00:00:00.000Z');
    assert.deepEqual(
      trace.candidates,
      KNOWLEDGE.map((k, i) => ({
        chunk_id: k.chunk_id,
        knowledge_id: k.knowledge_id,
        version: k.version,
        retrieval_score: k.retrieval_score,
        rank: i + 1,
      })),
      encoding,
    );
    assert.deepEqual(
      trace.context,
      KNOWLEDGE.map(({ retrieval_score, text, ...metadata }) => ({ ...metadata, retrieval_score, text })),
      encoding,
    );
    assert.deepEqual(trace.reranked, []);
    assert.equal(trace.models.embedder, 'all-MiniLM-L6-v2');
    // What the chain does not say is a gap, not a value: no reranker, no citations.
    const pieces = gaps.map((g) => g.piece);
    for (const piece of ['reranked', 'citations', 'models.reranker'] as const)
      assert.ok(pieces.includes(piece), `${encoding}: ${piece} in ${pieces}`);
    assert.equal(trace.models.reranker, 'unreported');
    assert.ok(trace.timings.total_ms >= 0 && trace.timings.retrieve_ms !== undefined);
  }
});

/** The metric's value for one label set, read from the intake's registry. */
async function spanCount(intake: TraceIntake, labels: Record<string, string>): Promise<number> {
  const metric = await intake.registry.getSingleMetric('trace_intake_spans_total')!.get();
  return metric.values
    .filter((v) => Object.entries(labels).every(([k, value]) => v.labels[k] === value))
    .reduce((sum, v) => sum + v.value, 0);
}

test('a hand-built OTel GenAI span set maps to the contract Trace; spans of unknown or unread kinds are dropped and counted', async () => {
  const probe = newProbeTraceContext();
  const tracer = provider.getTracer('genai-rag');
  const question = 'Which version of curl fixes CVE-2024-2398?';
  const docs = [
    {
      id: 'curl-8.7.1#0',
      score: 0.77,
      content: 'curl 8.7.1 fixes CVE-2024-2398.',
      metadata: {
        doc_id: 'curl-8.7.1',
        knowledge_id: 'curl',
        version: '8.7.1',
        source: 'debian-changelog',
        source_trust: 0.9,
        updated_at: '2024-03-27T00:00:00Z',
        valid_from: '2024-03-27T00:00:00Z',
        valid_until: null,
      },
    },
    {
      id: 'curl-8.6.0#0',
      score: 0.52,
      content: 'curl 8.6.0 was released in January 2024.',
      metadata: {
        doc_id: 'curl-8.6.0',
        knowledge_id: 'curl',
        version: '8.6.0',
        source: 'debian-changelog',
        source_trust: 0.9,
        updated_at: '2024-01-31T00:00:00Z',
        valid_from: '2024-01-31T00:00:00Z',
        valid_until: '2024-03-27T00:00:00Z',
      },
    },
  ];
  const answerText = 'curl 8.7.1 fixes CVE-2024-2398.';
  const before = {
    unknown: await spanCount(intakes[1]!, { outcome: 'ignored', reason: 'unknown_kind' }),
    unread: await spanCount(intakes[1]!, { outcome: 'ignored', reason: 'unread_kind' }),
    none: await spanCount(intakes[1]!, { outcome: 'ignored', reason: 'no_convention' }),
  };

  const parent = propagation.extract(context.active(), probeTraceHeaders(probe));
  await context.with(parent, () =>
    tracer.startActiveSpan('POST /query', { kind: SpanKind.SERVER }, async (entry) => {
      tracer.startActiveSpan(
        'embeddings all-MiniLM-L6-v2',
        { attributes: { 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'all-MiniLM-L6-v2' } },
        (s) => s.end(),
      );
      tracer.startActiveSpan(
        'retrieval debian-kb',
        {
          attributes: {
            'gen_ai.operation.name': 'retrieval',
            'gen_ai.data_source.id': 'debian-kb',
            'gen_ai.retrieval.query.text': question,
            'gen_ai.retrieval.documents': JSON.stringify(docs),
            'rag_immune.citations': JSON.stringify(['curl-8.7.1#0']),
          },
        },
        (s) => s.end(),
      );
      tracer.startActiveSpan('execute_tool lookup', { attributes: { 'gen_ai.operation.name': 'execute_tool' } }, (s) => s.end());
      tracer.startActiveSpan('frobnicate', { attributes: { 'gen_ai.operation.name': 'frobnicate' } }, (s) => s.end());
      tracer.startActiveSpan('SELECT cache', (s) => s.end());
      tracer.startActiveSpan(
        'chat gpt-4o-mini',
        {
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'gpt-4o-mini',
            'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
            'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: question }] }]),
            'gen_ai.output.messages': JSON.stringify([
              { role: 'assistant', parts: [{ type: 'text', content: answerText }], finish_reason: 'stop' },
            ]),
          },
        },
        (s) => s.end(),
      );
      entry.end();
    }),
  );
  await provider.forceFlush();

  const read = await new ProbeTraceReader(stores.json, { waitMs: 5000 }).read(probe.traceparent);
  assert.ok(read.ok, read.ok ? '' : read.reason);
  const { trace, gaps } = read.mapped;
  assert.equal(read.mapped.convention, 'gen_ai');
  assert.equal(trace!.query, question);
  assert.equal(trace!.answer, answerText);
  assert.deepEqual(trace!.models, { embedder: 'all-MiniLM-L6-v2', reranker: 'unreported', generator: 'gpt-4o-mini-2024-07-18' });
  assert.deepEqual(
    trace!.candidates.map((c) => [c.chunk_id, c.knowledge_id, c.version, c.retrieval_score, c.rank]),
    [
      ['curl-8.7.1#0', 'curl', '8.7.1', 0.77, 1],
      ['curl-8.6.0#0', 'curl', '8.6.0', 0.52, 2],
    ],
  );
  assert.deepEqual(
    trace!.context.map((c) => [c.chunk_id, c.valid_from, c.valid_until, c.text]),
    [
      ['curl-8.7.1#0', '2024-03-27T00:00:00.000Z', null, docs[0]!.content],
      ['curl-8.6.0#0', '2024-01-31T00:00:00.000Z', '2024-03-27T00:00:00.000Z', docs[1]!.content],
    ],
  );
  assert.deepEqual(trace!.citations, [{ chunk_id: 'curl-8.7.1#0', doc_id: 'curl-8.7.1', knowledge_id: 'curl', version: '8.7.1' }]);
  assert.deepEqual(gaps.map((g) => g.piece).sort(), ['as_of', 'models.reranker', 'reranked']);
  // Only the entry and the three gen_ai spans a mapper reads were stored.
  assert.equal((await stores.json.spansOf(probe.trace_id)).length, 4);
  assert.equal((await spanCount(intakes[1]!, { outcome: 'ignored', reason: 'unknown_kind' })) - before.unknown, 1);
  assert.equal((await spanCount(intakes[1]!, { outcome: 'ignored', reason: 'unread_kind' })) - before.unread, 1);
  assert.equal((await spanCount(intakes[1]!, { outcome: 'ignored', reason: 'no_convention' })) - before.none, 1);
});

test("a span over the SDK's attribute limit arrives with its dropped count, and the mapper refuses to take its documents as whole", async () => {
  const probe = newProbeTraceContext();
  const tracer = provider.getTracer('overflowing-rag');
  const documents: Record<string, string | number> = {};
  for (let i = 0; i < 50; i += 1) {
    documents[`retrieval.documents.${i}.document.id`] = `c${i}`;
    documents[`retrieval.documents.${i}.document.score`] = 1 - i / 100;
    documents[`retrieval.documents.${i}.document.content`] = `chunk ${i}`;
  }
  const parent = propagation.extract(context.active(), probeTraceHeaders(probe));
  context.with(parent, () =>
    tracer.startActiveSpan(
      'chain',
      { attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': 'q', 'output.value': 'a' } },
      (root) => {
        tracer.startActiveSpan(
          'retrieve',
          { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': 'q', ...documents } },
          (s) => s.end(),
        );
        root.end();
      },
    ),
  );
  await provider.forceFlush();
  const spans = await stores.protobuf.spansOf(probe.trace_id);
  const retriever = spans.find((s) => s.name === 'retrieve')!;
  assert.ok(retriever.dropped_attributes_count > 0, 'the default limit of 128 attributes cut the span');
  const read = await new ProbeTraceReader(stores.protobuf, { waitMs: 5000 }).read(probe.traceparent);
  assert.equal(read.ok, false);
  assert.ok(read.mapped?.gaps.some((g) => g.piece === 'span_attributes'));
});
