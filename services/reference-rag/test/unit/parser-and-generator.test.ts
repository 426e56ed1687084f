import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DocumentParser } from '../../src/chunking/document-parser.ts';
import { pointIdOf } from '../../src/chunking/knowledge-chunk.ts';
import { ExtractiveGenerator } from '../../src/generation/extractive-generator.ts';
import { toPayload } from '../../src/index/vector-index.ts';
import type { KnowledgeRecord } from '@rag-immune/debian-knowledge';
import { isExactAnswer } from '../../src/questions/question-set.ts';

const record = (pkg: string, version: string, day: string, uploader: string): KnowledgeRecord => ({
  knowledgeId: `changelog/${pkg}`,
  docId: `debian-changelog:${pkg}`,
  version,
  source: 'debian-changelog',
  validFrom: new Date(`${day}T00:00:00Z`),
  validUntil: null,
  updatedAt: new Date(`${day}T00:00:00Z`),
  fields: [
    ['Package', pkg],
    ['Version', version],
    ['Released', day],
    ['Uploaded by', uploader],
  ],
  body: 'New upstream release.',
});

const records = [
  record('bash', '5.2.15-2', '2023-01-02', 'Matthias Klose'),
  record('curl', '7.88.1-10+deb12u14', '2025-10-01', 'Carlos Henrique Lima Melara'),
];
const parser = new DocumentParser(() => 0.9);
const payloads = (defect?: Parameters<DocumentParser['parse']>[1]) => parser.parse(records, defect).map(toPayload);
const generator = new ExtractiveGenerator();

test('chunks carry the versioned metadata and a deterministic UUID point id', () => {
  const [bash] = parser.parse(records);
  assert.equal(bash!.chunkId, 'debian-changelog:bash@5.2.15-2#0');
  assert.match(bash!.text, /^Package: bash \| Version: 5\.2\.15-2 \| Released: 2023-01-02/);
  assert.equal(pointIdOf(bash!.chunkId), pointIdOf('debian-changelog:bash@5.2.15-2#0'));
  assert.match(pointIdOf(bash!.chunkId), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('the generator answers with the fact of its best evidence and cites it', () => {
  const answer = generator.generate('What is the latest version of curl?', payloads().reverse());
  assert.equal(answer.answer, 'The latest version of curl is 7.88.1-10+deb12u14.');
  assert.equal(answer.citations[0]!.chunk_id, 'debian-changelog:curl@7.88.1-10+deb12u14#0');
  assert.ok(isExactAnswer(answer.answer, '7.88.1-10+deb12u14'));
  assert.ok(!isExactAnswer(answer.answer, '7.88.1-10'));
  const when = generator.generate('When was the latest version of bash released?', payloads());
  assert.ok(isExactAnswer(when.answer, '2023-01-02'));
});

test('parser defects: merged sections and boilerplate make the extracted fact wrong', () => {
  const merged = payloads({ mode: 'merge-sections', affects: (id) => id === 'changelog/bash' });
  assert.match(merged[0]!.text, /^Package: bash \| Version: 7\.88\.1-10\+deb12u14/);
  const boiler = payloads({ mode: 'boilerplate', affects: () => true });
  const answer = generator.generate('What is the latest version of bash?', boiler);
  assert.equal(answer.answer, 'The latest version of bash is 12.0.');
});

test('generator inconsistency swaps the fact; answer validation withholds the swapped answer', () => {
  const inconsistent = new ExtractiveGenerator();
  inconsistent.defect = { affects: (id) => id === 'changelog/bash' };
  const swapped = inconsistent.generate('What is the latest version of bash?', payloads());
  assert.equal(swapped.answer, 'The latest version of bash is 7.88.1-10+deb12u14.');
  inconsistent.validateAnswers = true;
  const withheld = inconsistent.generate('What is the latest version of bash?', payloads());
  assert.equal(withheld.abstained, true);
  inconsistent.defect = undefined;
  assert.equal(inconsistent.generate('What is the latest version of bash?', payloads()).abstained, false);
});

test('no evidence with the asked field → abstain instead of inventing', () => {
  const answer = generator.generate('What is the installed size of the bash package?', payloads());
  assert.equal(answer.abstained, true);
  assert.deepEqual(answer.citations, []);
});
