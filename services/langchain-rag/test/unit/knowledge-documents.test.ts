import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HistoryProvider, KnowledgeSource, chainValidity, type KnowledgeRecord } from '@rag-immune/debian-knowledge';
import { versionedMetadataOf } from '@rag-immune/langchain';
import { knowledgeDocuments } from '../../src/knowledge-documents.ts';
import { SharedSentenceEmbeddings } from '../../src/shared-sentence-embeddings.ts';

const record = (version: string, from: string): KnowledgeRecord => ({
  knowledgeId: 'changelog/acl',
  docId: 'changelog/acl',
  version,
  source: 'debian-changelog',
  validFrom: new Date(from),
  validUntil: null,
  updatedAt: new Date(from),
  fields: [
    ['Package', 'acl'],
    ['Version', version],
  ],
  body: '',
});
const history = chainValidity([record('2.3.1-1', '2022-01-01T00:00:00Z'), record('2.3.1-3', '2024-09-01T00:00:00Z')]);
const source = new KnowledgeSource('debian-changelog', 0.9, new HistoryProvider(history));

test('documents carry the versioned metadata the adapter requires, as published by the given time', () => {
  const now = knowledgeDocuments([source], new Date('2026-01-01T00:00:00Z'));
  assert.equal(now.length, 2);
  const metadata = now.map((doc) => versionedMetadataOf(doc));
  assert.deepEqual(
    metadata.map((m) => [m.chunk_id, m.valid_until]),
    [
      ['changelog/acl@2.3.1-1#0', '2024-09-01T00:00:00.000Z'],
      ['changelog/acl@2.3.1-3#0', null],
    ],
  );
  assert.equal(metadata[0]!.source_trust, 0.9);
  assert.equal(now[1]!.pageContent, 'Package: acl | Version: 2.3.1-3');
  // The baseline's knowledge: the later version is unknown and the earlier one open-ended.
  const pinned = knowledgeDocuments([source], new Date('2024-06-01T00:00:00Z'));
  assert.deepEqual(
    pinned.map((doc) => [doc.metadata.version, doc.metadata.valid_until]),
    [['2.3.1-1', null]],
  );
});

test('the shared embedder behind LangChain Embeddings: plain number arrays, one per text', async () => {
  const calls: string[][] = [];
  const embeddings = new SharedSentenceEmbeddings({
    modelId: 'fake-embedder',
    embed: async (texts: readonly string[]) => {
      calls.push([...texts]);
      return texts.map((t) => Float32Array.from([t.length, 1]));
    },
  });
  assert.deepEqual(await embeddings.embedDocuments(['ab', 'abc']), [
    [2, 1],
    [3, 1],
  ]);
  assert.deepEqual(await embeddings.embedQuery('a'), [1, 1]);
  assert.deepEqual(await embeddings.embedDocuments([]), []);
  assert.deepEqual(calls, [['ab', 'abc'], ['a']]);
  assert.equal(embeddings.modelId, 'fake-embedder');
});
