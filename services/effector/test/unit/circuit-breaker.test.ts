import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakerVerdict } from '../../src/index.ts';

const limits = { maxFailedRepairs: 3, componentRateLimit: 5, componentRateWindowMs: 600_000 };

test('breaker: closed below the limits, open at 3 failed repairs, open at the component rate limit', () => {
  assert.deepEqual(breakerVerdict({ failedRepairs: 2, componentStartsInWindow: 4 }, limits, 'reranker'), { open: false });
  const failed = breakerVerdict({ failedRepairs: 3, componentStartsInWindow: 0 }, limits, 'reranker');
  assert.equal(failed.open && failed.reason, 'failed_repairs');
  const rate = breakerVerdict({ failedRepairs: 0, componentStartsInWindow: 5 }, limits, 'reranker');
  assert.equal(rate.open && rate.reason, 'component_rate_limit');
  assert.match(rate.open ? rate.message : '', /5 repairs of reranker in the last 600 s/);
});
