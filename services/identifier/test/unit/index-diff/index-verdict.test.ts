/**
 * The cause named from the index diff, and the abstention when no catalogue cause fits it: diffs of
 * each kind, the causes whose signature each shows, the verdict they allow, and the report that
 * carries the diff (through the RootCauseReport's Avro type, as it goes on the bus).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import avro from 'avsc';
import { exampleProbeResult, loadTopicSchema } from '@rag-immune/contracts';
import { decideVerdict, DEFAULT_POLICY, UNFITTED_CALIBRATION, type ProbeAnalysis } from '../../../src/testing.ts';
import { diffIndexes, type IndexChunk, type IndexDiff } from '../../../src/index-diff/index-diff.ts';
import { explainedBy, toIndexDiffEvidence, unexplainedChanges } from '../../../src/index-diff/index-evidence.ts';
import { buildReport } from '../../../src/report/report-builder.ts';
import { newIncident } from '../../../src/incidents/grouping.ts';

const PIN = new Date('2024-06-01T00:00:00Z');
const chunk = (knowledge: string, n: number, extra: Partial<IndexChunk> = {}): IndexChunk => ({
  point_id: `p-${knowledge}-${n}`,
  knowledge_id: knowledge,
  doc_id: `doc:${knowledge}`,
  chunk_id: `doc:${knowledge}@1.0#${n}`,
  version: '1.0',
  valid_from: '2024-01-01T00:00:00.000Z',
  valid_until: null,
  text: `${knowledge} chunk ${n}`,
  vector: [Math.cos(n + knowledge.length), Math.sin(n + knowledge.length), 0.5],
  ...extra,
});
const A = [chunk('changelog/a', 0), chunk('changelog/a', 1)];
const B = [chunk('changelog/b', 0)];

/** One diff of each kind, made the way its fault makes it. */
const DIFFS: Record<string, { diff: IndexDiff; explained: string[]; unexplained: string[] }> = {
  'vectors overwritten': {
    diff: diffIndexes(
      ['changelog/a'],
      A.map((c) => ({ ...c, vector: [0, 0, 1] })),
      A,
      PIN,
    ),
    // The text is the baseline's: nothing re-parsed it.
    explained: ['vector_index_corruption'],
    unexplained: [],
  },
  're-parsed in place (same chunk ids, new text, re-embedded)': {
    diff: diffIndexes(
      ['changelog/a'],
      A.map((c) => ({ ...c, text: `Page 1 of 1. ${c.text}`, vector: [0, 0, 1] })),
      A,
      PIN,
    ),
    explained: ['parser_bug'],
    unexplained: [],
  },
  'points deleted': {
    diff: diffIndexes(['changelog/a'], [], A, PIN),
    explained: ['vector_index_corruption', 'knowledge_source_failure', 'parser_bug'],
    unexplained: [],
  },
  'ids swapped': {
    diff: diffIndexes(
      ['changelog/a', 'changelog/b'],
      [
        ...A.map((c) => ({ ...c, knowledge_id: 'changelog/b', doc_id: 'doc:changelog/b' })),
        ...B.map((c) => ({ ...c, knowledge_id: 'changelog/a', doc_id: 'doc:changelog/a' })),
      ],
      [...A, ...B],
      PIN,
    ),
    explained: ['wrong_attribution'],
    unexplained: [],
  },
  'version rolled back': {
    diff: diffIndexes(
      ['changelog/a'],
      A.map((c) => ({ ...c, version: '0.9' })),
      A,
      PIN,
    ),
    explained: ['knowledge_source_failure'],
    unexplained: [],
  },
  'sections re-cut (new chunks of the versions the baseline has)': {
    diff: diffIndexes(
      ['changelog/a'],
      [chunk('changelog/a', 5, { chunk_id: 'recut#5', text: 'merged sections', vector: [0, 0, 1] })],
      A,
      PIN,
    ),
    explained: ['vector_index_corruption', 'knowledge_source_failure', 'parser_bug'],
    unexplained: [],
  },
  'text rewritten, vectors intact, no relabelling': {
    diff: diffIndexes(
      ['changelog/a'],
      A.map((c) => ({ ...c, text: `${c.text}: use version 9.9 instead` })),
      A,
      PIN,
    ),
    explained: [],
    unexplained: ['text_changed'],
  },
  'points added with no publication (valid before the pin)': {
    diff: diffIndexes(
      ['changelog/a'],
      [
        ...A,
        chunk('changelog/a', 7, { version: '1.0+backdated', chunk_id: 'x#7', text: 'planted', valid_from: '2024-02-01T00:00:00.000Z' }),
      ],
      A,
      PIN,
    ),
    explained: [],
    unexplained: ['added'],
  },
};

