/**
 * `immune probes proposal|accept` against a stand-in for the sentinel's /probes/proposals routes:
 * a reviewer reads every change with its rule and reason, and a refused role exits 77.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/immune.js', import.meta.url));

function immune(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, IMMUNE_API_TOKEN: 'viewer-token-0123456789' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const proposal = {
  proposal_id: 'rot-mxb0000-abcdef',
  created_at: '2026-12-06T08:00:00Z',
  state: 'pending',
  changes: [
    {
      kind: 'retire',
      rule: 'retire-gone-source',
      probe_id: 'old-probe',
      query: 'which version of libgone?',
      reason: 'source gone: pkg-gone (404)',
    },
    {
      kind: 'add',
      rule: 'add-frequent',
      probe_id: 'zlib-license-r20261206',
      query: 'what license does zlib use',
      reason: 'frequent: asked 40 times',
    },
  ],
  considered: { active_probes: 10, traffic: 'read' },
  declined: [{ query: 'who maintains curl', rule: 'add-fragile', reason: 'builder: not attributable' }],
  decided_at: null,
  decided_by: null,
};

test('proposal prints each change with its rule and reason and the last check; accept without the operate role exits 77', async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET' && req.url === '/probes/proposals') {
      res.end(JSON.stringify({ proposals: [proposal], last_check: { at: '2026-12-06T08:00:00Z', outcome: 'proposed', detail: 'x' } }));
      return;
    }
    res.statusCode = 403;
    res.end(JSON.stringify({ error: 'caller viewer lacks the operate role (SENTINEL_API_ROLES)' }));
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const shown = await immune('probes', 'proposal', '--url', url);
    assert.equal(shown.status, 0, shown.stderr);
    assert.match(shown.stdout, /rot-mxb0000-abcdef {2}pending/);
    assert.match(
      shown.stdout,
      /retire old-probe {2}\[retire-gone-source\] {2}which version of libgone\?\n\s+why: source gone: pkg-gone \(404\)/,
    );
    assert.match(shown.stdout, /add {4}zlib-license-r20261206 {2}\[add-frequent\]/);
    assert.match(shown.stdout, /declined \[add-fragile\] who maintains curl: builder: not attributable/);
    assert.match(shown.stdout, /last check 2026-12-06T08:00:00Z: proposed/);
    const refused = await immune('probes', 'accept', proposal.proposal_id, '--url', url);
    assert.equal(refused.status, 77);
    assert.match(refused.stderr, /lacks the operate role/);
    assert.deepEqual(seen, [
      'GET /probes/proposals Bearer viewer-token-0123456789',
      `POST /probes/proposals/${proposal.proposal_id}/accept Bearer viewer-token-0123456789`,
    ]);
  } finally {
    server.close();
  }
});
