/**
 * Issue 42: the project's own RAG contract written as a declarative adapter
 * (packages/rag-adapter/examples/health-contract.yaml). Through it the reference RAG, started
 * in-process on the real Qdrant, answers the same QueryResponse as through the contract client: what
 * the adapter reads is what the contract says, field for field. Only the per-call values (the trace
 * id, the timings, and the online side's as_of, "now" unless the request names one) differ between
 * two calls, so they are compared by presence.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { RagClient, type PartialQueryResponse } from '@rag-immune/rag-contract';
import { endpoints } from '@rag-immune/test-kit/stack';
import { loadQuestions, startReferenceRagPair, type ReferenceRagPair } from '@rag-immune/reference-rag/testing';
import { sentinelRagPorts } from '../../src/rag-ports.ts';

const adapterFile = fileURLToPath(new URL('../../../../packages/rag-adapter/examples/health-contract.yaml', import.meta.url));
let rags: ReferenceRagPair;

before(async () => {
  rags = await startReferenceRagPair({
    qdrantUrl: endpoints.qdrantUrl,
    qdrantApiKey: endpoints.qdrantApiKey,
    packages: 4,
    label: 'it-adapter',
    logger: pino({ level: 'error' }),
  });
});

after(async () => {
  await rags?.close();
});

/** The response without its per-call values. */
function stable(response: PartialQueryResponse): Omit<PartialQueryResponse, 'trace_id' | 'timings' | 'as_of'> {
  const { trace_id: traceId, timings, as_of: asOf, ...rest } = response;
  assert.equal(typeof traceId, 'string');
  assert.equal(typeof timings?.total_ms, 'number');
  assert.ok(Number.isFinite(Date.parse(asOf ?? '')));
  return rest;
}

test('the reference RAG through the health-contract adapter answers what the contract client gets', async () => {
  const rag = sentinelRagPorts(
    {
      SENTINEL_ONLINE_RAG_URL: rags.onlineUrl,
      SENTINEL_BASELINE_RAG_URL: rags.baselineUrl,
      SENTINEL_CALL_TIMEOUT_MS: 30_000,
      SENTINEL_RAG_ADAPTER_FILE: adapterFile,
    },
    {},
  );
  assert.deepEqual(rag.signals.unavailable, []);
  const questions = loadQuestions()
    .filter((q) => rags.knowledgeIds.has(q.knowledge_id))
    .slice(0, 3);
  assert.equal(questions.length, 3);
  const sides = [
    { port: rag.online, client: new RagClient({ baseUrl: rags.onlineUrl, timeoutMs: 30_000 }) },
    { port: rag.baseline, client: new RagClient({ baseUrl: rags.baselineUrl, timeoutMs: 30_000 }) },
  ];
  let chunks = 0;
  for (const { port, client } of sides)
    for (const [i, q] of questions.entries()) {
      // top_k and as_of go through the body template too (one question each).
      const request = { query: q.question, ...(i === 1 ? { top_k: 2 } : {}), ...(i === 2 ? { as_of: q.as_of } : {}) };
      const expected = await client.query(request);
      const adapted = await port.query(request);
      assert.deepEqual(stable(adapted), stable(expected), q.question);
      if (request.as_of !== undefined) assert.equal(adapted.as_of, expected.as_of);
      if (i === 1) assert.ok(adapted.chunks.length <= 2);
      chunks += adapted.chunks.length;
    }
  assert.ok(chunks > 0, 'the answers carried retrieved chunks to compare');
});