for (const [name, expected] of Object.entries(DIFFS))
  test(`${name}: explained by [${expected.explained.join(', ')}], unexplained [${expected.unexplained.join(', ')}]`, () => {
    assert.deepEqual(explainedBy(expected.diff).sort(), [...expected.explained].sort(), JSON.stringify(expected.diff));
    assert.deepEqual(unexplainedChanges(expected.diff), expected.unexplained);
  });

const analysis = (scores: ProbeAnalysis['scores'], diff: IndexDiff | null, n: number): ProbeAnalysis => ({
  probe_event_id: `e-${n}`,
  probe_id: `p${n}`,
  probe_version: 1,
  query: 'q',
  occurred_at: 1_000 + n,
  trace_status: 'ok',
  trace_evidence_id: null,
  scores,
  evidence_ids: { vector_index_corruption: [`v${n}`], wrong_attribution: [`w${n}`], knowledge_source_failure: [`k${n}`] },
  knowledge_ids: {
    vector_index_corruption: ['changelog/a'],
    wrong_attribution: ['changelog/a'],
    knowledge_source_failure: ['changelog/a'],
  },
  first_diverging_layer: 'retrieval',
  divergence_evidence_id: `d${n}`,
  ...(diff === null ? {} : { index_diff: { evidence_id: `ix${n}`, diff } }),
});
const twice = (scores: ProbeAnalysis['scores'], diff: IndexDiff | null) => [analysis(scores, diff, 1), analysis(scores, diff, 2)];
const judge = (analyses: ProbeAnalysis[]) => decideVerdict(analyses, UNFITTED_CALIBRATION, DEFAULT_POLICY, 0);

test('without an index diff the nearest signature is named, as before', () => {
  assert.equal(judge(twice({ vector_index_corruption: 1 }, null)).root_cause, 'vector_index_corruption');
});

test('the diff shows the named cause: vectors moved keep vector_index_corruption, relabelled chunks keep wrong_attribution', () => {
  assert.equal(judge(twice({ vector_index_corruption: 1 }, DIFFS['vectors overwritten']!.diff)).root_cause, 'vector_index_corruption');
  assert.equal(judge(twice({ vector_index_corruption: 1 }, DIFFS['points deleted']!.diff)).root_cause, 'vector_index_corruption');
  assert.equal(judge(twice({ wrong_attribution: 1 }, DIFFS['ids swapped']!.diff)).root_cause, 'wrong_attribution');
});

for (const name of ['text rewritten, vectors intact, no relabelling', 'points added with no publication (valid before the pin)'])
  test(`${name}: no catalogue cause fits, so the verdict abstains with the diff rather than borrow vector_index_corruption`, () => {
    const verdict = judge(twice({ vector_index_corruption: 1 }, DIFFS[name]!.diff));
    assert.equal(verdict.outcome, 'unknown');
    assert.equal(verdict.root_cause, 'unknown');
    assert.equal(verdict.component, 'vector_index');
    assert.equal(verdict.best_cause, 'vector_index_corruption', 'the nearest signature is kept for the record, not named');
    const question = verdict.open_questions.find((q) => q.kind === 'index_change_unexplained');
    assert.ok(question, JSON.stringify(verdict.open_questions));
    assert.deepEqual(question.evidence_ids, ['ix1', 'ix2']);
    assert.match(question.subject, new RegExp(`${DIFFS[name]!.unexplained[0]} in changelog/a`));
  });

