/**
 * An intake trace is evidence for a probe call only when it carries the ProbeResult's query and an
 * answer hashing to the observation's answer_hash: a span set forged under the probe's trace id
 * (another answer that would blame the generator, another question) is refused like a missing trace,
 * and the evidence it would have made is not written. Recorded runs of the reference RAG's faults.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerHash, type ProbeResult } from '@rag-immune/contracts';
import { RagClient, type Trace } from '@rag-immune/rag-contract';
import { prepareAnalysis } from '../../src/analysis.ts';
import type { TraceSource } from '../../src/trace-diff/trace-sources.ts';
import { evidenceDrafts } from '../../src/testing.ts';
import { loadRecordedRuns } from '../fixtures/recorded-runs.ts';

const run = loadRecordedRuns().find((r) => r.kind === 'reranker-drift' && r.online_trace && r.baseline_trace)!;
const result: ProbeResult = {
  ...run.result,
  online: { ...run.result.online, answer_hash: answerHash(run.online_trace!.answer) },
  baseline: { ...run.result.baseline, answer_hash: answerHash(run.baseline_trace!.answer) },
};
// No RAG call is made: freshness lookups fail quietly and leave nothing out that this test reads.
const rag = new RagClient({ baseUrl: 'http://rag.test', fetch: async () => new Response('{}', { status: 404 }) });
const source = (trace: Trace, kind: 'intake' | 'endpoint' = 'intake'): TraceSource => ({
  read: async () => ({ ok: true, trace, source: kind, gaps: [] }),
});
const analyse = (online: Trace, kind: 'intake' | 'endpoint' = 'intake') =>
  prepareAnalysis(result, { online: rag, baseline: rag }, 1000, { online: source(online, kind), baseline: source(run.baseline_trace!) });

test("the probe call's own intake trace is evidence", async () => {
  const prepared = await analyse(run.online_trace!);
  assert.equal(prepared.status, 'ok');
  assert.equal(prepared.traceMismatch, undefined);
  assert.ok(evidenceDrafts(prepared).some((draft) => draft.kind === 'measurement'));
});

test('a forged intake trace with another answer, or another query, is no evidence and is reported as a mismatch', async () => {
  const forgedAnswer: Trace = { ...run.online_trace!, answer: 'openssl 9.9.9 was released by a stranger.', context: [] };
  const byAnswer = await analyse(forgedAnswer);
  assert.equal(byAnswer.status, 'trace_unavailable');
  assert.deepEqual(byAnswer.traceMismatch, { side: 'online', field: 'answer' });
  assert.match(byAnswer.problem!, /online: trace intake: the trace's answer does not hash/);
  assert.deepEqual(
    evidenceDrafts(byAnswer).map((draft) => draft.kind),
    ['trace_unavailable'],
    'no measurement from the forged spans',
  );

  const byQuery = await analyse({ ...run.online_trace!, query: 'how do I reset my password?' });
  assert.deepEqual(byQuery.traceMismatch, { side: 'online', field: 'query' });
  assert.equal(byQuery.diff, null);

  // Whitespace an exporter or a JSON round trip changes is not a mismatch.
  const rewrapped = await analyse({ ...run.online_trace!, answer: `  ${run.online_trace!.answer.replace(/ /g, '\n')} ` });
  assert.equal(rewrapped.status, 'ok');
});

test('a result from a sentinel without answer_hash is checked on its query; the RAG’s own GET /traces is not re-checked', async () => {
  const older: ProbeResult = { ...result, online: { ...result.online, answer_hash: null } };
  const other: Trace = { ...run.online_trace!, answer: 'another answer' };
  const prepared = await prepareAnalysis(older, { online: rag, baseline: rag }, 1000, {
    online: source(other),
    baseline: source(run.baseline_trace!),
  });
  assert.equal(prepared.status, 'ok');
  assert.equal((await analyse(other, 'endpoint')).status, 'ok');
});
