import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContractViolationError } from '@rag-immune/rag-contract';
import { extractResponse, loadAdapterFile, parseAdapter } from '../../src/index.ts';
import { example, fixture } from './helpers.ts';

test('Flowise: the answer and each source document, with only the metadata the loader added', () => {
  const adapter = loadAdapterFile(example('flowise-prediction.yaml'));
  const response = extractResponse(fixture('flowise-prediction.json'), adapter.response);
  assert.deepEqual(response, {
    answer: 'The latest version of openssl in bookworm is 3.0.15-1~deb12u1.',
    chunks: [
      {
        text: 'openssl (3.0.15-1~deb12u1) bookworm-security; urgency=medium. Fix CVE-2024-5535.',
        doc_id: 'debian/openssl/changelog',
        knowledge_id: 'pkg:openssl',
        version: '3.0.15-1~deb12u1',
        source: 'debian-security',
        updated_at: '2024-10-26T10:12:00Z',
      },
      // The second document carries no Additional Metadata: nothing is filled in for it.
      { text: 'openssl (3.0.14-1~deb12u2) bookworm; urgency=medium. Rebuild.', doc_id: 'debian/openssl/changelog' },
    ],
  });
  for (const chunk of response.chunks) {
    assert.equal('chunk_id' in chunk, false);
    assert.equal('retrieval_score' in chunk, false);
  }
  assert.equal('trace_id' in response, false);
});

test('Flowise 2.2.8, recorded: the answer and every source document with the metadata the ingestion wrote', () => {
  const adapter = loadAdapterFile(example('flowise.yaml'));
  const recorded = fixture('flowise-recorded.json') as { sourceDocuments: { metadata: Record<string, unknown> }[] };
  const response = extractResponse(recorded, adapter.response);
  assert.equal(response.answer, 'The latest version of node-benchmark is 2.1.4+~2.1.2-2.');
  assert.equal(response.chunks.length, 4);
  assert.deepEqual(response.chunks[1], {
    text: 'Package: node-benchmark | Version: 2.1.4+~2.1.2-2 | Source: node-benchmark | Section: javascript | Installed-Size: 115 KiB | Maintainer: Debian Javascript Maintainers <pkg-javascript-devel@lists.alioth.debian.org> | Summary: Benchmarking library | Available since: 2023-01-30',
    doc_id: 'apt-metadata:node-benchmark',
    chunk_id: 'apt-metadata:node-benchmark@2.1.4+~2.1.2-2#0',
    knowledge_id: 'apt/node-benchmark',
    version: '2.1.4+~2.1.2-2',
    source: 'apt-metadata',
    source_trust: 0.7,
    updated_at: '2026-07-11T10:16:37.000Z',
    valid_from: '2023-01-30T17:54:48.000Z',
    // An open-ended validity is kept as null, not dropped.
    valid_until: null,
  });
  // Flowise returns no scores and no trace id: nothing is invented for them.
  for (const chunk of response.chunks) assert.equal('retrieval_score' in chunk || 'rerank_score' in chunk, false);
  assert.equal('trace_id' in response, false);
  assert.equal(response.chunks[0]!.valid_until, recorded.sourceDocuments[0]!.metadata.valid_until);
});

test('LangServe 0.3.3, recorded: output.answer and output.context with the ingestion metadata; the null Document id is not used', () => {
  const adapter = loadAdapterFile(example('langserve.yaml'));
  const response = extractResponse(fixture('langserve-recorded.json'), adapter.response);
  assert.equal(response.answer, 'The latest version of node-benchmark is 1.0.4-1.');
  assert.equal(response.chunks.length, 4);
  assert.deepEqual(response.chunks[0], {
    text: 'Package: node-benchmark | Version: 2.1.4+~2.1.2-1 | Released: 2022-12-17 | Uploaded by: sandra uwah | Distribution: unstable | Urgency: medium | Changes: Initial release (Closes: #1026263) Import upstream version 2.1.4',
    doc_id: 'debian-changelog:node-benchmark',
    chunk_id: 'debian-changelog:node-benchmark@2.1.4+~2.1.2-1#0',
    knowledge_id: 'changelog/node-benchmark',
    version: '2.1.4+~2.1.2-1',
    source: 'debian-changelog',
    source_trust: 0.9,
    updated_at: '2022-12-17T21:01:12.000Z',
    valid_from: '2022-12-17T21:01:12.000Z',
    valid_until: '2023-01-30T17:54:48.000Z',
  });
  for (const chunk of response.chunks) assert.equal('retrieval_score' in chunk, false);
});

