import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deployStaleFeed, staleFeedSettings } from '@rag-immune/test-kit/loop/deploy-faults';
import { WorkerConfigError } from '@rag-immune/worker-runtime';
import { langchainRagConfigFromEnv } from '../../src/config.ts';

const base = { QDRANT_URL: 'http://127.0.0.1:16333', LLM_MODEL_PATH: '/models/gemma.gguf' };

const issuesOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    langchainRagConfigFromEnv(env);
  } catch (error) {
    assert.ok(error instanceof WorkerConfigError, String(error));
    return error.issues.map((i) => i.key);
  }
  assert.fail('the configuration was accepted');
};

test('defaults: an online instance that samples, one generation thread, 3 chunks, no other variable kept', () => {
  const config = langchainRagConfigFromEnv({ ...base, PATH: '/usr/bin' });
  assert.equal(config.INSTANCE, 'online');
  assert.equal(config.LLM_TEMPERATURE, 0.7);
  assert.equal(config.LLM_THREADS, 1);
  assert.equal(config.DEFAULT_TOP_K, 3);
  assert.equal(config.INGEST_ON_START, true);
  assert.equal(config.LLM_SEED, undefined);
  assert.equal(config.LLM_PROMPT_VERSION, 'few-shot-v1');
  assert.equal((config as Record<string, unknown>).PATH, undefined);
});

test('a temperature of 0 is refused: both instances sample', () => {
  assert.deepEqual(issuesOf({ ...base, LLM_TEMPERATURE: '0' }), ['LLM_TEMPERATURE']);
});

test('bad values are refused by name', () => {
  assert.deepEqual(issuesOf({ ...base, QDRANT_URL: 'not a url', LLM_MAX_TOKENS: '-3', PORT: 'x' }).sort(), [
    'LLM_MAX_TOKENS',
    'PORT',
    'QDRANT_URL',
  ]);
  assert.deepEqual(issuesOf({ QDRANT_URL: base.QDRANT_URL }), ['LLM_MODEL_PATH']);
});

test('an unknown LLM_* key (a typo that would leave the default in force) is refused by name', () => {
  assert.deepEqual(issuesOf({ ...base, LLM_TEMPRATURE: '0.2' }), ['LLM_TEMPRATURE']);
});

test('the baseline needs its pin, and only the baseline takes one', () => {
  assert.deepEqual(issuesOf({ ...base, INSTANCE: 'baseline' }), ['PINNED_AS_OF']);
  assert.deepEqual(issuesOf({ ...base, PINNED_AS_OF: '2024-06-01T00:00:00Z' }), ['PINNED_AS_OF']);
  const baseline = langchainRagConfigFromEnv({ ...base, INSTANCE: 'baseline', PINNED_AS_OF: '2024-06-01T00:00:00Z' });
  assert.equal(baseline.PINNED_AS_OF, '2024-06-01T00:00:00Z');
});

test('beyond loopback a repair token is required', () => {
  assert.deepEqual(issuesOf({ ...base, HOST: '0.0.0.0' }), ['RAG_API_TOKEN']);
  assert.equal(langchainRagConfigFromEnv({ ...base, HOST: '0.0.0.0', RAG_API_TOKEN: 'x'.repeat(16) }).HOST, '0.0.0.0');
});

test('the prompt version is one of the versioned prompts; any other refuses to start, naming the key', () => {
  assert.equal(langchainRagConfigFromEnv({ ...base, LLM_PROMPT_VERSION: 'instruct-v2' }).LLM_PROMPT_VERSION, 'instruct-v2');
  assert.equal(langchainRagConfigFromEnv({ ...base, LLM_PROMPT_VERSION: 'zero-shot-v2' }).LLM_PROMPT_VERSION, 'zero-shot-v2');
  assert.deepEqual(issuesOf({ ...base, LLM_PROMPT_VERSION: 'few-shot-v9' }), ['LLM_PROMPT_VERSION']);
  assert.deepEqual(issuesOf({ ...base, LLM_PROMPT_VERSION: '' }), ['LLM_PROMPT_VERSION']);
});

test('a stale primary feed is an online deploy setting: its snapshot time, source and ids are checked', () => {
  const stale = langchainRagConfigFromEnv({
    ...base,
    FEED_PRIMARY_STALE_AS_OF: '2024-01-01T00:00:00Z',
    FEED_PRIMARY_STALE_IDS: 'changelog/acl, changelog/zstd',
  });
  assert.equal(stale.FEED_PRIMARY_STALE_SOURCE, 'debian-changelog');
  assert.deepEqual(stale.FEED_PRIMARY_STALE_IDS, ['changelog/acl', 'changelog/zstd']);
  assert.equal(langchainRagConfigFromEnv(base).FEED_PRIMARY_STALE_AS_OF, undefined);
  assert.deepEqual(issuesOf({ ...base, FEED_PRIMARY_STALE_AS_OF: 'last year' }), ['FEED_PRIMARY_STALE_AS_OF']);
  assert.deepEqual(issuesOf({ ...base, FEED_PRIMARY_STALE_SOURCE: 'wiki' }), ['FEED_PRIMARY_STALE_SOURCE']);
  assert.deepEqual(issuesOf({ ...base, FEED_PRIMARY_STALE_IDS: ' , ' }), ['FEED_PRIMARY_STALE_IDS']);
  assert.deepEqual(
    issuesOf({ ...base, INSTANCE: 'baseline', PINNED_AS_OF: '2024-06-01T00:00:00Z', FEED_PRIMARY_STALE_AS_OF: '2024-01-01T00:00:00Z' }),
    ['FEED_PRIMARY_STALE_AS_OF'],
  );
});

test("the test kit's stale-feed deploy is a configuration this RAG accepts, and an empty scope is refused before any redeploy", async () => {
  const settings = staleFeedSettings(['changelog/acl', 'changelog/zstd'], '2024-06-01T00:00:00.000Z');
  const deployed = langchainRagConfigFromEnv({ ...base, ...settings, INGEST_ON_START: 'false' });
  assert.equal(deployed.FEED_PRIMARY_STALE_AS_OF, '2024-06-01T00:00:00.000Z');
  assert.deepEqual(deployed.FEED_PRIMARY_STALE_IDS, ['changelog/acl', 'changelog/zstd']);
  let redeploys = 0;
  await assert.rejects(
    deployStaleFeed(
      () => {
        redeploys += 1;
        return Promise.resolve();
      },
      [],
      '2024-06-01T00:00:00.000Z',
    ),
    /no knowledge ids/,
  );
  assert.equal(redeploys, 0);
});
