import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { bearerAuth, workerHttpApp } from '@rag-immune/worker-runtime';
import { effectorConfigFromEnv, effectorNamedTokens } from '../../src/config.ts';
import { ReopenRefused } from '../../src/effector.ts';
import { effectorRoutes, withActorProvenance, type RouteDeps } from '../../src/http/routes.ts';
import type { AuditEntry, AuditLog } from '../../src/state/audit-log.ts';

/** The fields of the API's answers these tests read. */
interface ApiAnswer {
  grant: { decided_by: string; arguments: unknown };
  grants: { arguments: unknown }[];
}

const SHARED = 'shared-effector-token-0123456789';
const ALICE = 'alice-effector-token-0123456789';

/** The effector's API over stand-in stores: the effector's own operator code writes the audit entries, after an await. */
async function serve() {
  const entries: (AuditEntry & { actor_verified?: boolean })[] = [];
  const audit = withActorProvenance({
    record: async (entry: AuditEntry) => void entries.push(entry),
    list: async () => entries,
  } as unknown as AuditLog);
  const decisions: string[] = [];
  const grant = {
    key: 'inc-1:r1:pin_generator_version',
    action_id: 'act-1',
    incident_id: 'inc-1',
    tool: 'pin_generator_version',
    status: 'pending',
  };
  const deps = {
    audit,
    effector: {
      decideGrant: async (key: string, decision: string, actor: string) => {
        decisions.push(actor);
        await sleep(1);
        await audit.record({ actor, command: `grants.${decision === 'approved' ? 'approve' : 'deny'}`, target: key, outcome: 'ok' });
        return { ...grant, status: decision, decided_by: actor };
      },
      reopen: async (incidentId: string, options: { actor: string; note: string | null }) => {
        if (incidentId !== 'inc-held') throw new ReopenRefused(409, `incident ${incidentId} is open, not escalated: nothing to re-open`);
        await audit.record({
          actor: options.actor,
          command: 'incident.reopen',
          target: incidentId,
          outcome: 'ok',
          detail: { note: options.note },
        });
        return { incident_id: incidentId, held_for_human: 'manual_rollback' };
      },
      rollback: async (target: string, options: { dryRun: boolean; actor: string }) => {
        await sleep(1);
        await audit.record({ actor: options.actor, command: 'rollback', target, outcome: options.dryRun ? 'dry_run' : 'ok' });
        return { target, kind: 'action', steps: [], done: !options.dryRun };
      },
    },
    grants: { list: async () => [{ ...grant, effective_status: 'pending' }] },
    actions: {
      getById: async (id: string) => (id === 'act-1' ? { doc: { arguments: { version: 'prompt-v1', reason: 'generator drift' } } } : null),
    },
    modes: { get: async () => ({ mode: 'observe' }), set: async () => undefined },
    snapshots: { list: async () => [] },
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
      token: SHARED,
      tokens: { alice: ALICE },
      tokenEnv: 'EFFECTOR_API_TOKEN',
      logger: pino({ level: 'silent' }),
    }),
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const api = async (method: string, path: string, token: string, claimed: string, body: unknown = {}) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-immune-actor': claimed },
      ...(method === 'GET' ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as ApiAnswer };
  };
  return { api, entries, decisions, close: () => new Promise((resolve) => server.close(resolve)) };
}

test("a caller's own token names the audit's actor; the claimed x-immune-actor header cannot override it", async () => {
  const effector = await serve();
  try {
    const approved = await effector.api(
      'POST',
      `/grants/${encodeURIComponent('inc-1:r1:pin_generator_version')}/approve`,
      ALICE,
      'mallory',
    );
    assert.equal(approved.status, 200);
    assert.equal(approved.json.grant.decided_by, 'alice');
    await effector.api('POST', '/rollback', ALICE, 'mallory', { target: 'act-1' });
    await effector.api('PUT', '/mode', ALICE, 'mallory', { mode: 'approve' });
    assert.deepEqual(effector.decisions, ['alice']);
    assert.deepEqual(
      effector.entries.map((e) => [e.command, e.actor, e.actor_verified]),
      [
        ['grants.approve', 'alice', true],
        ['rollback', 'alice', true],
        ['effector.mode', 'alice', true],
      ],
    );
  } finally {
    await effector.close();
  }
});

