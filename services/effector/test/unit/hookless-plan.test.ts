/**
 * Issue 42, repairs without hooks: the policy names tools for both kinds of RAG and the plan keeps
 * only those this RAG has. A RAG serving the contract's /repair/* plans as before; one whose adapter
 * declares `repair: { hooks: none }` gets the Qdrant-only tools, its webhook or the recommendation,
 * and never a hook tool (which would fail against a RAG that serves no /repair/*).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleRootCauseReport, type RootCauseReport } from '@rag-immune/contracts';
import { parseAdapter } from '@rag-immune/rag-adapter';
import { DEFAULT_POLICY_FILE, TOOLS, decide, loadPolicy } from '../../src/index.ts';
import { CONTRACT_HOOKS, ragRepairAccess, toolAvailable, type RagRepairAccess } from '../../src/actions/rag-repair-access.ts';

const policy = loadPolicy(DEFAULT_POLICY_FILE);
const noHistory = { failedAttempts: 0, failedTools: new Set<string>() };
const report = (patch: Partial<RootCauseReport>): RootCauseReport => ({
  ...exampleRootCauseReport('inc-hookless'),
  affected_knowledge_ids: ['apt/curl'],
  ...patch,
});
const HOOKLESS: RagRepairAccess = { hooks: 'none', rebuildFrom: 'kb-baseline', ingestion: null, operatorStep: null, operatorWaitMs: 0 };
const plan = (cause: RootCauseReport['root_cause'], access?: RagRepairAccess, ids = ['apt/curl']) => {
  const decision = decide(policy, report({ root_cause: cause, affected_knowledge_ids: ids }), noHistory, null, 0.6, undefined, access);
  assert.ok(decision.ok, decision.ok ? '' : decision.reason);
  return decision.steps.map((s) => s.tool);
};

test('a RAG with repair hooks plans exactly as before: no hookless stand-in is planned', () => {
  assert.deepEqual(plan('vector_index_corruption'), [
    'reindex_into_new_collection',
    'reindex_knowledge',
    'restore_collection_snapshot',
    'escalate_to_human',
  ]);
  assert.deepEqual(plan('parser_bug', CONTRACT_HOOKS), [
    'reparse_documents',
    'reindex_into_new_collection',
    'reindex_knowledge',
    'escalate_to_human',
  ]);
});

test('a RAG without repair hooks gets the Qdrant-only tools for index faults, alias and snapshot first', () => {
  assert.deepEqual(plan('vector_index_corruption', HOOKLESS), [
    'switch_alias_back',
    'rebuild_from_collection',
    'restore_collection_snapshot',
    'escalate_to_human',
  ]);
  assert.deepEqual(plan('vector_index_corruption', HOOKLESS, []), [
    'switch_alias_back',
    'restore_collection_snapshot',
    'rebuild_from_collection',
    'escalate_to_human',
  ]);
});

test('a RAG without repair hooks gets its ingestion webhook, else the recommendation, where the repair needs its own ingestion', () => {
  for (const cause of ['knowledge_source_failure', 'parser_bug', 'unpublished_knowledge', 'wrong_attribution'] as const)
    assert.deepEqual(plan(cause, HOOKLESS), ['call_ingestion_webhook', 'recommend_operator_step', 'escalate_to_human'], cause);
  // Nothing the effector can do for a reranker or tokenizer fault without hooks: a person.
  for (const cause of ['reranker_drift', 'tokenizer_anomaly'] as const)
    assert.deepEqual(plan(cause, HOOKLESS), ['escalate_to_human'], cause);
});

test('a generator fault on a RAG without repair hooks: the recommendation naming the generation step, then a person', () => {
  // Its prompt or chat model changed (Flowise's chatflow saved, a LangServe route redeployed): no hook pins it back.
  for (const access of [HOOKLESS, { ...HOOKLESS, collectionMode: 'by_name' as const }, { ...HOOKLESS, generationStep: 'redeploy' }])
    for (const ids of [[], ['apt/curl']])
      assert.deepEqual(plan('generator_inconsistency', access, ids), ['recommend_generation_rollback', 'escalate_to_human']);
  // The reference RAG (repair hooks) keeps its plan: the hook tools, never the recommendation.
  assert.deepEqual(plan('generator_inconsistency'), ['pin_generator_version', 'enable_answer_validation', 'escalate_to_human']);
  assert.equal(policy.policy_version, '1.6.0');
});

test('every tool is either for hooked RAGs, hookless ones, or both; escalation and the snapshot restore serve both', () => {
  const both = TOOLS.filter((t) => toolAvailable(t, CONTRACT_HOOKS) && toolAvailable(t, HOOKLESS)).map((t) => t.name);
  assert.deepEqual(both.sort(), ['escalate_to_human', 'restore_collection_snapshot']);
  for (const tool of TOOLS.filter((t) => t.availability === 'repair_hooks'))
    assert.equal(toolAvailable(tool, HOOKLESS), false, `${tool.name} calls a hook: not for a hookless RAG`);
});

test('the adapter file declares the access: absent or hooks: contract is the contract; hooks: none binds the webhook', () => {
  const base = `apiVersion: rag-immune/v1
kind: RagAdapter
metadata: { name: t }
request: { url: '\${base_url}/q', body: { q: '\${query}' } }
response: { answer: $.text }
`;
  assert.equal(ragRepairAccess(null).hooks, 'contract');
  assert.equal(ragRepairAccess(parseAdapter(base)).hooks, 'contract');
  const hookless = parseAdapter(`${base}repair:
  hooks: none
  rebuild_from: kb-baseline
  operator_step: run the upsert
  generation_step: redeploy the route with its previous RAG_PROMPT
  ingestion: { url: 'http://ingest.local/jobs', headers: { authorization: 'Bearer \${env:INGEST_TOKEN}' }, body: { ids: '\${knowledge_ids}' }, settle_seconds: 5 }
`);
  const access = ragRepairAccess(hookless, { INGEST_TOKEN: 'secret-token' });
  assert.equal(access.hooks, 'none');
  assert.equal(access.rebuildFrom, 'kb-baseline');
  assert.equal(access.operatorStep, 'run the upsert');
  assert.equal(access.generationStep, 'redeploy the route with its previous RAG_PROMPT');
  assert.equal(access.ingestion?.settleMs, 5_000);
  assert.deepEqual(access.ingestion?.describe(), { method: 'POST', url: 'http://ingest.local/jobs', headers: ['authorization'] });
  assert.throws(
    () => ragRepairAccess(hookless, {}),
    /repair\.ingestion\.headers\.authorization: environment variable INGEST_TOKEN is not set/,
  );
});

test('a hookless RAG reading its collection by name restores the knowledge in place first; no alias switch is planned', () => {
  const byName: RagRepairAccess = { ...HOOKLESS, collectionMode: 'by_name' };
  assert.deepEqual(plan('vector_index_corruption', byName), [
    'restore_knowledge_from_collection',
    'restore_collection_snapshot',
    'escalate_to_human',
  ]);
  // Knowledge changed in place (a version never published): put back as pinned, before the RAG's own ingestion.
  assert.deepEqual(plan('unpublished_knowledge', byName), [
    'restore_knowledge_from_collection',
    'call_ingestion_webhook',
    'recommend_operator_step',
    'escalate_to_human',
  ]);
  // Unscoped: nothing to restore in place (the tool is not in that branch); the snapshot, else a person.
  assert.deepEqual(plan('vector_index_corruption', byName, []), ['restore_collection_snapshot', 'escalate_to_human']);
  assert.equal(
    ragRepairAccess(
      parseAdapter(`apiVersion: rag-immune/v1
kind: RagAdapter
metadata: { name: t }
request: { url: '\${base_url}/q', body: { q: '\${query}' } }
response: { answer: $.text }
repair: { hooks: none, rebuild_from: kb-baseline, collection_mode: by_name }
`),
    ).collectionMode,
    'by_name',
  );
});
