import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FactConsistencyPort } from '@rag-immune/probing';
import { fcsAgainstContext } from '../../../src/traffic/signals/fcs-against-context.ts';
import { userAnswer } from './user-answer-fixture.ts';

const scorer = (score: number): FactConsistencyPort & { calls: number } => {
  const port = {
    calls: 0,
    score() {
      port.calls++;
      return Promise.resolve({ status: 'scored' as const, score, truncated: false, evidence_snippets: [] });
    },
  };
  return port;
};

test('an answer its own context does not support is bad; one it supports is not', async () => {
  const segment = { segment: 'pkg-openssl' };
  const low = await fcsAgainstContext({ fcs: scorer(0.1), minScore: 0.5, share: 1 }).read(userAnswer(), segment);
  const high = await fcsAgainstContext({ fcs: scorer(0.9), minScore: 0.5, share: 1 }).read(userAnswer(), segment);
  assert.equal(low?.bad, true);
  assert.equal(high?.bad, false);
});

test('only the configured share of answers is scored; the rest are not measured', async () => {
  const fcs = scorer(0.1);
  let i = 0;
  const signal = fcsAgainstContext({ fcs, minScore: 0.5, share: 0.25, random: () => (i++ % 4) / 4 });
  const readings = await Promise.all(Array.from({ length: 8 }, () => signal.read(userAnswer(), { segment: 's' })));
  assert.equal(fcs.calls, 2);
  assert.equal(readings.filter((r) => r === null).length, 6);
});

test('an abstention or an answer without context is not scored', async () => {
  const fcs = scorer(0.1);
  const signal = fcsAgainstContext({ fcs, minScore: 0.5, share: 1 });
  assert.equal(await signal.read(userAnswer({ abstained: true }), { segment: 's' }), null);
  assert.equal(await signal.read(userAnswer({ context: [] }), { segment: 's' }), null);
  assert.equal(fcs.calls, 0);
});
