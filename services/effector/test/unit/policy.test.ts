import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { REPAIR_INTENTS, exampleRootCauseReport, type RootCauseReport } from '@rag-immune/contracts';
import type { Recommendation } from '@rag-immune/memory-client';
import {
  DEFAULT_POLICY_FILE,
  INTENT_TOOLS,
  InvalidPolicyError,
  TOOLS,
  decide,
  loadPolicy,
  parsePolicy,
  toolNamed,
  toolsNotToRetry,
} from '../../src/index.ts';

const policy = loadPolicy(DEFAULT_POLICY_FILE);
const noHistory = { failedAttempts: 0, failedTools: new Set<string>() };

function report(patch: Partial<RootCauseReport>): RootCauseReport {
  return { ...exampleRootCauseReport('inc-unit'), ...patch };
}

test('the shipped policy is valid and names only catalogued tools', () => {
  assert.match(policy.policy_version, /^\d+\.\d+\.\d+$/);
  for (const branch of policy.branches) for (const action of branch.actions) assert.ok(toolNamed(action.tool), action.tool);
});

test('every RepairIntent of the contract maps to a catalogued tool', () => {
  for (const intent of REPAIR_INTENTS) {
    const tools = INTENT_TOOLS[intent];
    assert.ok(tools.length > 0, intent);
    for (const name of tools) assert.ok(toolNamed(name), `${intent} → ${name}`);
  }
  for (const tool of TOOLS)
    assert.ok(
      Object.values(INTENT_TOOLS).some((names) => names.includes(tool.name)),
      `${tool.name} carries some intent`,
    );
});

test('a bad policy refuses to load, naming the line at fault', () => {
  const text = readFileSync(DEFAULT_POLICY_FILE, 'utf8').replace('tool: pin_reranker_version', 'tool: pin_reranker_vresion');
  const line = text.split('\n').findIndex((l) => l.includes('pin_reranker_vresion')) + 1;
  assert.throws(
    () => parsePolicy(text, 'policy.v1.yaml'),
    (error: unknown) => {
      assert.ok(error instanceof InvalidPolicyError);
      assert.equal(error.issues[0]?.line, line);
      assert.match(error.message, new RegExp(`line ${line} \\(branches\\.\\d+\\.actions\\.0\\.tool\\): unknown tool`));
      return true;
    },
  );
});

test('a policy with a wrong cause, a missing reason and a YAML syntax error each name their line', () => {
  const bad = [
    "policy_version: '1.0.0'",
    'branches:',
    '  - id: a',
    '    when: { cause: [vector_index_melt] }',
    '    actions:',
    '      - { tool: reindex_knowledge }',
  ].join('\n');
  const error = (() => {
    try {
      parsePolicy(bad, 'p.yaml');
    } catch (e) {
      return e as InvalidPolicyError;
    }
    throw new Error('accepted');
  })();
  const lines = error.issues.map((i) => i.line).sort();
  assert.deepEqual(lines, [4, 6]);
  assert.throws(() => parsePolicy("policy_version: '1.0.0'\nbranches: [\n", 'p.yaml'), /line \d+/);
  assert.throws(() => parsePolicy("policy_version: 'one'\nbranches: []\n", 'p.yaml'), /line 1 \(policy_version\)/);
});

test('decision tree: cause, scope and history pick the branch and its ordered actions', () => {
  const scoped = decide(
    policy,
    report({ root_cause: 'vector_index_corruption', affected_component: 'vector_index', affected_knowledge_ids: ['apt/curl'] }),
    noHistory,
    null,
    0.6,
  );
  assert.ok(scoped.ok);
  assert.equal(scoped.branch, 'vector-index-corruption');
  assert.deepEqual(
    scoped.steps.map((s) => s.tool),
    // Policy 1.2.0: the blue/green reindex first (it steps aside when the RAG has no alias), then in place.
    ['reindex_into_new_collection', 'reindex_knowledge', 'restore_collection_snapshot', 'escalate_to_human'],
  );
  assert.ok(scoped.steps.every((s) => s.chosen_by === 'policy' && s.reason.length > 0));

  const unscoped = decide(policy, report({ root_cause: 'vector_index_corruption', affected_knowledge_ids: [] }), noHistory, null, 0.6);
  assert.ok(unscoped.ok);
  assert.equal(unscoped.steps[0]?.tool, 'restore_collection_snapshot');

  const unknown = decide(policy, report({ root_cause: 'unknown', affected_component: 'unknown' }), noHistory, null, 0.6);
  assert.ok(unknown.ok);
  assert.deepEqual(
    unknown.steps.map((s) => s.tool),
    ['escalate_to_human'],
  );

  // History: a tool that failed in an earlier revision is not tried again.
  const retried = decide(
    policy,
    report({ root_cause: 'parser_bug', affected_knowledge_ids: ['apt/curl'] }),
    { failedAttempts: 1, failedTools: new Set(['reparse_documents']) },
    null,
    0.6,
  );
  assert.ok(retried.ok);
  assert.deepEqual(
    retried.steps.map((s) => s.tool),
    ['reindex_into_new_collection', 'reindex_knowledge', 'escalate_to_human'],
  );
});

