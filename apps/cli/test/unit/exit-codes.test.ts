import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/immune.js', import.meta.url));
const immune = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });

test('--version prints the version and exits 0', () => {
  const result = immune(['--version']);
  assert.equal(result.status, 0);
  assert.match(result.stdout, /^\d+\.\d+\.\d+\n$/);
});

test('an unknown topic is a usage error (64) that lists the valid ones', () => {
  const result = immune(['events', 'tail', 'bogus']);
  assert.equal(result.status, 64);
  assert.match(result.stderr, /unknown topic "bogus"; expected one of probes, reports, actions/);
});

test('a bad bus setting is a configuration error (78) naming the variable', () => {
  const result = immune(['events', 'tail', 'probes'], { KAFKA_BROKERS: 'no-port', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1' });
  assert.equal(result.status, 78);
  assert.match(result.stderr, /KAFKA_BROKERS: expected host:port/);
});