test('LangServe retrieval chain: output.answer and output.context documents; a null id stays absent', () => {
  const adapter = loadAdapterFile(example('langserve-retrieval-invoke.yaml'));
  const response = extractResponse(fixture('langserve-retrieval-invoke.json'), adapter.response);
  assert.equal(response.answer, 'The latest version of curl in bookworm is 7.88.1-10+deb12u8.');
  assert.deepEqual(response.chunks[0], {
    text: 'curl (7.88.1-10+deb12u8) bookworm; urgency=medium. Fix CVE-2024-9681.',
    chunk_id: 'curl-7.88.1-10+deb12u8#0',
    doc_id: 'debian/curl/changelog',
    knowledge_id: 'pkg:curl',
    version: '7.88.1-10+deb12u8',
    updated_at: '2024-12-02T08:00:00Z',
    valid_from: '2024-12-02T08:00:00Z',
    retrieval_score: 0.83,
  });
  assert.deepEqual(response.chunks[1], {
    text: 'curl is a command line tool for transferring data with URLs.',
    doc_id: 'debian/curl/README',
  });
});

test('LangServe string output: the answer alone, no documents', () => {
  const adapter = loadAdapterFile(example('langserve-invoke.yaml'));
  assert.deepEqual(extractResponse(fixture('langserve-invoke.json'), adapter.response), {
    answer: 'The latest version of curl in bookworm is 7.88.1-10+deb12u8.',
    chunks: [],
  });
});

test('a response the adapter does not fit is a ContractViolationError naming the adapter key', () => {
  const adapter = loadAdapterFile(example('langserve-retrieval-invoke.yaml'));
  assert.throws(
    () => extractResponse(fixture('langserve-invoke.json'), adapter.response),
    (error: unknown) =>
      error instanceof ContractViolationError && /response\.answer: \$\.output\.answer matched nothing/.test(error.message),
  );
});

const paths = (documents: Record<string, string>, extra: Record<string, unknown> = {}) =>
  parseAdapter(
    JSON.stringify({
      apiVersion: 'rag-immune/v1',
      kind: 'RagAdapter',
      metadata: { name: 't' },
      request: { url: '${base_url}' },
      response: { answer: '$.a', documents: { path: '$.d[*]', text: '$.t', ...documents }, ...extra },
    }),
  ).response;

test('a score of the wrong type names the key and the document; it is not read as absent', () => {
  assert.throws(
    () =>
      extractResponse(
        {
          a: 'x',
          d: [
            { t: 'one', s: 0.5 },
            { t: 'two', s: '0.7' },
          ],
        },
        paths({ retrieval_score: '$.s' }),
      ),
    (error: unknown) =>
      error instanceof ContractViolationError &&
      /document 2: response\.documents\.retrieval_score: \$\.s is a string, expected a number/.test(error.message),
  );
});

test('numeric timestamps need the declared epoch unit; other ISO strings are normalised to UTC, RFC 3339 UTC kept as sent', () => {
  assert.throws(
    () => extractResponse({ a: 'x', d: [{ t: 'one', u: 1700000000 }] }, paths({ updated_at: '$.u' })),
    /set response\.epoch_unit/,
  );
  const inSeconds = extractResponse({ a: 'x', d: [{ t: 'one', u: 1700000000 }] }, paths({ updated_at: '$.u' }, { epoch_unit: 's' }));
  assert.equal(inSeconds.chunks[0]?.updated_at, '2023-11-14T22:13:20.000Z');
  const offset = extractResponse({ a: 'x', d: [{ t: 'one', u: '2024-01-01T02:00:00+02:00' }] }, paths({ updated_at: '$.u' }));
  assert.equal(offset.chunks[0]?.updated_at, '2024-01-01T00:00:00.000Z');
  assert.throws(
    () => extractResponse({ a: 'x', d: [{ t: 'one', u: 'last tuesday' }] }, paths({ updated_at: '$.u' })),
    /not a readable time/,
  );
});

test('valid_until: an explicit null is kept (open-ended), a missing one stays absent', () => {
  const response = extractResponse({ a: 'x', d: [{ t: 'one', v: null }, { t: 'two' }] }, paths({ valid_until: '$.v' }));
  assert.equal(response.chunks[0]?.valid_until, null);
  assert.equal('valid_until' in (response.chunks[1] ?? {}), false);
});

test('a path matching several values for one field is refused rather than one picked', () => {
  assert.throws(
    () => extractResponse({ a: 'x', d: [{ t: 'one', ids: ['a', 'b'] }] }, paths({ chunk_id: '$.ids[*]' })),
    /response\.documents\.chunk_id: \$\.ids\[\*\] matched 2 values/,
  );
});

test('a filter expression selects documents (safe evaluator)', () => {
  const response = extractResponse(
    {
      a: 'x',
      d: [
        { t: 'doc', kind: 'Document' },
        { t: 'tool', kind: 'Tool' },
      ],
    },
    parseAdapter(
      JSON.stringify({
        apiVersion: 'rag-immune/v1',
        kind: 'RagAdapter',
        metadata: { name: 't' },
        request: { url: '${base_url}' },
        response: { answer: '$.a', documents: { path: "$.d[?(@.kind=='Document')]", text: '$.t' } },
      }),
    ).response,
  );
  assert.deepEqual(response.chunks, [{ text: 'doc' }]);
});
