import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffIndexes, indexChanged, type IndexChunk } from '../../../src/index-diff/index-diff.ts';

const chunk = (knowledge: string, version: string, text: string, vector: number[], extra: Partial<IndexChunk> = {}): IndexChunk => ({
  point_id: `${knowledge}@${version}`,
  knowledge_id: knowledge,
  doc_id: `doc:${knowledge}`,
  chunk_id: `doc:${knowledge}@${version}#0`,
  version,
  valid_from: '2024-01-01T00:00:00.000Z',
  valid_until: null,
  text,
  vector,
  ...extra,
});

const A = chunk('changelog/a', '1.0', 'a 1.0', [1, 0, 0]);
const B = chunk('changelog/b', '2.0', 'b 2.0', [0, 1, 0]);
const PIN = new Date('2024-06-01T00:00:00Z');

test('an identical index is no change', () => {
  const diff = diffIndexes(['changelog/a', 'changelog/b'], [A, B], [A, B], PIN);
  assert.equal(indexChanged(diff), false);
  assert.equal(diff.min_vector_cosine, 1);
});

test('the online knowledge moving on is no change: a newer version, and the old one closed when it began', () => {
  const newer = chunk('changelog/a', '1.1', 'a 1.1', [0, 0, 1], { valid_from: '2025-03-01T00:00:00.000Z' });
  const closed = { ...A, valid_until: '2025-03-01T00:00:00.000Z' };
  const diff = diffIndexes(['changelog/a'], [closed, newer], [A], PIN);
  assert.equal(indexChanged(diff), false, JSON.stringify(diff));
  assert.equal(diff.added_after_pin, 1);
});

test('overwritten vectors and deleted points are counted, with examples', () => {
  const garbage = { ...A, vector: [0.1, 0.9, 0.3] };
  const diff = diffIndexes(['changelog/a', 'changelog/b'], [garbage], [A, B], PIN);
  assert.equal(diff.vectors_moved, 1);
  assert.equal(diff.missing, 1);
  assert.deepEqual(
    diff.examples.map((e) => [e.kind, e.knowledge_id, e.point_id, e.field]),
    [
      ['missing', 'changelog/b', 'changelog/b@2.0', 'point'],
      ['vector_moved', 'changelog/a', 'changelog/a@1.0', 'vector'],
    ],
  );
});

test('two documents whose ids were swapped: same texts, other knowledge ids', () => {
  const swappedA = { ...A, knowledge_id: B.knowledge_id, doc_id: B.doc_id };
  const swappedB = { ...B, knowledge_id: A.knowledge_id, doc_id: A.doc_id };
  const diff = diffIndexes(['changelog/a', 'changelog/b'], [swappedA, swappedB], [A, B], PIN);
  assert.equal(diff.relabelled, 2);
  assert.equal(diff.vectors_moved, 0);
});

test('a version no feed published, valid from before the pin, and the current one closed for it', () => {
  const closed = { ...A, valid_until: '2024-03-01T00:00:00.000Z' };
  const planted = chunk('changelog/a', '9.9', 'a 9.9', [0.5, 0.5, 0], { valid_from: '2024-03-01T00:00:00.000Z' });
  const diff = diffIndexes(['changelog/a'], [closed, planted], [A], PIN);
  assert.equal(diff.added_unexpected, 1);
  assert.equal(diff.payload_changed, 0, 'closing A is explained by the planted version: the added one is the change');
  assert.equal(indexChanged(diff), true);
});

test('a validity window changed for no newer version is a payload change', () => {
  const diff = diffIndexes(['changelog/a'], [{ ...A, valid_until: '2024-02-01T00:00:00.000Z' }], [A], PIN);
  assert.equal(diff.payload_changed, 1);
});

