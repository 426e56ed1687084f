import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isOurProcess, startProcess, stopProcess } from '../../src/process-supervisor.ts';
import { daemonsStartedByInstall } from '../../src/services/prometheus.ts';
import { dropPrivileges, runsAsRoot, unprivilegedSpec } from '../../src/unprivileged.ts';

test('the Prometheus install step stops only daemons its own install started, never one that ran before', () => {
  const operators = { pid: 100, argv: ['/usr/bin/prometheus', '--config.file=/etc/prometheus/prometheus.yml'] };
  const ours = { pid: 4242, argv: ['/usr/bin/prometheus', '--config.file=/etc/prometheus/prometheus.yml'] };
  const stack = { pid: 300, argv: ['/usr/bin/prometheus', '--config.file=/work/.stack/prometheus/prometheus.yml'] };
  assert.deepEqual(daemonsStartedByInstall([operators, stack], [operators, stack, ours]), [ours]);
  assert.deepEqual(daemonsStartedByInstall([operators], [operators]), []);
});

test('a server spec is wrapped in runuser for the stack user, with its own HOME', () => {
  const spec = unprivilegedSpec(
    { command: '/usr/bin/prometheus', args: ['--x=1'], env: { A: 'b' }, cwd: '/w' },
    'rag-immune',
    '/w/.stack/p',
  );
  assert.deepEqual(spec, {
    command: 'runuser',
    args: ['-u', 'rag-immune', '--', '/usr/bin/prometheus', '--x=1'],
    env: { A: 'b', HOME: '/w/.stack/p' },
    cwd: '/w',
  });
});

test(
  'as root, a started server runs without root and is still stopped through its pid record',
  { skip: !runsAsRoot() && 'needs root' },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'stack-unprivileged-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const spec = await dropPrivileges(
      { command: '/bin/sleep', args: ['300'], cwd: dir },
      { user: 'rag-immune', serviceDir: dir, service: 'test', log: () => undefined },
    );
    assert.equal(spec.command, 'runuser');
    const record = await startProcess(spec, join(dir, 'sleep.log'));
    t.after(() => {
      try {
        process.kill(-record.pid, 'SIGKILL');
      } catch {
        // stopped
      }
    });
    // runuser's child is the server: find it and read its real uid. Right after the fork the child is
    // still root until runuser drops privileges and execs, so poll until it has.
    let uid: number | undefined;
    for (let i = 0; i < 50 && (uid === undefined || uid === 0); i++) {
      const children = readFileSync(`/proc/${record.pid}/task/${record.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
      if (children[0] !== undefined) uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${children[0]}/status`, 'utf8'))?.[1]);
      if (uid === undefined || uid === 0) await sleep(100);
    }
    assert.ok(uid !== undefined && uid !== 0, `the server runs as uid ${uid}, not root`);
    assert.equal(await isOurProcess(record), true);
    assert.equal(await stopProcess(record, 5000), 'terminated');
  },
);
