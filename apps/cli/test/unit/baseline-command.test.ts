import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { baselineInstructions, type BaselineRecord } from '@rag-immune/baseline';

const bin = fileURLToPath(new URL('../../bin/immune.js', import.meta.url));
const immune = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000 });

test('a refresh without a reason is a usage error (64): the reason is what the record is for', () => {
  const result = immune(['baseline', 'refresh', '--source', 'docs']);
  assert.equal(result.status, 64);
  assert.match(result.stderr, /--reason <text>/);
});

test('an unreachable Qdrant exits 69 naming the URL', () => {
  const result = immune(['baseline', 'show', '--source', 'docs', '--qdrant-url', 'http://127.0.0.1:9']);
  assert.equal(result.status, 69, result.stderr);
  assert.match(result.stderr, /Qdrant unreachable at http:\/\/127\.0\.0\.1:9/);
});

test('the instructions name the alias (the copy itself for Flowise) for a second RAG instance and the sentinel variables', () => {
  const record: BaselineRecord = {
    role: 'baseline',
    collection: 'docs-baseline--20261206t050000z',
    alias: 'docs-baseline',
    source_collection: 'docs-v3',
    source_alias: 'docs',
    points: 1200,
    created_at: '2026-12-06T05:00:00.000Z',
    actor: 'alice',
    reason: 'first baseline',
    previous: null,
  };
  const text = baselineInstructions(record);
  assert.match(text, /1200 points copied from docs/);
  // Flowise cannot read through a Qdrant alias (its Qdrant node tries to create a collection of that
  // name): its instruction names the copy itself (seen with Flowise 2.2.8, bench/rag-products).
  assert.match(text, /Qdrant Collection Name" = docs-baseline--20261206t050000z /);
  assert.match(text, /QDRANT_ALIAS=docs-baseline /);
  assert.match(text, /SENTINEL_BASELINE_RAG_URL/);
  assert.match(text, /read-only Qdrant key/);
});
