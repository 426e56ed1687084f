import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isOurProcess, startProcess, stopProcess } from '../../src/process-supervisor.ts';

test('a started process is ours until stopped; a pid running anything else never is', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'stack-supervisor-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  const record = await startProcess({ command: 'sleep', args: ['300'] }, join(dir, 'sleep.log'));
  t.after(() => {
    try {
      process.kill(record.pid, 'SIGKILL');
    } catch {
      // already stopped
    }
  });
  assert.equal(await isOurProcess(record), true);
  // Same pid, different command line (a recycled pid): must not be treated as ours.
  assert.equal(await isOurProcess({ ...record, argv: ['sleep', '301'] }), false);
  assert.equal(await isOurProcess({ ...record, pid: process.pid }), false);

  assert.equal(await stopProcess(record, 5000), 'terminated');
  assert.equal(await isOurProcess(record), false);
});

test('SIGKILL follows when SIGTERM is ignored', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stack-supervisor-'));
  try {
    const record = await startProcess({ command: 'bash', args: ['-c', 'trap "" TERM; sleep 300 & wait'] }, join(dir, 'stubborn.log'));
    await new Promise((resolve) => setTimeout(resolve, 300)); // let the trap be installed
    assert.equal(await stopProcess(record, 500), 'killed');
    assert.equal(await isOurProcess(record), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
