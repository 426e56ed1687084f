/**
 * Issue 30: the two causes whose repair is re-ingesting from the feed (knowledge no feed published,
 * chunk metadata naming the wrong documents) get their own policy branches with a way back, and
 * their catalogue intent maps to the reindex tools.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CAUSES, exampleRootCauseReport, type RootCauseReport } from '@rag-immune/contracts';
import { DEFAULT_POLICY_FILE, INTENT_TOOLS, decide, loadPolicy, toolNamed } from '../../src/index.ts';

const policy = loadPolicy(DEFAULT_POLICY_FILE);
const noHistory = { failedAttempts: 0, failedTools: new Set<string>() };
const report = (patch: Partial<RootCauseReport>): RootCauseReport => ({ ...exampleRootCauseReport('inc-unit'), ...patch });

for (const [cause, branch] of [
  ['unpublished_knowledge', 'unpublished-knowledge'],
  ['wrong_attribution', 'wrong-attribution'],
] as const) {
  test(`${cause}: re-ingest the named knowledge (blue/green first, in place next), then a person`, () => {
    assert.deepEqual(CAUSES[cause], { component: 'vector_index', intents: ['rebuild_index_incremental'] });
    const decision = decide(
      policy,
      report({ root_cause: cause, affected_component: 'vector_index', affected_knowledge_ids: ['changelog/acl', 'apt/curl'] }),
      noHistory,
      null,
      0.6,
    );
    assert.ok(decision.ok, decision.ok ? '' : decision.reason);
    assert.equal(decision.branch, branch);
    assert.deepEqual(
      decision.steps.map((s) => s.tool),
      ['reindex_into_new_collection', 'reindex_knowledge', 'escalate_to_human'],
    );
    for (const step of decision.steps.slice(0, 2)) {
      const tool = toolNamed(step.tool)!;
      assert.equal(tool.intent, 'rebuild_index_incremental');
      assert.ok(INTENT_TOOLS.rebuild_index_incremental.includes(tool.name));
      assert.equal(tool.reversible, true, `${tool.name} has a way back`);
    }
    // Without named knowledge there is nothing to re-ingest: a person decides.
    const unscoped = decide(policy, report({ root_cause: cause, affected_knowledge_ids: [] }), noHistory, null, 0.6);
    assert.ok(unscoped.ok);
    assert.deepEqual(
      unscoped.steps.map((s) => s.tool),
      ['escalate_to_human'],
    );
  });
}