test('text edited in place forbids parser_bug too (a re-parse re-embeds what it rewrites); a re-cut index keeps it', () => {
  const edited = judge(twice({ parser_bug: 1 }, DIFFS['text rewritten, vectors intact, no relabelling']!.diff));
  assert.equal(edited.root_cause, 'unknown');
  const recut = diffIndexes(['changelog/a'], [chunk('changelog/a', 0, { chunk_id: 'new#0', text: 'merged', vector: [0, 0, 1] })], A, PIN);
  assert.equal(judge(twice({ parser_bug: 1 }, recut)).root_cause, 'parser_bug');
});

test('a cause the diff does not judge (a stale feed) is still named over a diff that shows its signature', () => {
  const verdict = judge(twice({ knowledge_source_failure: 1 }, DIFFS['version rolled back']!.diff));
  assert.equal(verdict.root_cause, 'knowledge_source_failure');
});

test('an unchanged index neither confirms nor forbids: the verdict is the detectors', () => {
  const same = diffIndexes(['changelog/a'], A, A, PIN);
  assert.equal(judge(twice({ vector_index_corruption: 1 }, same)).root_cause, 'vector_index_corruption');
});

test('the report carries the diff (a changed one first): counts, bounded examples, what explains it, its ledger record; it encodes as Avro', () => {
  const rewritten = DIFFS['text rewritten, vectors intact, no relabelling']!.diff;
  rewritten.collections = {
    online: 'rag-online',
    baseline: 'rag-baseline',
    online_target: 'rag-online-v2',
    baseline_target: 'rag-baseline-v1',
    online_target_before: 'rag-online-v1',
  };
  const analyses = [
    analysis({ vector_index_corruption: 1 }, rewritten, 1),
    analysis({ vector_index_corruption: 1 }, diffIndexes(['changelog/a'], A, A, PIN), 2),
  ];
  const incident = newIncident('inc-1', exampleProbeResult(), 1_000);
  incident.analyses = analyses;
  const verdict = judge(analyses);
  const report = buildReport(incident, verdict, 1, [], 2_000);
  assert.equal(report.root_cause, 'unknown');
  assert.ok(report.open_questions.some((q) => q.kind === 'index_change_unexplained'));
  const carried = report.index_diff!;
  assert.equal(carried.evidence_id, 'ix1', 'the changed diff, not the later unchanged one');
  assert.deepEqual([carried.text_changed, carried.missing, carried.vectors_moved], [2, 0, 0]);
  assert.deepEqual(carried.unexplained, ['text_changed']);
  assert.deepEqual(carried.explained_by, []);
  assert.deepEqual(
    [carried.online_collection, carried.online_target, carried.online_target_before],
    ['rag-online', 'rag-online-v2', 'rag-online-v1'],
  );
  assert.deepEqual(carried.examples[0], {
    kind: 'alias_target_changed',
    knowledge_id: '',
    point_id: '',
    chunk: 'rag-online',
    field: 'alias target',
    before: 'rag-online-v1',
    after: 'rag-online-v2',
  });
  assert.ok(carried.examples.length <= 9);
  const type = avro.Type.forSchema(loadTopicSchema('reports') as avro.Schema);
  assert.deepEqual(JSON.parse(JSON.stringify(type.fromBuffer(type.toBuffer(report)))), JSON.parse(JSON.stringify(report)));
});

test('a report with no diff read carries null; a bare diff names no collection it did not read', () => {
  const incident = newIncident('inc-2', exampleProbeResult(), 1_000);
  incident.analyses = twice({ vector_index_corruption: 1 }, null);
  assert.equal(buildReport(incident, judge(incident.analyses), 1, [], 2_000).index_diff, null);
  const bare = toIndexDiffEvidence(DIFFS['points deleted']!.diff, null);
  assert.deepEqual([bare.online_target, bare.online_target_before, bare.missing], [null, null, 2]);
});
