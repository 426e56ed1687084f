import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DetectorVerdict } from '../../../src/detectors/index.ts';
import type { IndexDiff } from '../../../src/index-diff/index-diff.ts';
import {
  CONTRADICTED_WEIGHT,
  QdrantIndexDiffer,
  explainedBy,
  idsToDiff,
  unexplainedChanges,
  weighByIndexDiff,
} from '../../../src/index-diff/index-evidence.ts';

const verdict = (cause: DetectorVerdict['cause'], score: number, ids: string[]): DetectorVerdict => ({
  cause,
  component: 'vector_store' as DetectorVerdict['component'],
  score,
  measurements: [],
  knowledge_ids: ids,
});
const empty: IndexDiff = {
  knowledge_ids: ['changelog/a'],
  online_points: 2,
  baseline_points: 2,
  missing: 0,
  added_unexpected: 0,
  added_unknown_version: 0,
  added_after_pin: 0,
  relabelled: 0,
  payload_changed: 0,
  windows_closed: 0,
  online_only_versions: [],
  text_changed: 0,
  vectors_moved: 0,
  text_reembedded: 0,
  min_vector_cosine: 1,
  examples: [],
  collections: null,
};

test('only the data causes with a score name knowledge to diff', () => {
  assert.deepEqual(
    idsToDiff([
      verdict('vector_index_corruption', 0.8, ['changelog/a']),
      verdict('reranker_drift', 0.9, ['changelog/z']),
      verdict('wrong_attribution', 0, ['changelog/q']),
      verdict('knowledge_source_failure', 0.5, ['changelog/k']),
      verdict('parser_bug', 0.4, ['changelog/p']),
    ]),
    ['changelog/a', 'changelog/k', 'changelog/p'],
  );
});

test('an intact index contradicts vector_index_corruption: its score is cut, the measurement recorded', () => {
  const [weighed] = weighByIndexDiff([verdict('vector_index_corruption', 0.8, ['changelog/a'])], empty);
  assert.equal(weighed!.score, 0.8 * CONTRADICTED_WEIGHT);
  assert.deepEqual(
    weighed!.measurements.map((m) => [m.metric, m.observed]),
    [
      ['index_vectors_moved', 0],
      ['index_points_missing', 0],
    ],
  );
});

test('moved vectors keep vector_index_corruption; relabelled chunks keep wrong_attribution and cut the corruption', () => {
  const moved = weighByIndexDiff([verdict('vector_index_corruption', 0.8, ['changelog/a'])], { ...empty, vectors_moved: 3 });
  assert.equal(moved[0]!.score, 0.8);
  const relabelled = weighByIndexDiff(
    [verdict('vector_index_corruption', 0.7, ['changelog/a']), verdict('wrong_attribution', 0.6, ['changelog/a'])],
    { ...empty, relabelled: 2 },
  );
  assert.equal(relabelled[0]!.score, 0.7 * CONTRADICTED_WEIGHT);
  assert.equal(relabelled[1]!.score, 0.6);
});

test('chunks rewritten and re-embedded with no vector moved under its own text name parser_bug, not vector_index_corruption', () => {
  // A re-parse that pushed the re-cut chunk out of the probe's context: the trace diff saw a lost chunk.
  const reparsed = { ...empty, vectors_moved: 2, text_reembedded: 2, missing: 1, added_unexpected: 1 };
  const weighed = weighByIndexDiff(
    [verdict('vector_index_corruption', 0.9, ['changelog/a']), verdict('parser_bug', 0, []), verdict('reranker_drift', 0.1, [])],
    reparsed,
  );
  assert.deepEqual(
    weighed.map((v) => [v.cause, v.score]),
    [
      ['vector_index_corruption', 0.9 * CONTRADICTED_WEIGHT],
      ['parser_bug', 0.9],
      ['reranker_drift', 0.1],
    ],
  );
  assert.deepEqual(weighed[1]!.knowledge_ids, ['changelog/a']);
  assert.deepEqual(
    weighed[1]!.measurements.map((m) => [m.metric, m.observed]),
    [
      ['index_chunks_reembedded_with_new_text', 2],
      ['index_points_missing', 1],
      ['index_chunks_added', 1],
    ],
  );
  assert.deepEqual(
    [explainedBy(reparsed), unexplainedChanges(reparsed)],
    [['vector_index_corruption', 'knowledge_source_failure', 'parser_bug'], []],
  );

  // A vector moved under its own unchanged text is corruption whatever else was re-parsed.
  const both = weighByIndexDiff([verdict('vector_index_corruption', 0.9, ['changelog/a'])], { ...reparsed, vectors_moved: 3 });
  assert.deepEqual(
    both.map((v) => [v.cause, v.score]),
    [['vector_index_corruption', 0.9]],
  );
  // Re-embedded text only: nothing the corruption's signature shows.
  assert.deepEqual(explainedBy({ ...empty, vectors_moved: 1, text_reembedded: 1 }), ['parser_bug']);
});

test('no diff (the index could not be read) changes nothing', () => {
  const verdicts = [verdict('vector_index_corruption', 0.8, ['changelog/a'])];
  assert.deepEqual(weighByIndexDiff(verdicts, null), verdicts);
});

test('a reader that fails gives no diff, reported once, never an exception', async () => {
  const errors: unknown[] = [];
  const broken = { chunksOf: () => Promise.reject(new Error('qdrant down')), nearest: () => Promise.resolve(null) };
  const differ = new QdrantIndexDiffer(broken, broken, undefined, (e) => errors.push(e));
  assert.equal(await differ.diff(['changelog/a']), null);
  assert.equal(errors.length, 1);
});

test('a chunk its knowledge lost is looked for by its vector: found under another id, it is relabelled, not missing', async () => {
  const base = { doc_id: 'd', chunk_id: 'c', version: '1', valid_from: '2024-01-01T00:00:00.000Z', valid_until: null };
  const x = { ...base, point_id: 'p1', knowledge_id: 'changelog/x', text: 'x text', vector: [1, 0] };
  const moved = { ...x, knowledge_id: 'changelog/y', doc_id: 'dy' };
  const reader = (chunks: (typeof x)[], elsewhere: typeof x | null) => ({
    chunksOf: (ids: readonly string[]) => Promise.resolve(chunks.filter((c) => ids.includes(c.knowledge_id))),
    nearest: () => Promise.resolve(elsewhere),
  });
  const relabelled = await new QdrantIndexDiffer(reader([moved], moved), reader([x], null), undefined).diff(['changelog/x']);
  assert.deepEqual([relabelled?.relabelled, relabelled?.missing], [1, 0]);
  const deleted = await new QdrantIndexDiffer(
    reader([], { ...x, point_id: 'p9', text: 'another chunk' }),
    reader([x], null),
    undefined,
  ).diff(['changelog/x']);
  assert.deepEqual([deleted?.relabelled, deleted?.missing], [0, 1]);
});
