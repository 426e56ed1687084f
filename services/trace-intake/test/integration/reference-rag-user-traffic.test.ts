/**
 * Every answer traced, probes and users apart, on the real Elasticsearch and the real Qdrant: the
 * reference RAG pair exports its OpenInference spans over OTLP into an in-process trace intake. A
 * probe call (the sentinel's traceparent + `rag-immune=probe`) lands in the probe index and maps,
 * with packages/traces' mapper, to the same trace the RAG recorded (query, answer, context with
 * knowledge ids, versions and scores). Simulated users (the test kit's traffic generator: Zipf over
 * the question bank, rewordings, out-of-knowledge questions, pasted e-mail addresses, phone and card
 * numbers) land in the user index only, every call of them, with the personal data redacted.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Client } from '@elastic/elasticsearch';
import pino from 'pino';
import { RagClient } from '@rag-immune/rag-contract';
import { loadQuestions, startReferenceRagPair, type ReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { waitFor } from '@rag-immune/test-kit';
import { endpoints } from '@rag-immune/test-kit/stack';
import { TrafficGenerator } from '@rag-immune/test-kit/traffic/traffic-generator';
import { UserQueryMix } from '@rag-immune/test-kit/traffic/user-queries';
import {
  ElasticsearchSpanStore,
  mapSpans,
  newProbeTraceContext,
  probeSpansIndex,
  probeTraceHeaders,
  ProbeTraceReader,
  userSpansIndex,
} from '@rag-immune/traces';
import { startTraceIntake, type TraceIntake } from '../../src/index.ts';

const prefix = `it-traffic-${randomUUID().slice(0, 8)}`;
const logger = pino({ level: 'warn' });
const es = new Client({ node: endpoints.elasticsearchUrl });
let intake: TraceIntake;
let rags: ReferenceRagPair;

before(async () => {
  intake = await startTraceIntake(
    { TRACE_INTAKE_PORT: '0', ELASTICSEARCH_URL: endpoints.elasticsearchUrl, ES_INDEX_PREFIX: prefix },
    logger,
  );
  rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages: 6,
    label: prefix,
    logger,
    otlpTracesUrl: `${intake.url}/v1/traces`,
  });
});
after(async () => {
  await rags?.close();
  await intake?.stop();
  await es.indices.delete({ index: `${prefix}-*` }).catch(() => undefined);
  await es.close();
});

const countOf = async (index: string, traceIds: string[]) => {
  await es.indices.refresh({ index, ignore_unavailable: true });
  const response = await es.count({ index, query: { terms: { trace_id: traceIds } }, ignore_unavailable: true });
  return response.count;
};

test('a probe call lands in the probe index and maps to the trace the reference RAG recorded', async () => {
  const question = loadQuestions().find((q) => rags.knowledgeIds.has(q.knowledge_id))!;
  const probe = newProbeTraceContext();
  const client = new RagClient({ baseUrl: rags.onlineUrl, timeoutMs: 30_000 });
  const response = await client.query({ query: question.question }, { headers: probeTraceHeaders(probe) });

  const read = await new ProbeTraceReader(intake.store, { waitMs: 30_000 }).read(probe.traceparent);
  assert.ok(read.ok, read.ok ? '' : read.reason);
  const { trace, gaps } = read.mapped;
  assert.deepEqual(gaps, [], 'nothing missing');
  const recorded = rags.online.service.trace(response.trace_id)!;
  assert.equal(trace!.query, question.question);
  assert.equal(trace!.answer, response.answer);
  assert.deepEqual(
    trace!.context.map((c) => [c.chunk_id, c.knowledge_id, c.version, c.retrieval_score, c.rerank_score]),
    recorded.context.map((c) => [c.chunk_id, c.knowledge_id, c.version, c.retrieval_score, c.rerank_score]),
  );
  assert.ok(trace!.context.length > 0 && trace!.context.some((c) => c.knowledge_id === question.knowledge_id));
  assert.deepEqual(
    trace!.candidates.map((c) => c.chunk_id),
    recorded.candidates.map((c) => c.chunk_id),
  );
  assert.deepEqual(trace!.models, recorded.models);
  assert.equal(await countOf(userSpansIndex(prefix), [probe.trace_id]), 0, 'a probe is no user');
});

test('simulated users land in the user index only, every call, with their personal data redacted', async () => {
  const questions = loadQuestions().filter((q) => rags.knowledgeIds.has(q.knowledge_id));
  const report = await new TrafficGenerator({
    mix: new UserQueryMix(questions, { personalDataShare: 0.5, outOfKnowledgeShare: 0.2, seed: 11 }),
    url: rags.onlineUrl,
    rate: 5,
    maxRequests: 12,
    maxDurationMs: 60_000,
    callTimeoutMs: 30_000,
  }).run();
  assert.equal(report.answered, 12, report.requests.map((r) => r.error).join('; '));
  const withPersonalData = report.requests.filter((r) => r.personal_data !== null);
  assert.ok(withPersonalData.length > 0, 'some users pasted personal data');

  const traceIds = report.requests.map((r) => r.trace_id);
  // Each answer is 5 spans (query, embed, retrieve, rerank, generate), exported in batches.
  await waitFor(
    'every user call’s spans in the user index',
    async () => ((await countOf(userSpansIndex(prefix), traceIds)) === traceIds.length * 5 ? true : undefined),
    60_000,
  );
  assert.equal(await countOf(probeSpansIndex(prefix), traceIds), 0, 'no user span in the probe index');

  const users = new ElasticsearchSpanStore(es, prefix, 'user');
  for (const request of report.requests) {
    const spans = await users.spansOf(request.trace_id);
    const mapped = mapSpans(request.trace_id, spans)!;
    assert.ok(mapped.trace, `${request.trace_id}: ${JSON.stringify(mapped.gaps)}`);
    const raw = JSON.stringify(spans);
    assert.doesNotMatch(raw, /@example\.org|4111 1111|\+44 20 7946/, 'no personal data stored');
    if (request.personal_data !== null) {
      const placeholder = { email: '[email]', phone: '[phone]', card: '[card]' }[request.personal_data];
      assert.ok(mapped.trace.query.includes(placeholder), `${mapped.trace.query} has ${placeholder}`);
    } else assert.equal(mapped.trace.query, request.query);
  }
});