test('with the single shared token the claimed name is kept but marked self-asserted (actor_verified: false)', async () => {
  const effector = await serve();
  try {
    await effector.api('POST', `/grants/${encodeURIComponent('inc-1:r1:pin_generator_version')}/approve`, SHARED, 'it-oncall');
    await effector.api('POST', '/rollback', SHARED, 'it-oncall', { target: 'act-1', dry_run: true });
    assert.deepEqual(
      effector.entries.map((e) => [e.command, e.actor, e.actor_verified]),
      [
        ['grants.approve', 'it-oncall', false],
        ['rollback', 'it-oncall', false],
      ],
    );
  } finally {
    await effector.close();
  }
});

test('a grant, listed or decided, shows the exact arguments of the action it approves', async () => {
  const effector = await serve();
  try {
    const listed = await effector.api('GET', '/grants?status=pending', ALICE, 'alice');
    assert.deepEqual(listed.json.grants[0]!.arguments, { version: 'prompt-v1', reason: 'generator drift' });
    const approved = await effector.api('POST', `/grants/${encodeURIComponent('inc-1:r1:pin_generator_version')}/approve`, ALICE, 'alice');
    assert.deepEqual(approved.json.grant.arguments, { version: 'prompt-v1', reason: 'generator drift' });
  } finally {
    await effector.close();
  }
});

test('EFFECTOR_API_TOKENS gives one token per caller; a bad value refuses to start naming the key, never the token', () => {
  const base = {
    EFFECTOR_ONLINE_RAG_URL: 'http://127.0.0.1:1',
    EFFECTOR_BASELINE_RAG_URL: 'http://127.0.0.1:2',
    EFFECTOR_QDRANT_COLLECTION: 'c',
  };
  const config = effectorConfigFromEnv({ ...base, EFFECTOR_API_TOKENS: `alice:${ALICE},ci-bot:${SHARED}` });
  assert.deepEqual(effectorNamedTokens(config), { alice: ALICE, 'ci-bot': SHARED });
  assert.equal(config.EFFECTOR_API_TOKEN, undefined);
  assert.throws(
    () => effectorConfigFromEnv({ ...base, EFFECTOR_API_TOKENS: 'alice:too-short' }),
    (error: Error & { issues?: { key: string }[] }) =>
      error.issues?.[0]?.key === 'EFFECTOR_API_TOKENS' && !error.message.includes('too-short') && /at least 16/.test(error.message),
  );
  assert.throws(
    () => effectorConfigFromEnv(base),
    (error: Error & { issues?: { key: string }[] }) => error.issues?.[0]?.key === 'EFFECTOR_API_TOKEN',
  );
  assert.equal(effectorConfigFromEnv({ ...base, EFFECTOR_API_TOKEN: SHARED }).EFFECTOR_API_TOKEN, SHARED);
});

test("POST /incidents/:id/reopen hands a held incident back as the token's caller; a refusal is its 4xx with the message", async () => {
  const effector = await serve();
  try {
    const done = await effector.api('POST', '/incidents/inc-held/reopen', ALICE, 'mallory', { note: 'fault found upstream' });
    assert.equal(done.status, 200);
    assert.deepEqual(done.json, { incident_id: 'inc-held', held_for_human: 'manual_rollback' });
    assert.deepEqual(
      effector.entries.map((e) => [e.command, e.actor, e.actor_verified]),
      [['incident.reopen', 'alice', true]],
    );
    const refused = await effector.api('POST', '/incidents/inc-open/reopen', ALICE, 'alice');
    assert.equal(refused.status, 409);
    assert.match(JSON.stringify(refused.json), /not escalated/);
    const bad = await effector.api('POST', '/incidents/inc-held/reopen', ALICE, 'alice', { note: 'x', extra: 1 });
    assert.equal(bad.status, 400);
  } finally {
    await effector.close();
  }
});
