import { test } from 'node:test';
import assert from 'node:assert/strict';
import { effectiveStatus, type GrantDoc } from '../../src/index.ts';

const grant = (patch: Partial<GrantDoc>): GrantDoc => ({
  key: 'inc:r1:refresh_knowledge_source',
  action_id: 'a',
  incident_id: 'inc',
  tool: 'refresh_knowledge_source',
  reversible: false,
  status: 'pending',
  requested_at: '2026-11-30T10:00:00.000Z',
  expires_at: '2026-11-30T10:15:00.000Z',
  decided_by: null,
  decided_at: null,
  note: null,
  ...patch,
});

test('grants expire: a pending request or an approval past its expiry reads as expired; a denial stays denied', () => {
  const before = new Date('2026-11-30T10:14:59.000Z');
  const after = new Date('2026-11-30T10:15:00.000Z');
  assert.equal(effectiveStatus(grant({}), before), 'pending');
  assert.equal(effectiveStatus(grant({}), after), 'expired');
  assert.equal(effectiveStatus(grant({ status: 'approved' }), before), 'approved');
  assert.equal(effectiveStatus(grant({ status: 'approved' }), after), 'expired');
  assert.equal(effectiveStatus(grant({ status: 'denied' }), after), 'denied');
});
