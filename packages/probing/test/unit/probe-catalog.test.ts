import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidProbeFileError, ProbeCatalog, parseProbeFile } from '../../src/catalog/probe-catalog.ts';

const good = {
  id: 'openssl-version',
  version: 1,
  query: 'Which version of openssl does Debian ship?',
  expected_sources: ['pkg/openssl'],
  business_value: 0.9,
  cluster: 'head',
  created_at: '2026-11-01T00:00:00Z',
  retired_at: null,
};

test('a valid file parses, comments and blank lines allowed', () => {
  const probes = parseProbeFile(`# golden probes\n${JSON.stringify(good)}\n\n${JSON.stringify({ ...good, id: 'second-probe' })}\n`);
  assert.deepEqual(
    probes.map((p) => p.id),
    ['openssl-version', 'second-probe'],
  );
});

test('every bad line is reported with its line number and the offending field', () => {
  const text = [
    JSON.stringify(good),
    '{not json',
    JSON.stringify({ ...good, id: 'x' }),
    JSON.stringify({ ...good, business_value: 2 }),
    JSON.stringify(good),
  ].join('\n');
  assert.throws(
    () => parseProbeFile(text, 'probes.jsonl'),
    (error: unknown) => {
      assert.ok(error instanceof InvalidProbeFileError);
      const lines = error.issues.map((i) => i.line);
      assert.deepEqual(lines, [2, 3, 4, 5]);
      assert.match(error.message, /line 2: not valid JSON/);
      assert.match(error.message, /line 3: id: must be 3-128 chars/);
      assert.match(error.message, /line 4: business_value/);
      assert.match(error.message, /line 5: duplicate probe id "openssl-version" \(first on line 1\)/);
      return true;
    },
  );
});

test('retired probes are not active; adding an existing id is refused; saves round-trip', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'probes-'));
  const path = join(dir, 'probes.jsonl');
  await writeFile(path, `${JSON.stringify(good)}\n${JSON.stringify({ ...good, id: 'old-probe', retired_at: '2026-01-01T00:00:00Z' })}\n`);
  const catalog = await ProbeCatalog.load(path);
  assert.deepEqual(
    catalog.active(new Date('2026-11-29T00:00:00Z')).map((p) => p.id),
    ['openssl-version'],
  );
  assert.throws(() => catalog.withProbe(good), /already exists/);
  const grown = catalog.withProbe({ ...good, id: 'new-probe' });
  await grown.save();
  assert.equal((await ProbeCatalog.load(path)).probes.length, 3);
});

test('a missing file is an InvalidProbeFileError naming the path', async () => {
  await assert.rejects(ProbeCatalog.load('/nonexistent/probes.jsonl'), /\/nonexistent\/probes.jsonl: line 0: cannot read the probe file/);
});
