import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerConfigError } from '@rag-immune/worker-runtime';
import { memoryConfigFromEnv, storeNames } from '../../src/config.ts';

test('defaults: port 9467, threshold 0.6 (seed 003 §3.6), the shipped rules file', () => {
  const config = memoryConfigFromEnv({});
  assert.equal(config.MEMORY_PORT, 9467);
  assert.equal(config.MEMORY_SIMILARITY_THRESHOLD, 0.6);
  assert.match(config.MEMORY_RULES_FILE, /rules\.v1\.json$/);
  assert.deepEqual(storeNames(config.ES_INDEX_PREFIX), {
    cases: 'rag-immune-healing-cases',
    audit: 'rag-immune-memory-retrieval-audit',
    collection: 'rag-immune-healing-cases',
  });
});

test('a bad value is refused naming the variable', () => {
  for (const [key, value] of [
    ['MEMORY_SIMILARITY_THRESHOLD', '1.5'],
    ['MEMORY_PORT', 'abc'],
    ['ES_INDEX_PREFIX', 'Upper Case'],
    ['MEMORY_API_TOKEN', 'short'],
    ['ELASTICSEARCH_URL', 'not a url'],
  ] as const) {
    assert.throws(
      () => memoryConfigFromEnv({ [key]: value }),
      (e: unknown) => e instanceof WorkerConfigError && e.issues.some((i) => i.key === key),
      key,
    );
  }
});
