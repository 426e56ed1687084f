/** `--sentinel-env KEY=VALUE,KEY=VALUE`: the settings a benchmark passes to a worker, or a clear error. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnvPairs } from '../../src/loop/env-pairs.ts';

test('parseEnvPairs: pairs split at the first =; nothing given is no setting', () => {
  assert.deepEqual(parseEnvPairs('SENTINEL_POOLED_TEST=on,SENTINEL_SAMPLES_MAX=9,X_URL=http://h/?a=b'), {
    SENTINEL_POOLED_TEST: 'on',
    SENTINEL_SAMPLES_MAX: '9',
    X_URL: 'http://h/?a=b',
  });
  assert.deepEqual(parseEnvPairs(undefined), {});
  assert.deepEqual(parseEnvPairs(''), {});
  assert.deepEqual(parseEnvPairs('A=,'), { A: '' });
});

test('parseEnvPairs: a pair without a key, or a key no variable can have, names the option and the pair', () => {
  assert.throws(() => parseEnvPairs('SENTINEL_POOLED_TEST'), /^Error: --sentinel-env: SENTINEL_POOLED_TEST is not KEY=VALUE$/);
  assert.throws(() => parseEnvPairs('=on'), /--sentinel-env: =on is not KEY=VALUE/);
  assert.throws(
    () => parseEnvPairs('sentinel pooled=on', '--effector-env'),
    /--effector-env: sentinel pooled is not an environment variable name/,
  );
});
