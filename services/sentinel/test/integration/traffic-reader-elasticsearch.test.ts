/**
 * The traffic watcher's reader on the real Elasticsearch: user spans written in the intake's
 * document shape (packages/traces' SPAN_MAPPINGS) into `<prefix>-otlp-user-spans` come back as
 * judged answers once their trace has settled, each once; a watcher that lags too far jumps ahead
 * and counts what it passed over; more ready traces than a poll takes are sampled and counted; a
 * settled trace still missing its root span is waited for, then counted unreadable.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@elastic/elasticsearch';
import { SPAN_MAPPINGS, type Attributes, type SpanRecord } from '@rag-immune/traces';
import { endpoints } from '@rag-immune/test-kit/stack';
import { UserTraceReader, userSpanIndex } from '../../src/traffic/user-trace-reader.ts';

const prefix = `it-traffic-${randomUUID().slice(0, 8)}`;
const index = userSpanIndex(prefix);
const es = new Client({ node: endpoints.elasticsearchUrl });

before(async () => {
  await es.indices.create({ index, mappings: SPAN_MAPPINGS, settings: { number_of_replicas: 0 } });
});
after(async () => {
  await es.indices.delete({ index }).catch(() => undefined);
  await es.close();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const meta = (knowledgeId: string, chunk: string) =>
  JSON.stringify({
    doc_id: knowledgeId,
    chunk_id: chunk,
    knowledge_id: knowledgeId,
    version: '1.0',
    source: 'debian',
    source_trust: 1,
    updated_at: '2026-11-01T00:00:00Z',
    valid_from: '2026-11-01T00:00:00Z',
    valid_until: null,
  });

/** The spans an OpenInference RAG exports for one answer (root chain, retriever, LLM). */
function traceSpans(query: string, knowledgeId: string, withMetadata = true): SpanRecord[] {
  const traceId = hex(16);
  const base = Date.now();
  const span = (kind: string, attributes: Attributes, parent: string | null, name: string): SpanRecord => ({
    trace_id: traceId,
    span_id: hex(8),
    parent_span_id: parent,
    name,
    kind: 'internal',
    start_ms: base,
    end_ms: base + 20,
    status: 'ok',
    attributes: { 'openinference.span.kind': kind, ...attributes },
    dropped_attributes_count: 0,
    events: [],
    resource: { 'service.name': 'reference-rag' },
    scope: { name: 'test', version: '' },
  });
  const root = span(
    'CHAIN',
    { 'input.value': query, 'output.value': `about ${knowledgeId}`, 'rag_immune.citations': `["${knowledgeId}#0"]` },
    null,
    'rag.query',
  );
  return [
    root,
    span(
      'RETRIEVER',
      {
        'input.value': query,
        'retrieval.documents.0.document.id': `${knowledgeId}#0`,
        'retrieval.documents.0.document.score': 0.8,
        'retrieval.documents.0.document.content': `${knowledgeId} text`,
        ...(withMetadata ? { 'retrieval.documents.0.document.metadata': meta(knowledgeId, `${knowledgeId}#0`) } : {}),
      },
      root.span_id,
      'retrieve',
    ),
    span('LLM', { 'llm.model_name': 'gen', 'llm.output_messages.0.message.content': `about ${knowledgeId}` }, root.span_id, 'generate'),
  ];
}

/** Writes spans as the intake does (same document shape), received at `receivedAt`. */
async function store(spans: SpanRecord[], receivedAt: number): Promise<void> {
  await es.bulk({
    refresh: true,
    operations: spans.flatMap((span) => [
      { index: { _index: index, _id: `${span.trace_id}-${span.span_id}` } },
      {
        trace_id: span.trace_id,
        span_id: span.span_id,
        parent_span_id: span.parent_span_id,
        name: span.name,
        service_name: 'reference-rag',
        start_ms: span.start_ms,
        received_at: receivedAt,
        span,
      },
    ]),
  });
}

