import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/immune.js', import.meta.url));
const immune = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000 });
const dir = mkdtempSync(join(tmpdir(), 'immune-probes-'));

test('validate names every bad line and exits 65; a missing file exits 66', () => {
  const bad = join(dir, 'bad.jsonl');
  writeFileSync(bad, '# probes\n{"id":"ok-probe"}\nnot json\n');
  const result = immune('probes', 'validate', bad);
  assert.equal(result.status, 65);
  assert.match(result.stderr, /bad\.jsonl:2: query: Required/);
  assert.match(result.stderr, /bad\.jsonl:3: not valid JSON/);
  assert.equal(immune('probes', 'validate', join(dir, 'absent.jsonl')).status, 66);
});

test('add creates the file, refuses a duplicate id, and list --json shows the probe', () => {
  const file = join(dir, 'probes.jsonl');
  const add = (id: string) =>
    immune(
      'probes',
      'add',
      '--id',
      id,
      '--query',
      'Which version of openssl does Debian ship?',
      '--source',
      'pkg/openssl',
      '--value',
      '0.9',
      '-f',
      file,
    );
  assert.equal(add('openssl-version').status, 0);
  const duplicate = add('openssl-version');
  assert.equal(duplicate.status, 65);
  assert.match(duplicate.stderr, /already exists/);
  assert.equal(add('X').status, 64);
  const list = immune('probes', 'list', '-f', file, '--json');
  assert.equal(list.status, 0);
  const probe = JSON.parse(list.stdout.trim()) as { id: string; business_value: number; active: boolean };
  assert.deepEqual([probe.id, probe.business_value, probe.active], ['openssl-version', 0.9, true]);
  assert.equal(readFileSync(file, 'utf8').trim().split('\n').length, 1);
  assert.equal(immune('probes', 'validate', file).status, 0);
});