test('a scoped repair that failed on a narrower first scope is retried when a later revision names more knowledge', () => {
  const failed = (revision: number, tool: string, ids: string[] | null) => ({
    tool,
    report_revision: revision,
    args_json: JSON.stringify(ids === null ? { sources: ['debian-changelog'] } : { parser_version: 'p1', knowledge_ids: ids }),
  });
  const at = (revision: number, ids: string[]) =>
    report({ root_cause: 'parser_bug', report_revision: revision, affected_knowledge_ids: ids });
  // Revision 1 named apt/curl only; revision 2 names apt/bash too: the re-parse is a new, wider repair.
  assert.deepEqual([...toolsNotToRetry([failed(1, 'reparse_documents', ['apt/curl'])], at(2, ['apt/curl', 'apt/bash']))], []);
  // The same scope (or a narrower one) again: not retried.
  assert.deepEqual([...toolsNotToRetry([failed(1, 'reparse_documents', ['apt/curl'])], at(2, ['apt/curl']))], ['reparse_documents']);
  // Retried on the wider scope and failed there too: out for good.
  assert.deepEqual(
    [
      ...toolsNotToRetry(
        [failed(1, 'reparse_documents', ['apt/curl']), failed(2, 'reparse_documents', ['apt/curl', 'apt/bash'])],
        at(3, ['apt/curl', 'apt/bash']),
      ),
    ],
    ['reparse_documents'],
  );
  // A tool not scoped by knowledge ids is never retried; a failure of this same revision is not history yet.
  assert.deepEqual(
    [...toolsNotToRetry([failed(1, 'switch_to_backup_source', null)], at(2, ['changelog/curl']))],
    ['switch_to_backup_source'],
  );
  assert.deepEqual([...toolsNotToRetry([failed(2, 'reparse_documents', ['apt/curl'])], at(2, ['apt/curl']))], []);
});

test('no matching branch is a typed refusal, not a guess', () => {
  const narrow = parsePolicy(
    "policy_version: '2.0.0'\nbranches:\n  - id: only-reranker\n    when: { cause: [reranker_drift] }\n    actions: [{ tool: pin_reranker_version, reason: r }]\n",
    'p.yaml',
  );
  const decision = decide(narrow, report({ root_cause: 'tokenizer_anomaly' }), noHistory, null, 0.6);
  assert.equal(decision.ok, false);
  assert.match(decision.ok ? '' : decision.reason, /no policy branch matches cause tokenizer_anomaly/);
});

const recommendation = (patch: Partial<Recommendation>): Recommendation => ({
  incident_id: 'inc-unit',
  source: 'cases',
  degraded: false,
  strategy: [{ intent: 'enable_answer_validation_fallback', tool: 'enable_answer_validation' }],
  confidence: 0.9,
  top_similarity: 0.92,
  citations: [{ case_id: 'case-7', similarity: 0.92, outcome: 'recovered', intents: ['enable_answer_validation_fallback'] }],
  rules_version: null,
  reason: 'similar_case_recovered',
  audit_id: 'a1',
  ...patch,
});

test("memory's confident case-based strategy goes first, citing its cases; a weak or degraded one is not followed", () => {
  const r = report({ root_cause: 'generator_inconsistency', affected_component: 'generator' });
  const followed = decide(policy, r, noHistory, recommendation({}), 0.6);
  assert.ok(followed.ok);
  assert.equal(followed.steps[0]?.tool, 'enable_answer_validation');
  assert.equal(followed.steps[0]?.chosen_by, 'memory');
  assert.deepEqual(followed.steps[0]?.case_ids, ['case-7']);
  assert.deepEqual(
    followed.steps.map((s) => s.tool),
    ['enable_answer_validation', 'pin_generator_version', 'escalate_to_human'],
  );
  for (const weak of [recommendation({ confidence: 0.3 }), recommendation({ degraded: true }), recommendation({ source: 'rules' })]) {
    const d = decide(policy, r, noHistory, weak, 0.6);
    assert.ok(d.ok);
    assert.equal(d.steps[0]?.tool, 'pin_generator_version');
    assert.match(d.memoryNote, /not followed/);
  }
});

test('memory may only reorder the matched branch: a recommended tool outside it is dropped, and the note says so', () => {
  const r = report({ root_cause: 'generator_inconsistency', affected_component: 'generator' });
  // A confident strategy naming a tool the generator branch does not hold (a snapshot restore) and one it does.
  const d = decide(
    policy,
    r,
    noHistory,
    recommendation({
      strategy: [
        { intent: 'rebuild_index_incremental', tool: 'restore_collection_snapshot' },
        { intent: 'enable_answer_validation_fallback', tool: 'enable_answer_validation' },
      ],
    }),
    0.6,
  );
  assert.ok(d.ok);
  assert.deepEqual(
    d.steps.map((s) => s.tool),
    ['enable_answer_validation', 'pin_generator_version', 'escalate_to_human'],
  );
  assert.match(d.memoryNote, /dropped: restore_collection_snapshot/);
});

test('a policy naming one branch id twice is refused at the second', () => {
  const text = [
    "policy_version: '1.0.0'",
    'branches:',
    '  - id: same',
    '    when: { cause: [reranker_drift] }',
    "    actions: [{ tool: pin_reranker_version, reason: 'pin' }]",
    '  - id: same',
    '    when: { cause: [parser_bug] }',
    "    actions: [{ tool: reparse_documents, reason: 'reparse' }]",
  ].join('\n');
  assert.throws(
    () => parsePolicy(text, 'p.yaml'),
    (error: unknown) => {
      assert.ok(error instanceof InvalidPolicyError);
      assert.deepEqual(
        error.issues.map((i) => [i.line, i.path]),
        [[6, 'branches.1.id']],
      );
      assert.match(error.message, /duplicate branch id same/);
      return true;
    },
  );
});
