import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AdapterFileError, loadAdapterFile, parseAdapter } from '../../src/index.ts';
import { example } from './helpers.ts';

const valid = {
  apiVersion: 'rag-immune/v1',
  kind: 'RagAdapter',
  metadata: { name: 't' },
  request: { url: '${base_url}/ask', body: { q: '${query}' } },
  response: { answer: '$.answer', documents: { path: '$.docs[*]', text: '$.text' } },
};

function issuesOf(document: unknown): { key: string; message: string }[] {
  try {
    parseAdapter(JSON.stringify(document), 'x.json');
  } catch (error) {
    assert.ok(error instanceof AdapterFileError, String(error));
    assert.match(error.message, /^invalid RAG adapter x\.json: /);
    return error.issues;
  }
  assert.fail('expected an AdapterFileError');
}

test('every shipped example adapter is valid', () => {
  for (const name of ['health-contract.yaml', 'flowise-prediction.yaml', 'langserve-retrieval-invoke.yaml', 'langserve-invoke.yaml'])
    assert.equal(loadAdapterFile(example(name)).apiVersion, 'rag-immune/v1', name);
});

test('a valid adapter parses from JSON as well as YAML, with method POST by default', () => {
  const adapter = parseAdapter(JSON.stringify(valid));
  assert.equal(adapter.request.method, 'POST');
  assert.deepEqual(adapter.request.headers, {});
});

test('a missing required key is named by its full key', () => {
  const { answer: _answer, ...response } = valid.response;
  assert.deepEqual(issuesOf({ ...valid, response }), [{ key: 'response.answer', message: 'Required' }]);
  const { text: _text, ...documents } = valid.response.documents;
  assert.deepEqual(
    issuesOf({ ...valid, response: { ...valid.response, documents } }).map((i) => i.key),
    ['response.documents.text'],
  );
});

test('an unknown key is named, so a typo is not silently ignored', () => {
  const issues = issuesOf({ ...valid, response: { ...valid.response, documents: { ...valid.response.documents, retrival_score: '$.s' } } });
  assert.deepEqual(
    issues.map((i) => i.key),
    ['response.documents.retrival_score'],
  );
});

test('a wrong apiVersion, kind, a URL without ${base_url} and a bad JSONPath each name their key', () => {
  const issues = issuesOf({
    ...valid,
    apiVersion: 'rag-immune/v2',
    kind: 'Rag',
    request: { url: 'http://rag/ask' },
    response: { answer: 'answer', documents: { path: '$.docs[?(@.x', text: '$.[' } },
  });
  const byKey = new Map(issues.map((i) => [i.key, i.message]));
  assert.equal(byKey.get('apiVersion'), 'must be rag-immune/v1');
  assert.equal(byKey.get('kind'), 'must be RagAdapter');
  assert.match(byKey.get('request.url') ?? '', /must contain \$\{base_url\}/);
  assert.match(byKey.get('response.answer') ?? '', /JSONPath starting with \$/);
  assert.match(byKey.get('response.documents.text') ?? '', /not a valid JSONPath/);
  assert.match(byKey.get('response.documents.path') ?? '', /not a valid JSONPath/);
});

test('a file that is not YAML and a file that cannot be read are AdapterFileErrors naming the file', () => {
  assert.throws(
    () => parseAdapter('a: [unclosed', 'bad.yaml'),
    (error: unknown) => error instanceof AdapterFileError && error.file === 'bad.yaml',
  );
  assert.throws(
    () => loadAdapterFile('/nonexistent/adapter.yaml'),
    (error: unknown) => error instanceof AdapterFileError && /cannot read/.test(error.message),
  );
});

test('a GET request with a body is refused, naming request.body', () => {
  assert.deepEqual(issuesOf({ ...valid, request: { ...valid.request, method: 'GET' } }), [
    { key: 'request.body', message: 'a GET request has no body: put ${query} in the url' },
  ]);
});
