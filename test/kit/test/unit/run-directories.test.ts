/** The run directories a bench merge reads (run-directories.ts). */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runDirectories } from '../../src/run-directories.ts';

const root = mkdtempSync(join(tmpdir(), 'run-directories-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('--runs as given, and under --runs-dir only the directories holding a run.json', () => {
  for (const name of ['2026-12-07T10-00-00', '2026-12-07T11-00-00', 'notes']) mkdirSync(join(root, name));
  for (const name of ['2026-12-07T10-00-00', '2026-12-07T11-00-00']) writeFileSync(join(root, name, 'run.json'), '{}');
  writeFileSync(join(root, 'stray.json'), '{}');
  assert.deepEqual(runDirectories(' a, b ,', undefined), ['a', 'b']);
  assert.deepEqual(runDirectories(undefined, root).sort(), [join(root, '2026-12-07T10-00-00'), join(root, '2026-12-07T11-00-00')]);
  assert.throws(() => runDirectories('', undefined), /--runs .* or --runs-dir/);
  assert.throws(() => runDirectories(undefined, join(root, 'nowhere')), /--runs-dir: .*nowhere does not exist/);
});
