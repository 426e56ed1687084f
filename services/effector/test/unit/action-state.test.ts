import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ACTION_STATUSES,
  InvalidActionTransitionError,
  assertActionTransition,
  assertInitialStatus,
  canMoveAction,
  type ActionStatus,
} from '../../src/state/action-state.ts';

/** Every move the effector makes, and only those (the ASCII diagram in action-state.ts). */
const EXPECTED: Record<ActionStatus, ActionStatus[]> = {
  planned: ['awaiting_grant', 'started', 'failed', 'escalated'],
  awaiting_grant: ['started', 'failed', 'escalated'],
  started: ['executed', 'failed', 'planned', 'rolled_back', 'undoing'],
  executed: ['succeeded', 'failed', 'planned', 'rolled_back', 'undoing'],
  succeeded: ['rolled_back'],
  undoing: ['rolled_back', 'failed'],
  failed: ['rolled_back'],
  rolled_back: [],
  escalated: [],
};

test('the allowed action transitions are exactly the table, over every pair of statuses', () => {
  for (const from of ACTION_STATUSES)
    for (const to of ACTION_STATUSES) assert.equal(canMoveAction(from, to), EXPECTED[from].includes(to), `${from} → ${to}`);
});

test('a repair never runs again once finished: rolled_back and escalated are final, succeeded only rolls back', () => {
  for (const to of ACTION_STATUSES) {
    assert.throws(() => assertActionTransition('rolled_back', to), InvalidActionTransitionError);
    assert.throws(() => assertActionTransition('escalated', to), InvalidActionTransitionError);
  }
  assert.throws(() => assertActionTransition('succeeded', 'started'), /cannot go from succeeded to started/);
  assert.doesNotThrow(() => assertActionTransition('succeeded', 'rolled_back'));
});

test('an action is created planned, or failed when its tool cannot be planned; never mid-run', () => {
  assert.doesNotThrow(() => assertInitialStatus('planned'));
  assert.doesNotThrow(() => assertInitialStatus('failed'));
  for (const status of ['awaiting_grant', 'started', 'executed', 'succeeded', 'rolled_back', 'escalated', 'undoing'] as const)
    assert.throws(() => assertInitialStatus(status), /cannot be created/);
});

test('a failed repair owes its undo: undoing is neither terminal nor resumable as a fresh run, and keeps its snapshot', async () => {
  const { TERMINAL, IN_FLIGHT, UNFINISHED } = await import('../../src/state/action-state.ts');
  assert.equal(TERMINAL.has('undoing'), false);
  assert.equal(IN_FLIGHT.has('undoing'), false, 'never put back to planned and re-run on top of a half-undone repair');
  assert.ok(UNFINISHED.includes('undoing'), 'retention keeps the snapshot the undo restores');
  assert.throws(() => assertActionTransition('undoing', 'planned'), InvalidActionTransitionError);
  assert.throws(() => assertActionTransition('undoing', 'succeeded'), InvalidActionTransitionError);
});
