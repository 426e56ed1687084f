/** PROBE_MARK_KEY (verification probes sign their mark with it): read when set; under 32 characters it stops the start. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerConfigError } from '@rag-immune/worker-runtime';
import { effectorConfigFromEnv } from '../../src/index.ts';

const base = {
  EFFECTOR_ONLINE_RAG_URL: 'http://127.0.0.1:1',
  EFFECTOR_BASELINE_RAG_URL: 'http://127.0.0.1:2',
  EFFECTOR_QDRANT_COLLECTION: 'c',
  EFFECTOR_API_TOKEN: 'effector-token-0123456789',
};

test('PROBE_MARK_KEY is optional, read when set, refused under 32 characters naming the key', () => {
  assert.equal(effectorConfigFromEnv(base).PROBE_MARK_KEY, undefined);
  const key = 'k'.repeat(40);
  assert.equal(effectorConfigFromEnv({ ...base, PROBE_MARK_KEY: key }).PROBE_MARK_KEY, key);
  assert.throws(
    () => effectorConfigFromEnv({ ...base, PROBE_MARK_KEY: 'short' }),
    (error: unknown) => error instanceof WorkerConfigError && error.issues.some((issue) => issue.key === 'PROBE_MARK_KEY'),
  );
});
