import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleRootCauseReport, type RootCauseReport } from '@rag-immune/contracts';
import { assertClaimsBacked, ClaimGateError } from '../../src/testing.ts';

const ledger = (ids: string[]) => ({
  existing: async (_incident: string, asked: readonly string[]) => new Set(asked.filter((id) => ids.includes(id))),
});

function report(evidence: string[][]): RootCauseReport {
  return {
    ...exampleRootCauseReport(),
    incident_id: 'inc-0000000000000001',
    root_cause: 'reranker_drift',
    confidence: 0.9,
    claims: evidence.map((ids, i) => ({
      claim_id: `c${i}`,
      kind: 'rerank_score_shift',
      subject: 'p',
      metric: 'm',
      observed: 1,
      baseline: 0,
      evidence_ids: ids,
    })),
    open_questions: [],
  };
}

test('a report whose claims cite ledger records passes', async () => {
  await assertClaimsBacked(report([['a'], ['b', 'c']]), ledger(['a', 'b', 'c']));
});

test('a claim citing a missing ledger id is refused, naming it', async () => {
  await assert.rejects(assertClaimsBacked(report([['a'], ['missing-1']]), ledger(['a'])), (error: unknown) => {
    assert.ok(error instanceof ClaimGateError);
    assert.match(error.message, /missing-1/);
    return true;
  });
});

test('a claim citing nothing, or a cause with no claims, is refused', async () => {
  await assert.rejects(assertClaimsBacked(report([[]]), ledger([])), /cites no evidence/);
  await assert.rejects(assertClaimsBacked(report([]), ledger([])), /without any claim/);
});
