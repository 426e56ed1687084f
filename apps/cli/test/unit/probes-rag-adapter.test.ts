import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/immune.js', import.meta.url));
const immune = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 });
const dir = mkdtempSync(join(tmpdir(), 'immune-probes-adapter-'));

test('probes validate --rag-adapter: a bad adapter file exits 78 naming the file and the key, before any model loads', () => {
  const probes = join(dir, 'probes.jsonl');
  writeFileSync(
    probes,
    `${JSON.stringify({ id: 'openssl-version', version: 1, query: 'Which version of openssl does Debian ship?', expected_sources: ['pkg/openssl'], business_value: 0.9, cluster: 'head', created_at: '2026-11-01T00:00:00Z', retired_at: null })}\n`,
  );
  const adapter = join(dir, 'adapter.yaml');
  writeFileSync(
    adapter,
    'apiVersion: rag-immune/v1\nkind: RagAdapter\nmetadata: {name: x}\nrequest: {url: "http://rag/ask"}\nresponse: {answer: $.a}\n',
  );
  const result = immune('probes', 'validate', probes, '--rag', 'http://127.0.0.1:1', '--rag-adapter', adapter);
  assert.equal(result.status, 78, result.stderr);
  assert.match(result.stderr, /adapter\.yaml: request\.url: must contain \$\{base_url\}/);
});
