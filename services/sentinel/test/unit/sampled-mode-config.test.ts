import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SentinelConfigError, sentinelConfigFromEnv } from '../../src/config.ts';

const env = {
  SENTINEL_ONLINE_RAG_URL: 'http://127.0.0.1:1',
  SENTINEL_BASELINE_RAG_URL: 'http://127.0.0.1:2',
  SENTINEL_PROBES_FILE: 'probes.jsonl',
};

test('one call a side at alpha 0.01 unless configured; a sampled setting is read', () => {
  const plain = sentinelConfigFromEnv(env);
  assert.deepEqual([plain.SENTINEL_SAMPLES_PER_PROBE, plain.SENTINEL_SAMPLE_ALPHA], [1, 0.01]);
  const sampled = sentinelConfigFromEnv({ ...env, SENTINEL_SAMPLES_PER_PROBE: '5', SENTINEL_SAMPLE_ALPHA: '0.05' });
  assert.deepEqual([sampled.SENTINEL_SAMPLES_PER_PROBE, sampled.SENTINEL_SAMPLE_ALPHA], [5, 0.05]);
});

test('a sample count that can never reach its alpha stops the start, naming the variable and why (per-run test)', () => {
  // With the pooled test off each run is judged alone; pooled (the default) the level is reached over runs.
  assert.throws(
    () => sentinelConfigFromEnv({ ...env, SENTINEL_SAMPLES_PER_PROBE: '3', SENTINEL_POOLED_TEST: 'off' }),
    (error: unknown) =>
      error instanceof SentinelConfigError && /SENTINEL_SAMPLES_PER_PROBE: 3 samples a side can never reach p < 0.01/.test(error.message),
  );
  assert.throws(() => sentinelConfigFromEnv({ ...env, SENTINEL_SAMPLES_PER_PROBE: '2.5' }), /SENTINEL_SAMPLES_PER_PROBE/);
  assert.throws(() => sentinelConfigFromEnv({ ...env, SENTINEL_SAMPLE_ALPHA: '0' }), /SENTINEL_SAMPLE_ALPHA/);
});
