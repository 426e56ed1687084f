/**
 * The rotation's HTTP API and configuration: proposals are read with the read role and decided
 * with the operate role of the caller's own token (SENTINEL_API_ROLES, as EFFECTOR_API_ROLES),
 * the decider's name is recorded; a bad variable refuses the start naming it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { formatProbeFile, type GoldenProbe } from '@rag-immune/probing';
import { sentinelHttpApp } from '../../../src/http/routes.ts';
import type { Sentinel } from '../../../src/sentinel.ts';
import { RotationConfigError, rotationConfigFromEnv } from '../../../src/rotation/config.ts';
import { ProbeRotation } from '../../../src/rotation/probe-rotation.ts';
import { ProposalStore } from '../../../src/rotation/proposal.ts';
import { rotationRoutes } from '../../../src/rotation/rotation-routes.ts';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdefgh';

async function serve() {
  const probes: GoldenProbe[] = [
    {
      id: 'still',
      version: 1,
      query: 'which version of zlib is packaged?',
      expected_sources: ['pkg-zlib'],
      business_value: 1,
      cluster: 'head',
      created_at: '2026-01-01T00:00:00Z',
      retired_at: null,
    },
  ];
  let text = formatProbeFile(probes);
  const rotation = new ProbeRotation(
    {
      loadCatalog: async () => {
        const current = text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as GoldenProbe);
        return { probes: current, text, active: current.filter((p) => p.retired_at === null) };
      },
      saveCatalog: async (next) => {
        text = formatProbeFile(next);
      },
      openIncidents: async () => [],
      history: async () => ({ fcs: new Map([['still', [0.99, 0.99, 0.99]]]), flaggedSegments: new Set() }),
      knowledgeExists: async () => true,
      traffic: async () => null,
      vet: async () => ({ probes: [], verdicts: [] }),
    },
    new ProposalStore(join(mkdtempSync(join(tmpdir(), 'rotation-api-')), 'proposals.json')),
    {
      intervalMs: 86_400_000,
      minRuns: 3,
      unmovingAbove: 0.95,
      maxRetireShare: 1,
      minAsks: 1,
      fragileShare: 0.2,
      maxFrequent: 1,
      maxFragile: 1,
    },
  );
  const config = rotationConfigFromEnv({
    SENTINEL_API_TOKENS: `alice:${ALICE},bob:${BOB}`,
    SENTINEL_API_ROLES: 'alice=read+operate,bob=read',
  });
  const sentinel = { isStarted: true, probeStatus: () => [] } as unknown as Sentinel;
  const server = sentinelHttpApp(sentinel, {
    registry: new Registry(),
    logger: pino({ level: 'silent' }),
    host: '127.0.0.1',
    apiToken: undefined,
    tokens: config.SENTINEL_API_TOKENS!,
    extraRoutes: rotationRoutes(rotation, config.SENTINEL_API_ROLES ?? null),
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = (method: string, path: string, token?: string) =>
    fetch(`${url}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { call, probeFile: () => text, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('read sees proposals, operate decides them; a caller without the role gets 403 naming it and changes nothing', async () => {
  const api = await serve();
  try {
    assert.equal((await api.call('GET', '/probes/proposals')).status, 401);
    assert.equal((await api.call('POST', '/probes/proposals', BOB)).status, 403);
    const made = await api.call('POST', '/probes/proposals', ALICE);
    assert.equal(made.status, 201);
    const { proposal } = (await made.json()) as { proposal: { proposal_id: string; changes: unknown[] } };
    assert.equal(proposal.changes.length, 1);
    const listed = (await (await api.call('GET', '/probes/proposals', BOB)).json()) as { proposals: { state: string }[] };
    assert.deepEqual(
      listed.proposals.map((p) => p.state),
      ['pending'],
    );
    const before = api.probeFile();
    const refused = await api.call('POST', `/probes/proposals/${proposal.proposal_id}/accept`, BOB);
    assert.equal(refused.status, 403);
    assert.match(((await refused.json()) as { error: string }).error, /bob lacks the operate role/);
    assert.equal(api.probeFile(), before);
    const accepted = await api.call('POST', `/probes/proposals/${proposal.proposal_id}/accept`, ALICE);
    assert.equal(accepted.status, 200);
    assert.equal(((await accepted.json()) as { proposal: { decided_by: string } }).proposal.decided_by, 'alice');
    assert.notEqual(api.probeFile(), before);
    assert.equal((await api.call('POST', `/probes/proposals/${proposal.proposal_id}/reject`, ALICE)).status, 409);
    assert.equal((await api.call('GET', '/probes/proposals/rot-zz-000000', ALICE)).status, 404);
  } finally {
    await api.close();
  }
});

test('a bad rotation variable refuses the start naming it', () => {
  const refused = (env: Record<string, string>) => {
    try {
      rotationConfigFromEnv(env);
      return [];
    } catch (error) {
      assert.ok(error instanceof RotationConfigError, 'a RotationConfigError');
      return error.issues.map((i) => i.key);
    }
  };
  assert.deepEqual(refused({ ROTATION_INTERVAL_DAYS: 'monthly' }), ['ROTATION_INTERVAL_DAYS']);
  assert.deepEqual(refused({ ROTATION_MAX_RETIRE_SHARE: '2' }), ['ROTATION_MAX_RETIRE_SHARE']);
  assert.deepEqual(refused({ ROTATION_IDENTIFIER_URL: 'not a url' }), ['ROTATION_IDENTIFIER_URL']);
  assert.deepEqual(refused({ SENTINEL_API_ROLES: 'alice=read+admin' }), ['SENTINEL_API_ROLES']);
  assert.deepEqual(refused({ SENTINEL_API_TOKENS: `alice:${ALICE}`, SENTINEL_API_ROLES: 'carol=read' }), ['SENTINEL_API_ROLES']);
  assert.equal(rotationConfigFromEnv({}).ROTATION_INTERVAL_DAYS, 30);
});