const options = {
  index,
  pageSize: 2,
  maxPages: 50,
  settleMs: 5000,
  incompleteWaitMs: 30_000,
  visibilityMs: 1000,
  maxLagMs: 600_000,
  maxTracesPerPoll: 100,
};

test('settled user traces are read once each, mapped to answers with their retrieval and citations', async () => {
  const t0 = 1_800_000_000_000;
  let now = t0;
  const reader = new UserTraceReader(es, { ...options, startAt: t0 - 60_000, now: () => now });
  const a = traceSpans('what does zlib do', 'pkg-zlib');
  const b = traceSpans('curl license', 'pkg-curl', false);
  await store(a, t0 - 30_000);
  // b's spans arrive in two batches; its last one is recent, so it has not settled yet.
  await store(b.slice(0, 2), t0 - 30_000);
  await store(b.slice(2), t0 - 2000);

  const first = await reader.poll();
  assert.deepEqual(
    first.answers.map((x) => [x.trace_id, x.trace.query, x.trace.context[0]?.knowledge_id, x.cited_chunk_ids]),
    [[a[0]!.trace_id, 'what does zlib do', 'pkg-zlib', ['pkg-zlib#0']]],
  );
  now = t0 + 10_000;
  const second = await reader.poll();
  assert.equal(second.answers.length, 1, 'b, once settled, and a not again');
  const answerB = second.answers[0]!;
  assert.equal(answerB.trace_id, b[0]!.trace_id);
  // Chunks without their versioned metadata make no contract Trace, yet the answer is judged.
  assert.deepEqual(answerB.trace.candidates, []);
  assert.ok(answerB.gaps.some((g) => g.piece === 'document_metadata'));
  assert.equal((await reader.poll()).answers.length, 0);
});

test('a watcher far behind jumps ahead and counts the traces it passed over; a poll takes a bounded sample', async () => {
  const t0 = 1_900_000_000_000;
  const reader = new UserTraceReader(es, { ...options, maxLagMs: 60_000, maxTracesPerPoll: 2, startAt: t0 - 3_600_000, now: () => t0 });
  for (let i = 0; i < 3; i++) await store(traceSpans(`old question ${i}`, 'pkg-old'), t0 - 1_800_000);
  for (let i = 0; i < 5; i++) await store(traceSpans(`new question ${i}`, 'pkg-new'), t0 - 30_000);
  const polled = await reader.poll();
  assert.equal(polled.answers.length, 2);
  assert.equal(polled.skipped, 3 + 3, 'three passed over, three sampled out');
  assert.ok(polled.answers.every((x) => x.trace.context[0]?.knowledge_id === 'pkg-new'));
});

test('a trace whose answer comes in a later batch is held until it arrives; one that never completes counts as unreadable', async () => {
  const t0 = 2_000_000_000_000;
  let now = t0;
  const reader = new UserTraceReader(es, { ...options, startAt: t0 - 60_000, now: () => now });
  // The retrieval's spans end first and a batching exporter sends them while the LLM still generates
  // (seconds on a small CPU model); the LLM's and the root's spans come in a later batch (LangChain RAG, 2026-12-07).
  const late = traceSpans('zlib version', 'pkg-zlib');
  const orphan = traceSpans('curl version', 'pkg-curl');
  await store([late[1]!], t0 - 20_000);
  await store([orphan[1]!], t0 - 20_000);
  const first = await reader.poll();
  assert.deepEqual([first.answers.length, first.unreadable], [0, 0], 'settled without an answer: waited for, not unreadable');

  await store([late[0]!, late[2]!], t0 - 8000);
  now = t0 + 5000;
  const second = await reader.poll();
  assert.deepEqual(
    second.answers.map((x) => [x.trace_id, x.trace.query]),
    [[late[0]!.trace_id, 'zlib version']],
  );
  assert.equal(second.unreadable, 0);

  now = t0 + 15_000;
  const third = await reader.poll();
  assert.deepEqual([third.answers.length, third.unreadable], [0, 1], 'the root never came: unreadable after incompleteWaitMs');
});
