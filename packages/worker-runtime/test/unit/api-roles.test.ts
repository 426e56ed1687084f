/** The shared per-caller roles (src/api-roles.ts): parsing a roles variable and what a caller may do. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callerRoles, roleTableEnv } from '../../src/api-roles.ts';

const ROLES = ['read', 'operate'] as const;

test('a roles variable names each caller once, with known roles only', () => {
  assert.deepEqual(roleTableEnv(ROLES).parse('alice=read+operate, bob=read\ncarol=operate+operate'), {
    alice: ['read', 'operate'],
    bob: ['read'],
    carol: ['operate'],
  });
  for (const bad of ['alice=read+grant', 'alice=read,alice=operate', 'al ice=read', 'alice=read=operate']) {
    const parsed = roleTableEnv(ROLES).safeParse(bad);
    assert.equal(parsed.success, false, bad);
  }
  assert.match(roleTableEnv(ROLES).safeParse('alice=grant').error?.issues[0]?.message ?? '', /roles read, operate/);
});

test('a named token has its listed roles; the shared token and anonymous callers only read; no table, every role', () => {
  const table = { alice: ['operate'] as const };
  assert.deepEqual([...callerRoles(ROLES, table, { name: 'alice', verified: true }, 'read')], ['operate']);
  assert.deepEqual([...callerRoles(ROLES, table, { name: 'mallory', verified: true }, 'read')], []);
  assert.deepEqual([...callerRoles(ROLES, table, { name: 'alice', verified: false }, 'read')], ['read']);
  assert.deepEqual([...callerRoles(ROLES, table, undefined, 'read')], ['read']);
  assert.deepEqual([...callerRoles(ROLES, null, undefined, 'read')].sort(), ['operate', 'read']);
});
