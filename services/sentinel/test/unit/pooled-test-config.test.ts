/** Issue 39: the pooled test and adaptive sampling settings; a bad one refuses to start naming its variable. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SentinelConfigError, pooledTestOptions, sentinelConfigFromEnv } from '../../src/config.ts';

const env = {
  SENTINEL_ONLINE_RAG_URL: 'http://127.0.0.1:1',
  SENTINEL_BASELINE_RAG_URL: 'http://127.0.0.1:2',
  SENTINEL_PROBES_FILE: 'probes.jsonl',
};
const refused = (extra: Record<string, string>, key: string, why: RegExp) =>
  assert.throws(
    () => sentinelConfigFromEnv({ ...env, ...extra }),
    (error: unknown) => error instanceof SentinelConfigError && error.issues.some((i) => i.key === key && why.test(i.message)),
  );

test('one call a side (a deterministic RAG): no pooled test, unchanged', () => {
  assert.equal(pooledTestOptions(sentinelConfigFromEnv(env)), undefined);
});

test('sampled mode: the pooled test is on by default at SENTINEL_SAMPLE_ALPHA, not adaptive unless SENTINEL_SAMPLES_MAX', () => {
  assert.deepEqual(pooledTestOptions(sentinelConfigFromEnv({ ...env, SENTINEL_SAMPLES_PER_PROBE: '3' })), {
    alpha: 0.01,
    leanFraction: 0.01,
  });
  const adaptive = sentinelConfigFromEnv({
    ...env,
    SENTINEL_SAMPLES_PER_PROBE: '2',
    SENTINEL_SAMPLES_MAX: '5',
    SENTINEL_SAMPLE_ALPHA: '0.005',
    SENTINEL_SAMPLE_LEAN: '0.05',
    SENTINEL_SAMPLE_CALLS_PER_HOUR: '2000',
  });
  assert.deepEqual(pooledTestOptions(adaptive), { alpha: 0.005, leanFraction: 0.05, maxSamples: 5, callsPerHour: 2000 });
  assert.equal(
    pooledTestOptions(sentinelConfigFromEnv({ ...env, SENTINEL_SAMPLES_PER_PROBE: '5', SENTINEL_POOLED_TEST: 'off' })),
    undefined,
  );
});

test('bad pooled settings stop the start, naming the variable', () => {
  refused(
    { SENTINEL_SAMPLES_PER_PROBE: '3', SENTINEL_SAMPLES_MAX: '2' },
    'SENTINEL_SAMPLES_MAX',
    /at least SENTINEL_SAMPLES_PER_PROBE \(3\)/,
  );
  refused({ SENTINEL_SAMPLES_MAX: '5' }, 'SENTINEL_SAMPLES_MAX', /needs the pooled test/);
  refused(
    { SENTINEL_SAMPLES_PER_PROBE: '5', SENTINEL_POOLED_TEST: 'off', SENTINEL_SAMPLES_MAX: '7' },
    'SENTINEL_SAMPLES_MAX',
    /needs the pooled test/,
  );
  refused({ SENTINEL_SAMPLES_PER_PROBE: '3', SENTINEL_SAMPLES_MAX: '21' }, 'SENTINEL_SAMPLES_MAX', /20/);
  refused({ SENTINEL_POOLED_TEST: 'yes' }, 'SENTINEL_POOLED_TEST', /on|off/);
  refused({ SENTINEL_SAMPLE_LEAN: '0' }, 'SENTINEL_SAMPLE_LEAN', /greater than 0/);
  refused({ SENTINEL_SAMPLE_CALLS_PER_HOUR: '-1' }, 'SENTINEL_SAMPLE_CALLS_PER_HOUR', /greater than or equal to 1/);
});

test('pooling across probes on the same knowledge: off by default, on with its own level and minimum of probes', () => {
  const sampled = { ...env, SENTINEL_SAMPLES_PER_PROBE: '3' };
  assert.equal(pooledTestOptions(sentinelConfigFromEnv(sampled))!.acrossProbes, undefined);
  assert.deepEqual(pooledTestOptions(sentinelConfigFromEnv({ ...sampled, SENTINEL_KNOWLEDGE_POOL: 'on' }))!.acrossProbes, {
    alpha: 0.01,
    minProbes: 2,
  });
  assert.deepEqual(
    pooledTestOptions(
      sentinelConfigFromEnv({
        ...sampled,
        SENTINEL_KNOWLEDGE_POOL: 'on',
        SENTINEL_KNOWLEDGE_POOL_ALPHA: '0.002',
        SENTINEL_KNOWLEDGE_POOL_MIN_PROBES: '3',
      }),
    )!.acrossProbes,
    { alpha: 0.002, minProbes: 3 },
  );
});

test('bad knowledge-pool settings stop the start, naming the variable', () => {
  const sampled = { SENTINEL_SAMPLES_PER_PROBE: '3' };
  refused({ ...sampled, SENTINEL_KNOWLEDGE_POOL: 'yes' }, 'SENTINEL_KNOWLEDGE_POOL', /on|off/);
  refused({ SENTINEL_KNOWLEDGE_POOL: 'on' }, 'SENTINEL_KNOWLEDGE_POOL', /needs the pooled test/);
  refused(
    { SENTINEL_SAMPLES_PER_PROBE: '5', SENTINEL_POOLED_TEST: 'off', SENTINEL_KNOWLEDGE_POOL: 'on' },
    'SENTINEL_KNOWLEDGE_POOL',
    /needs the pooled test/,
  );
  refused({ ...sampled, SENTINEL_KNOWLEDGE_POOL_ALPHA: '1' }, 'SENTINEL_KNOWLEDGE_POOL_ALPHA', /less than 1/);
  refused({ ...sampled, SENTINEL_KNOWLEDGE_POOL_MIN_PROBES: '1' }, 'SENTINEL_KNOWLEDGE_POOL_MIN_PROBES', /greater than or equal to 2/);
  refused({ ...sampled, SENTINEL_KNOWLEDGE_POOL_MIN_PROBES: 'two' }, 'SENTINEL_KNOWLEDGE_POOL_MIN_PROBES', /./);
});
