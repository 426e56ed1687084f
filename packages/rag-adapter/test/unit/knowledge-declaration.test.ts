import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdapterFileError, parseAdapter } from '../../src/index.ts';

const BASE = `apiVersion: rag-immune/v1
kind: RagAdapter
metadata: { name: t }
request: { url: '\${base_url}/q', body: { q: '\${query}' } }
response: { answer: $.text }
`;

test('without `knowledge`, newer online knowledge is an update (files written before the key stay valid)', () => {
  assert.equal(parseAdapter(BASE).knowledge, undefined);
  assert.equal(parseAdapter(`${BASE}knowledge: {}\n`).knowledge?.newer_than_baseline, 'update');
});

test('`knowledge.newer_than_baseline: unverified` is read; another value or key is refused naming it', () => {
  assert.equal(parseAdapter(`${BASE}knowledge: { newer_than_baseline: unverified }\n`).knowledge?.newer_than_baseline, 'unverified');
  for (const [text, key] of [
    [`${BASE}knowledge: { newer_than_baseline: sometimes }\n`, 'knowledge.newer_than_baseline'],
    [`${BASE}knowledge: { feed: x }\n`, 'knowledge.feed'],
  ] as const) {
    assert.throws(
      () => parseAdapter(text, 't.yaml'),
      (error: unknown) => error instanceof AdapterFileError && error.issues.some((issue) => issue.key === key),
    );
  }
});
