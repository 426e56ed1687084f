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

test('retired ledger keys: cut-offs one per key, ISO times; required beside retired keys in production', () => {
  const config = identifierConfigFromEnv({
    ...BASE,
    IDENTIFIER_LEDGER_KEY: KEY,
    IDENTIFIER_LEDGER_PREVIOUS_KEYS: OLD,
    IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT: '2026-11-30T00:00:00Z',
  });
  assert.deepEqual(config.IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT, [Date.parse('2026-11-30T00:00:00Z')]);
  assert.match(
    refusal({ IDENTIFIER_LEDGER_KEY: KEY, IDENTIFIER_LEDGER_PREVIOUS_KEYS: OLD, IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT: 'yesterday' }),
    /IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT.*ISO 8601/s,
  );
  assert.match(
    refusal({
      IDENTIFIER_LEDGER_KEY: KEY,
      IDENTIFIER_LEDGER_PREVIOUS_KEYS: `${OLD},${'c'.repeat(32)}`,
      IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT: '2026-11-30T00:00:00Z',
    }),
    /1 cut-off\(s\) for 2 retired key\(s\)/,
  );
  assert.match(
    refusal({ BUS_PROFILE: 'production', IDENTIFIER_LEDGER_KEY: KEY, IDENTIFIER_LEDGER_PREVIOUS_KEYS: OLD }),
    /IDENTIFIER_LEDGER_PREVIOUS_KEYS_RETIRED_AT.*required/s,
  );
});
