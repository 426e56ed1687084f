import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { QueryResponse } from '@rag-immune/rag-contract';
import { harmedProbes, outcomeOf, probeOutcomes } from '../../src/loop/fault-effect.ts';

const response = (answer: string, chunks: [string, string][]): QueryResponse =>
  ({
    trace_id: 't',
    answer,
    citations: [],
    chunks: chunks.map(([knowledge_id, version], i) => ({
      doc_id: `d${i}`,
      chunk_id: `c${i}`,
      knowledge_id,
      version,
      source: 'debian-changelog',
      source_trust: 0.9,
      updated_at: '2026-01-01T00:00:00.000Z',
      valid_from: '2026-01-01T00:00:00.000Z',
      valid_until: null,
      retrieval_score: 0.5,
      text: 'x',
    })),
    models: { embedder: 'e', reranker: 'r', generator: 'g' },
    timings: { total_ms: 1, retrieve_ms: 1, rerank_ms: 1, generate_ms: 1 },
    as_of: '2026-12-01T00:00:00.000Z',
  }) as unknown as QueryResponse;

test('answers: a changed answer is harm, the same answer is not; retrieval: the chunks in rank order', () => {
  assert.equal(outcomeOf(response(' 1.2-3 ', []), 'answers'), '1.2-3');
  assert.equal(
    outcomeOf(
      response('a', [
        ['changelog/x', '1'],
        ['apt/x', '2'],
      ]),
      'retrieval',
    ),
    'changelog/x@1 apt/x@2',
  );
  const before = new Map([
    ['p1', '1.2-3'],
    ['p2', 'alice'],
  ]);
  assert.deepEqual(harmedProbes(before, new Map(before)), []);
  assert.deepEqual(
    harmedProbes(
      before,
      new Map([
        ['p1', '1.2-3'],
        ['p2', 'bob'],
      ]),
    ),
    ['p2'],
  );
});

test('a probe whose call fails after the injection counts as harmed (a latency fault changes no text)', async () => {
  let fail = false;
  const server = createServer((req, res) => {
    if (fail) {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom","error_id":"e1"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response('1.0', [['changelog/x', '1.0']])));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const probes = [
    { id: 'p1', version: 1, query: 'q', expected_sources: [], business_value: 1, cluster: 'c', created_at: '', retired_at: null },
  ];
  try {
    const before = await probeOutcomes(url, probes, 'answers');
    assert.equal(before.get('p1'), '1.0', 'the fake answers as the contract says');
    assert.deepEqual(harmedProbes(before, await probeOutcomes(url, probes, 'answers')), []);
    fail = true;
    assert.deepEqual(harmedProbes(before, await probeOutcomes(url, probes, 'answers')), ['p1']);
  } finally {
    server.close();
  }
});
