import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ragConfigFromEnv } from '../../src/config.ts';
import { pickFraction } from '../../src/faults/fault-injector.ts';
import { fitLogistic } from '../../src/rerank/fit-logistic.ts';
import { featureVectors } from '../../src/rerank/features.ts';
import { Reranker, type RerankerWeights } from '../../src/rerank/reranker.ts';
import { QueryNormalizer, touchedByTokenizerAnomaly } from '../../src/text/query-normalizer.ts';
import { terms } from '../../src/text/terms.ts';
import type { ChunkPayload } from '../../src/index/vector-index.ts';

const payload = (pkg: string, text: string, trust = 0.9): ChunkPayload => ({
  chunk_id: `c:${pkg}`,
  doc_id: `d:${pkg}`,
  knowledge_id: `changelog/${pkg}`,
  version: '1',
  source: 'debian-changelog',
  source_trust: trust,
  updated_at: '2024-01-01T00:00:00.000Z',
  valid_from: '2024-01-01T00:00:00.000Z',
  valid_until: null,
  text,
});

test('terms keep package names and versions whole', () => {
  assert.deepEqual(terms('What is the latest version of python3.11-minimal?'), [
    'what',
    'is',
    'the',
    'latest',
    'version',
    'of',
    'python3.11-minimal',
  ]);
});

test('the tokenizer anomaly breaks names with punctuation; a rewrite rule repairs it', () => {
  const normalizer = new QueryNormalizer();
  const query = 'What is the latest version of libssl3-dev?';
  assert.equal(normalizer.normalize(query), query);
  normalizer.tokenizerDefect = true;
  assert.ok(touchedByTokenizerAnomaly(query));
  assert.notDeepEqual(terms(normalizer.normalize(query)), terms(query));
  assert.equal(normalizer.normalize('Who maintains bash?'), 'Who maintains bash?');
  normalizer.setRules([
    { pattern: '[\\u200d]', replacement: '' },
    { pattern: '\\u2010', replacement: '-' },
  ]);
  assert.equal(normalizer.normalize(query), query);
});

test('features: subject match, overlap and numbers; the reranker orders by its weights', () => {
  const candidates = [
    { retrievalScore: 0.8, payload: payload('bash-completion', 'Package: bash-completion | Version: 1:2.11-6') },
    { retrievalScore: 0.7, payload: payload('bash', 'Package: bash | Version: 5.2.15-2') },
  ];
  const features = featureVectors('What is the latest version of bash?', candidates);
  assert.equal(features[0]![1], 0);
  assert.equal(features[1]![1], 1);
  const weights = (version: string, subject: number): RerankerWeights => ({
    version,
    model: 'logistic-regression',
    features: ['cosine', 'subject_match', 'term_overlap', 'bm25', 'number_match', 'source_trust'],
    weights: [1, subject, 0, 0, 0, 0],
    bias: 0,
  });
  const reranker = new Reranker(
    new Map([
      ['good', weights('good', 4)],
      ['bad', weights('bad', -4)],
    ]),
    'good',
  );
  assert.equal(reranker.rerank('What is the latest version of bash?', candidates)[0]!.candidate.payload.knowledge_id, 'changelog/bash');
  reranker.use('bad');
  assert.equal(
    reranker.rerank('What is the latest version of bash?', candidates)[0]!.candidate.payload.knowledge_id,
    'changelog/bash-completion',
  );
  assert.throws(() => reranker.use('v9'), /unknown reranker version v9/);
});

test('logistic regression separates a separable set', () => {
  const x = [[0], [0.1], [0.9], [1]];
  const fit = fitLogistic(x, [0, 0, 1, 1]);
  assert.ok(fit.weights[0]! > 1);
  assert.ok(fit.loss < 0.4);
});

test('fault scope picks are deterministic and roughly the fraction asked', () => {
  const ids = Array.from({ length: 1000 }, (_, i) => `changelog/p${i}`);
  const picked = pickFraction(ids, 0.3, 's');
  assert.deepEqual(picked, pickFraction(ids, 0.3, 's'));
  assert.ok(picked.length > 250 && picked.length < 350);
});

test('configuration is refused naming the key', () => {
  assert.throws(
    () => ragConfigFromEnv({ INSTANCE: 'baseline', QDRANT_URL: 'http://127.0.0.1:16333' }),
    /PINNED_AS_OF is required when INSTANCE=baseline/,
  );
  assert.throws(() => ragConfigFromEnv({ QDRANT_URL: 'nope' }), /QDRANT_URL/);
  assert.throws(() => ragConfigFromEnv({ QDRANT_URL: 'http://q:6333', PORT: 'x' }), /PORT/);
  const config = ragConfigFromEnv({ INSTANCE: 'baseline', PINNED_AS_OF: '2024-06-01T00:00:00Z', QDRANT_URL: 'http://q:6333' });
  assert.equal(config.RERANKER_VERSION, 'v2.1');
});