test('text rewritten in place (same chunk id, vector intact) is a text change, not a lost chunk', () => {
  const rewritten = { ...A, text: 'a 1.0, edited by a script' };
  const diff = diffIndexes(['changelog/a'], [rewritten], [A], PIN);
  assert.deepEqual([diff.text_changed, diff.missing, diff.added_unexpected, diff.vectors_moved], [1, 0, 0, 0]);
  assert.deepEqual(diff.examples[0], {
    kind: 'text_changed',
    knowledge_id: 'changelog/a',
    point_id: 'changelog/a@1.0',
    chunk: 'doc:changelog/a@1.0#0',
    field: 'text',
    before: 'a 1.0',
    after: 'a 1.0, edited by a script',
  });
});

test('a text rewritten under another chunk id with its vector kept is found by the vector', () => {
  const rewritten = { ...A, chunk_id: 'other', point_id: 'p2', text: 'rewritten' };
  const diff = diffIndexes(['changelog/a'], [rewritten], [A], PIN);
  assert.deepEqual([diff.text_changed, diff.missing], [1, 0]);
});

test('example values are shortened: a report carries a few characters, not the chunk', () => {
  const long = 'x'.repeat(500);
  const diff = diffIndexes(['changelog/a'], [{ ...A, text: long }], [A], PIN);
  assert.ok(diff.examples[0]!.after!.length <= 80);
});

test('a version changed in place is a payload change with before and after', () => {
  const diff = diffIndexes(['changelog/a'], [{ ...A, version: '0.9' }], [A], PIN);
  assert.equal(diff.payload_changed, 1);
  assert.deepEqual([diff.examples[0]!.field, diff.examples[0]!.before, diff.examples[0]!.after], ['version', '1.0', '0.9']);
});

test('text rewritten and re-embedded (a re-parse) is a moved vector, not an in-place text change', () => {
  const reparsed = { ...A, text: 'a 1.0 merged with the next section', vector: [0, 1, 1] };
  const diff = diffIndexes(['changelog/a'], [reparsed], [A], PIN);
  assert.deepEqual([diff.text_changed, diff.vectors_moved, diff.missing], [0, 1, 0]);
});

test('a version ingested beside the current one (test kit): the online-only versions are listed, the closed window at its start is no change', () => {
  const at = '2024-07-01T00:00:00.000Z';
  const leaked = chunk('changelog/a', '1.0+test1', 'a 1.0+test1', [1, 0, 0], { point_id: 'leaked', valid_from: at });
  const diff = diffIndexes(['changelog/a', 'changelog/b'], [leaked, { ...A, valid_until: at }, B], [A, B], PIN);
  assert.deepEqual(diff.online_only_versions, [{ knowledge_id: 'changelog/a', version: '1.0+test1', chunks: 1, in_baseline: false }]);
  assert.deepEqual([diff.added_after_pin, diff.payload_changed, diff.windows_closed], [1, 0, 0]);
});

test('a validity window closed for no newer version counts among windows_closed; a version changed does not', () => {
  const closed = diffIndexes(['changelog/a'], [{ ...A, valid_until: '2024-02-01T00:00:00.000Z' }], [A], PIN);
  assert.deepEqual([closed.payload_changed, closed.windows_closed], [1, 1]);
  const changed = diffIndexes(['changelog/a'], [{ ...A, version: '0.9' }], [A], PIN);
  assert.deepEqual([changed.payload_changed, changed.windows_closed], [1, 0]);
});

test('the same text twice under one id (a version whose text does not name it): the chunk of the baseline version is the match', () => {
  const copy = { ...A, point_id: 'copy', chunk_id: 'copy', version: '1.0+test1', valid_from: '2024-07-01T00:00:00.000Z' };
  const diff = diffIndexes(['changelog/a'], [copy, A], [A], PIN);
  assert.deepEqual([diff.payload_changed, diff.added_after_pin, diff.added_unexpected], [0, 1, 0]);
  assert.deepEqual(
    diff.online_only_versions.map((v) => [v.version, v.in_baseline]),
    [['1.0+test1', false]],
  );
});
