import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkerConfigError } from '@rag-immune/worker-runtime';
import { identifierConfigFromEnv } from '../../src/config.ts';

const BASE = {
  IDENTIFIER_ONLINE_RAG_URL: 'http://127.0.0.1:8080',
  IDENTIFIER_BASELINE_RAG_URL: 'http://127.0.0.1:8081',
};
const KEY = 'a'.repeat(40);
const OLD = 'b'.repeat(40);

function refusal(env: Record<string, string>): string {
  try {
    identifierConfigFromEnv({ ...BASE, ...env });
  } catch (error) {
    assert.ok(error instanceof WorkerConfigError, String(error));
    return error.message;
  }
  assert.fail('the configuration was accepted');
}

test('retired ledger keys: parsed newest first, each checked, never without the new key or repeating it', () => {
  const config = identifierConfigFromEnv({
    ...BASE,
    IDENTIFIER_LEDGER_KEY: KEY,
    IDENTIFIER_LEDGER_PREVIOUS_KEYS: `${OLD}, ${'c'.repeat(32)}`,
  });
  assert.deepEqual(config.IDENTIFIER_LEDGER_PREVIOUS_KEYS, [OLD, 'c'.repeat(32)]);
  assert.match(
    refusal({ IDENTIFIER_LEDGER_KEY: KEY, IDENTIFIER_LEDGER_PREVIOUS_KEYS: `${OLD},short` }),
    /IDENTIFIER_LEDGER_PREVIOUS_KEYS.*at least 32/s,
  );
  assert.match(refusal({ IDENTIFIER_LEDGER_PREVIOUS_KEYS: OLD }), /IDENTIFIER_LEDGER_PREVIOUS_KEYS.*IDENTIFIER_LEDGER_KEY/s);
  assert.match(refusal({ IDENTIFIER_LEDGER_KEY: KEY, IDENTIFIER_LEDGER_PREVIOUS_KEYS: `${OLD},${KEY}` }), /must not include/);
});
