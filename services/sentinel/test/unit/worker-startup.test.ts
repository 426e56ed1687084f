import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sentinel-start-'));
const baseEnv = {
  ...process.env,
  SENTINEL_ONLINE_RAG_URL: 'http://127.0.0.1:1',
  SENTINEL_BASELINE_RAG_URL: 'http://127.0.0.1:2',
  KAFKA_BROKERS: '127.0.0.1:1',
  SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
};
const start = (env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', main], { env: { ...baseEnv, ...env }, encoding: 'utf8', timeout: 60_000 });

test('a bad probe file stops the worker at start (exit 78), naming the file and the offending line', () => {
  const file = join(dir, 'probes.jsonl');
  const good = {
    id: 'good-probe',
    version: 1,
    query: 'What is the latest version of xz-utils?',
    expected_sources: ['changelog/xz-utils'],
    business_value: 1,
    cluster: 'head',
    created_at: '2026-11-01T00:00:00Z',
    retired_at: null,
  };
  writeFileSync(file, `${JSON.stringify(good)}\n${JSON.stringify({ ...good, id: 'second', business_value: 7 })}\n`);
  const result = start({ SENTINEL_PROBES_FILE: file });
  assert.equal(result.status, 78);
  assert.match(result.stdout + result.stderr, /probes\.jsonl: line 2: business_value/);
});

test('a bad setting stops the worker at start (exit 78), naming the variable', () => {
  const result = start({ SENTINEL_PROBES_FILE: join(dir, 'x.jsonl'), SENTINEL_INTERVAL_SECONDS: 'often' });
  assert.equal(result.status, 78);
  assert.match(result.stdout + result.stderr, /SENTINEL_INTERVAL_SECONDS/);
});

test('a malformed SENTINEL_HEADERS stops the worker naming the variable, without printing any of its value', () => {
  const secret = 'sk-live-0123456789abcdef';
  const result = start({ SENTINEL_PROBES_FILE: join(dir, 'x.jsonl'), SENTINEL_HEADERS: `{"x-api-key": ${secret}}` });
  assert.equal(result.status, 78);
  const output = result.stdout + result.stderr;
  assert.match(output, /SENTINEL_HEADERS/);
  for (const fragment of ['sk-live', '0123456789', 'abcdef', 'x-api-key'])
    assert.ok(!output.includes(fragment), `output shows "${fragment}"`);
});

test('binding beyond loopback without SENTINEL_API_TOKEN stops the worker, naming the variable', () => {
  const result = start({ SENTINEL_PROBES_FILE: join(dir, 'x.jsonl'), SENTINEL_HOST: '0.0.0.0' });
  assert.equal(result.status, 78);
  assert.match(result.stdout + result.stderr, /SENTINEL_API_TOKEN/);
});

test('a bad traffic watcher setting stops the worker at start (exit 78), naming the variable', () => {
  const result = start({ SENTINEL_PROBES_FILE: join(dir, 'x.jsonl'), TRAFFIC_WATCH: '1', TRAFFIC_FCS_SHARE: '2' });
  assert.equal(result.status, 78);
  assert.match(result.stdout + result.stderr, /TRAFFIC_FCS_SHARE/);
});

test('a bad probe rotation setting stops the worker at start (exit 78), naming the variable', () => {
  const result = start({ SENTINEL_PROBES_FILE: join(dir, 'x.jsonl'), PROBE_ROTATION: '1', ROTATION_INTERVAL_DAYS: 'monthly' });
  assert.equal(result.status, 78);
  assert.match(result.stdout + result.stderr, /ROTATION_INTERVAL_DAYS/);
});
