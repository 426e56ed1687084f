/**
 * Issue 40 item 6: tokens have roles. With EFFECTOR_API_ROLES a caller's own token may do what its
 * roles allow (read, operate, grant), a refusal is 403 naming the missing role and is audit-logged,
 * and the shared token (whose caller nobody vouches for) may only read. Unset: as before roles.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { WorkerConfigError, bearerAuth, workerHttpApp } from '@rag-immune/worker-runtime';
import { effectorConfigFromEnv } from '../../src/config.ts';
import type { ApiRoles } from '../../src/http/api-roles.ts';
import { effectorRoutes, type RouteDeps } from '../../src/http/routes.ts';
import type { AuditEntry, AuditLog } from '../../src/state/audit-log.ts';

const TOKENS = {
  shared: 'shared-effector-token-0123456789',
  reader: 'reader-effector-token-0123456789',
  oncall: 'oncall-effector-token-0123456789',
  approver: 'approver-effector-token-012345',
};

async function serve(roles: ApiRoles) {
  const entries: AuditEntry[] = [];
  const done: string[] = [];
  const deps = {
    audit: { record: async (entry: AuditEntry) => void entries.push(entry), list: async () => entries } as unknown as AuditLog,
    effector: {
      rollback: async (target: string) => (done.push(`rollback ${target}`), { target, kind: 'action', steps: [], done: true }),
      reopen: async (id: string) => (done.push(`reopen ${id}`), { incident_id: id }),
      decideGrant: async (key: string, decision: string, actor: string) => (
        done.push(`${decision} ${key}`),
        { key, action_id: 'none', status: decision, decided_by: actor }
      ),
    },
    grants: { list: async () => [] },
    actions: { list: async () => [], getById: async () => null },
    modes: { get: async () => ({ mode: 'observe' }), set: async () => void done.push('mode') },
    snapshots: { list: async () => [] },
    roles,
  } as unknown as RouteDeps;
  const app = workerHttpApp({
    worker: 'effector',
    registry: new Registry(),
    logger: pino({ level: 'silent' }),
    health: () => ({ ready: true }),
    routes: effectorRoutes(deps),
    auth: bearerAuth({
      worker: 'effector',
      host: '127.0.0.1',
      token: TOKENS.shared,
      tokens: { reader: TOKENS.reader, oncall: TOKENS.oncall, approver: TOKENS.approver },
      tokenEnv: 'EFFECTOR_API_TOKEN',
      logger: pino({ level: 'silent' }),
    }),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (token: keyof typeof TOKENS, method: string, path: string, body: unknown = {}) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKENS[token]}`, 'content-type': 'application/json' },
      ...(method === 'GET' ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as { error?: string } };
  };
  return { call, entries, done, close: () => new Promise((resolve) => server.close(resolve)) };
}

const commands = [
  ['GET', '/actions', 'read'],
  ['GET', '/audit', 'read'],
  ['POST', '/rollback', 'operate', { target: 'act-1' }],
  ['POST', '/incidents/inc-1/reopen', 'operate'],
  ['PUT', '/mode', 'operate', { mode: 'auto' }],
  ['POST', '/grants/inc-1%3Ar1%3Apin/approve', 'grant'],
  ['POST', '/grants/inc-1%3Ar1%3Apin/deny', 'grant'],
] as const;

test('with EFFECTOR_API_ROLES each caller may do what its roles allow; the rest is 403 naming the role, audit-logged, and not done', async () => {
  const api = await serve({ reader: ['read'], oncall: ['read', 'operate'], approver: ['read', 'grant'] });
  try {
    const allowed: Record<string, readonly string[]> = {
      reader: ['read'],
      oncall: ['read', 'operate'],
      approver: ['read', 'grant'],
      shared: ['read'],
    };
    for (const [caller, roles] of Object.entries(allowed)) {
      for (const [method, path, role, body] of commands) {
        const answer = await api.call(caller as keyof typeof TOKENS, method, path, body ?? {});
        if (roles.includes(role)) assert.equal(answer.status, 200, `${caller} ${method} ${path}: ${JSON.stringify(answer.json)}`);
        else {
          assert.equal(answer.status, 403, `${caller} ${method} ${path}`);
          assert.match(answer.json.error ?? '', new RegExp(`lacks the ${role} role`));
        }
      }
    }
    assert.deepEqual(api.done, ['rollback act-1', 'reopen inc-1', 'mode', 'approved inc-1:r1:pin', 'denied inc-1:r1:pin']);
    const refusals = api.entries.filter((e) => e.outcome === 'refused');
    assert.ok(refusals.some((e) => e.actor === 'reader' && e.command === 'POST /rollback'));
    assert.ok(refusals.some((e) => e.actor === 'oncall' && e.command.startsWith('POST /grants/')));
    assert.ok(refusals.some((e) => e.actor === 'shared-token' && e.command === 'PUT /mode'));
  } finally {
    await api.close();
  }
});

test('without EFFECTOR_API_ROLES every authenticated caller may do everything, as before', async () => {
  const api = await serve(null);
  try {
    for (const [method, path, , body] of commands) assert.equal((await api.call('reader', method, path, body ?? {})).status, 200);
    assert.equal((await api.call('shared', 'POST', '/rollback', { target: 'act-2' })).status, 200);
  } finally {
    await api.close();
  }
});

test('EFFECTOR_API_ROLES: parsed from name=role+role; an unknown role or a caller without a token refuses to start naming it', () => {
  const env = {
    EFFECTOR_ONLINE_RAG_URL: 'http://127.0.0.1:1',
    EFFECTOR_BASELINE_RAG_URL: 'http://127.0.0.1:2',
    EFFECTOR_QDRANT_COLLECTION: 'c',
    EFFECTOR_API_TOKENS: `alice:${TOKENS.oncall},bob:${TOKENS.approver}`,
  };
  assert.deepEqual(effectorConfigFromEnv({ ...env, EFFECTOR_API_ROLES: 'alice=read+operate, bob=read+grant' }).EFFECTOR_API_ROLES, {
    alice: ['read', 'operate'],
    bob: ['read', 'grant'],
  });
  const refused = (roles: string) => {
    try {
      effectorConfigFromEnv({ ...env, EFFECTOR_API_ROLES: roles });
    } catch (error) {
      assert.ok(error instanceof WorkerConfigError);
      return error.issues.map((i) => i.key);
    }
    return [];
  };
  assert.deepEqual(refused('alice=read+admin'), ['EFFECTOR_API_ROLES']);
  assert.deepEqual(refused('alice=read,alice=grant'), ['EFFECTOR_API_ROLES']);
  assert.deepEqual(refused('carol=read'), ['EFFECTOR_API_ROLES']);
});
