/**
 * The identifier check is on in production: BUS_PROFILE=production without EFFECTOR_IDENTIFIER_URL
 * refuses to start, naming the variable, unless EFFECTOR_IDENTIFIER_CHECK=off says so explicitly
 * (and that is logged at every start).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerConfigError } from '@rag-immune/worker-runtime';
import { effectorConfigFromEnv, identifierCheckWarning } from '../../src/index.ts';

const base = {
  EFFECTOR_ONLINE_RAG_URL: 'http://127.0.0.1:1',
  EFFECTOR_BASELINE_RAG_URL: 'http://127.0.0.1:2',
  EFFECTOR_QDRANT_COLLECTION: 'c',
  EFFECTOR_API_TOKEN: 'effector-token-0123456789',
};
const production = { ...base, BUS_PROFILE: 'production' };

function refusedKeys(env: NodeJS.ProcessEnv): string[] {
  try {
    effectorConfigFromEnv(env);
  } catch (error) {
    assert.ok(error instanceof WorkerConfigError, String(error));
    return error.issues.map((issue) => issue.key);
  }
  assert.fail('the configuration was accepted');
}

test('BUS_PROFILE=production refuses to start without EFFECTOR_IDENTIFIER_URL, naming it and the opt-out', () => {
  assert.deepEqual(refusedKeys(production), ['EFFECTOR_IDENTIFIER_URL']);
  try {
    effectorConfigFromEnv(production);
  } catch (error) {
    assert.match(String(error), /EFFECTOR_IDENTIFIER_CHECK=off/);
  }
  const checked = effectorConfigFromEnv({ ...production, EFFECTOR_IDENTIFIER_URL: 'http://identifier:9465' });
  assert.equal(checked.EFFECTOR_IDENTIFIER_URL, 'http://identifier:9465');
  assert.equal(identifierCheckWarning(checked), null);
});

test('EFFECTOR_IDENTIFIER_CHECK=off is the explicit opt-out, logged; it cannot be combined with a URL', () => {
  const off = effectorConfigFromEnv({ ...production, EFFECTOR_IDENTIFIER_CHECK: 'off' });
  assert.equal(off.EFFECTOR_IDENTIFIER_URL, undefined);
  assert.match(identifierCheckWarning(off) ?? '', /EFFECTOR_IDENTIFIER_CHECK=off/);
  assert.deepEqual(refusedKeys({ ...production, EFFECTOR_IDENTIFIER_CHECK: 'off', EFFECTOR_IDENTIFIER_URL: 'http://identifier:9465' }), [
    'EFFECTOR_IDENTIFIER_CHECK',
  ]);
  assert.deepEqual(refusedKeys({ ...production, EFFECTOR_IDENTIFIER_CHECK: 'no' }), ['EFFECTOR_IDENTIFIER_CHECK']);
});

test('development still starts without the identifier (with a warning)', () => {
  const dev = effectorConfigFromEnv(base);
  assert.equal(dev.EFFECTOR_IDENTIFIER_URL, undefined);
  assert.match(identifierCheckWarning(dev) ?? '', /development only/);
});
