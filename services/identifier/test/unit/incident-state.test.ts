import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertTransition, canTransition, INCIDENT_STATES, InvalidTransitionError } from '../../src/testing.ts';

test('the happy path open → diagnosing → reported → repairing → verified → closed is allowed', () => {
  const path = ['open', 'diagnosing', 'reported', 'repairing', 'verified', 'closed'] as const;
  for (let i = 1; i < path.length; i += 1) assert.ok(canTransition(path[i - 1]!, path[i]!), `${path[i - 1]} → ${path[i]}`);
});

test('repairing ends in verified, failed or escalated; a failed repair may be retried', () => {
  for (const to of ['verified', 'failed', 'escalated'] as const) assert.ok(canTransition('repairing', to));
  assert.ok(canTransition('failed', 'repairing'));
  assert.ok(canTransition('reported', 'reported'), 'a new revision');
});

test('closed is terminal; skipping the diagnosis into repair is refused', () => {
  for (const to of INCIDENT_STATES) assert.equal(canTransition('closed', to), false);
  assert.throws(() => assertTransition('open', 'repairing'), InvalidTransitionError);
  assert.throws(() => assertTransition('diagnosing', 'verified'), /diagnosing to verified/);
});
