/** PROBE_MARK_KEY: read when long enough to sign with; a short key stops the start, naming it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SentinelConfigError, sentinelConfigFromEnv } from '../../src/config.ts';

const env = {
  SENTINEL_ONLINE_RAG_URL: 'http://127.0.0.1:1',
  SENTINEL_BASELINE_RAG_URL: 'http://127.0.0.1:2',
  SENTINEL_PROBES_FILE: 'probes.jsonl',
};

test('PROBE_MARK_KEY is optional, read when set, and refused under 32 characters', () => {
  assert.equal(sentinelConfigFromEnv(env).PROBE_MARK_KEY, undefined);
  const key = 'k'.repeat(32);
  assert.equal(sentinelConfigFromEnv({ ...env, PROBE_MARK_KEY: key }).PROBE_MARK_KEY, key);
  assert.throws(
    () => sentinelConfigFromEnv({ ...env, PROBE_MARK_KEY: 'short' }),
    (error: unknown) => error instanceof SentinelConfigError && /PROBE_MARK_KEY: must be at least 32 characters/.test(error.message),
  );
});
